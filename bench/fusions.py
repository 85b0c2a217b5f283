#!/usr/bin/env python3
"""What each ONNX Runtime fusion gains, alone and together (issue 18: "per fusion, what it
gains where").

    /root/venv-export/bin/python bench/fusions.py --models-dir /work/full-models --rounds 25
    python3 bench/fusions.py --models-dir tests/fixtures/exporters --models llama --rounds 5 \\
        --threads 1 --out-dir /tmp/fusions-smoke

For each MODEL.EXPORTER.onnx under --models-dir (full-size exports come from
``tests/fixtures/exporters/export_models.py --full --only llama_4l ... --out-dir DIR``):
  1. Saturate writes one model per fusion set (--variants; default: none, attention alone,
     RMSNorm alone, the GELU family as "activations", the residual norms (SkipLayerNorm,
     SkipSimplifiedLayerNorm, with RMSNorm) as "skip_norms", the rotary embedding, FusedConv,
     FusedMatMul, all): ``saturate optimize FILE -o
     OUT --fusions SET --cost analytic --latency-runs 0 --verify``. The analytic cost model and
     no latency check make every variant the extracted graph itself (a fusion that matches is
     taken), so the variants differ only in the fusions allowed; "none" is the tensor rules
     alone. "session_guards" is "none" with the onnxruntime cost model (at the smallest
     --threads), which adds the session fusion guards (src/driver/session_fusion_guard.h).
  2. Every output is verified against the original (saturate.onnx_check.compare_models, the
     same random feeds for all) and its fused kernels are counted.
  3. For each thread count, the original and every variant are timed whole in ONNX Runtime
     (ORT_ENABLE_ALL, so ONNX Runtime's own session-time fusions apply to every model),
     interleaved: --warmup runs each, then --rounds round-robin rounds with the order rotated;
     median, p10, p90 and the speedup original median / variant median.

Writes fusions.json (every sample) and fusions.md (one table per model) under --out-dir
(default bench/results), and fusions.png. The timing and verification helpers are
bench/peers.py's.
"""
from __future__ import annotations

import argparse
import json
import pathlib
import subprocess
import sys
import time

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import peers  # noqa: E402  (bench/peers.py: sessions, interleaved timing, verification)

REPO = pathlib.Path(__file__).resolve().parents[1]
KERNELS = {"multi_head_attention": "MultiHeadAttention", "qkv_attention": "Attention",
           "rms_norm": "SimplifiedLayerNormalization",
           "bias_gelu": "BiasGelu", "fast_gelu": "FastGelu", "quick_gelu": "QuickGelu",
           "skip_layer_norm": "SkipLayerNormalization",
           "skip_rms_norm": "SkipSimplifiedLayerNormalization",
           "rotary_embedding": "RotaryEmbedding", "fused_conv": "FusedConv",
           "fused_matmul": "FusedMatMul"}
# Each variant's --fusions: the GELU family (one per model: BiasGelu for BERT and ViT, FastGelu
# for GPT-2, QuickGelu for Llama's SiLU) is measured as one set, "activations".
FUSION_SETS = {"none": "none", "multi_head_attention": "multi_head_attention",
               # Attention with its three projections packed (ONNX Runtime's Attention), where
               # q, k and v are biased projections of one input; MultiHeadAttention elsewhere.
               "qkv_attention": "multi_head_attention,qkv_attention",
               "rms_norm": "rms_norm", "activations": "bias_gelu,fast_gelu,quick_gelu",
               "rotary_embedding": "rotary_embedding",
               "fused_conv": "fused_conv",
               "fused_matmul": "fused_matmul",
               "skip_norms": "skip_layer_norm,skip_rms_norm,rms_norm",
               "all": ",".join(KERNELS),
               # No fusion, measured costs: the tensor rules plus the session fusion guards
               # (residual norms respelled so that ONNX Runtime does not fuse them into its slow
               # SkipLayerNormalization), which need the onnxruntime cost model.
               "session_guards": "none"}
VARIANTS = list(FUSION_SETS)
MEASURED_COSTS = {"session_guards"}


def optimize_variant(args, path, variant, work):
    out = work / f"{path.stem}.{variant}.onnx"
    report = work / f"{path.stem}.{variant}.json"
    fusions = FUSION_SETS[variant]
    cost = ["--cost", "onnxruntime", "--threads", str(min(args.threads))] \
        if variant in MEASURED_COSTS else ["--cost", "analytic"]
    cmd = [str(args.binary), "optimize", str(path), "-o", str(out), "--fusions", fusions,
           *cost, "--latency-runs", "0", "--verify", "--json", str(report)]
    start = time.perf_counter()
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=args.timeout)
    entry = {"variant": variant, "command": " ".join(cmd), "output": str(out),
             "optimize_seconds": time.perf_counter() - start}
    if done.returncode != 0:
        entry["error"] = peers.one_line(done.stderr, 2000)
        return entry
    data = json.loads(report.read_text())
    entry["fused_operators"] = data.get("fused_operators")
    entry["session_fusion_guards"] = data.get("session_fusion_guards")
    entry["saturate_verified"] = data.get("verified")
    entry["optimized_ops"] = data.get("optimized_ops")
    entry["verify"] = peers.verify(path, out, args.seed, args.verify_trials)
    return entry


def markdown(results, args):
    m = peers.machine(args.binary)
    host = (f"{m.get('cpu', 'an unknown CPU')} ({m.get('cpus')} CPUs), ONNX Runtime "
            f"{m.get('onnxruntime')}, commit {m.get('commit')}{' (dirty)' if m.get('dirty') else ''}")
    lines = ["# What each fusion gains", "",
             f"`bench/fusions.py --rounds {args.rounds} --warmup {args.warmup}` on "
             f"{host}. Speedup = original median / variant median "
             "(> 1: faster); p10-p90 of the variant's runs against the original's median in "
             "brackets. Every model runs under ORT_ENABLE_ALL, so ONNX Runtime's own session-time "
             "fusions apply to the original too.", ""]
    for model in results:
        lines += [f"## {model['file']}", "",
                  "| variant | fused | verified | " +
                  " | ".join(f"T={t} median ms | T={t} speedup" for t in args.threads) + " |",
                  "|---|---|---|" + "--:|--:|" * len(args.threads)]
        rows = [{"variant": "original", "fused_operators": {}, "verify": {"ok": True}}]
        rows += model["variants"]
        for entry in rows:
            key = entry["variant"]
            fused = ", ".join(f"{n} {k}" for k, n in (entry.get("fused_operators") or {}).items())
            ok = "error: " + entry["error"] if entry.get("error") else (
                "yes" if entry.get("verify", {}).get("ok") else "NO")
            cells = []
            for t in args.threads:
                r = model["timing"].get(str(t), {}).get(key, {})
                if "median_ms" not in r:
                    cells += [r.get("error", "-"), "-"]
                    continue
                base = model["timing"][str(t)]["original"]["median_ms"]
                cells += [f"{r['median_ms']:.2f}",
                          f"{r['speedup']:.3f} ({base / r['p90_ms']:.2f}-{base / r['p10_ms']:.2f})"]
            lines.append(f"| {key} | {fused or '-'} | {ok} | " + " | ".join(cells) + " |")
        lines.append("")
    return "\n".join(lines) + "\n"


def plot(results, args, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(args.threads), figsize=(6 * len(args.threads), 4),
                             squeeze=False)
    for ax, t in zip(axes[0], args.threads):
        names = [m["file"].removesuffix(".onnx") for m in results]
        width = 0.8 / len(args.variants)
        for i, variant in enumerate(args.variants):
            ys = [m["timing"].get(str(t), {}).get(variant, {}).get("speedup", np.nan)
                  for m in results]
            ax.bar(np.arange(len(names)) + i * width, ys, width, label=variant)
        ax.axhline(1.0, color="black", linewidth=0.8)
        ax.set_xticks(np.arange(len(names)) + 0.4 - width / 2, names, rotation=20, ha="right")
        ax.set_ylabel("speedup over the original")
        ax.set_title(f"ONNX Runtime, {t} thread(s)")
        ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--models-dir", type=pathlib.Path, default=pathlib.Path("/work/full-models"))
    ap.add_argument("--models", nargs="+", default=None,
                    help="model names (the part of the file name before the first dot)")
    ap.add_argument("--variants", nargs="+", default=VARIANTS, choices=VARIANTS)
    ap.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--rounds", type=int, default=25)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--binary", type=pathlib.Path, default=REPO / "build" / "bin" / "saturate")
    ap.add_argument("--work-dir", type=pathlib.Path, default=pathlib.Path("/work/fusions-work"))
    ap.add_argument("--out-dir", type=pathlib.Path, default=REPO / "bench" / "results")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--verify-trials", type=int, default=2)
    ap.add_argument("--timeout", type=float, default=3600)
    args = ap.parse_args()

    files = sorted(args.models_dir.glob("*.onnx"))
    if args.models:
        files = [f for f in files if peers.model_name(f) in args.models]
    if not files:
        ap.error(f"no models under {args.models_dir}")
    args.work_dir.mkdir(parents=True, exist_ok=True)
    args.out_dir.mkdir(parents=True, exist_ok=True)
    results = []
    for path in files:
        peers.log(f"{path.name}: optimizing {len(args.variants)} variants")
        variants = [optimize_variant(args, path, v, args.work_dir) for v in args.variants]
        model = {"file": path.name, "variants": variants, "timing": {}}
        timed = [("original", path)] + [(v["variant"], pathlib.Path(v["output"]))
                                        for v in variants if not v.get("error")]
        for t in args.threads:
            peers.log(f"{path.name}: timing {len(timed)} models at {t} thread(s), "
                      f"{args.rounds} rounds")
            model["timing"][str(t)] = peers.time_variants(args, path, timed, t)
        results.append(model)
        (args.out_dir / "fusions.json").write_text(json.dumps(
            {"machine": peers.machine(args.binary), "rounds": args.rounds,
             "threads": args.threads, "models": results}, indent=1) + "\n")
    (args.out_dir / "fusions.md").write_text(markdown(results, args))
    plot(results, args, args.out_dir / "fusions.png")
    peers.log(f"wrote {args.out_dir / 'fusions.md'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
