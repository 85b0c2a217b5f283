#!/usr/bin/env python3
"""Saturate against the tools ONNX Runtime users run today (issue 18, part 5).

    /root/venv-export/bin/python bench/peers.py                    # /work/full-models, T = 1 and 2
    /root/venv-export/bin/python bench/peers.py --models bert_base --threads 1 --rounds 10
    /root/venv-export/bin/python bench/peers.py --models-dir tests/fixtures/exporters \\
        --models bert_eager --rounds 3 --threads 1 --skip-saturate --out-dir /tmp/peers-smoke

The peers come from PyPI through ``bench/requirements-peers.txt`` (the benchmark's own
requirements, not the project's): onnxsim, onnxslim, onnxoptimizer and ONNX Runtime's
transformers optimizer.  The models are meant to be the full-size exports of
``tests/fixtures/exporters/export_models.py --full --out-dir /work/full-models`` (BERT-base,
DistilBERT-base, GPT-2 small, a 4-layer Llama-style decoder at sequence 128 and 512, ViT-B/16,
ResNet-50, MobileNetV3-large, each from the TorchScript and the dynamo exporter), but any
folder of .onnx files with static input shapes works.  A file is named MODEL.EXPORTER.onnx.

For each file:
  1. every peer optimizes it once, each in its own Python process (a crash or a hang of one
     tool does not stop the benchmark; --timeout bounds each):
       onnxsim        ``onnxsim.simplify(model)`` (its own check's verdict is kept);
       onnxslim       ``onnxslim.slim(model)``;
       onnxoptimizer  ``onnxoptimizer.optimize(model)`` (its default fuse-and-eliminate passes);
       ort_transformers  ``onnxruntime.transformers.optimizer.optimize_model(FILE,
                      model_type=..., num_heads=..., hidden_size=...)`` with its default
                      opt_level, for the model types it supports: bert (BERT and DistilBERT),
                      gpt2, vit; other models (Llama, CNNs) are skipped and the reason recorded.
     Optimize s is the wall time of load + optimize + save in that process ("call_seconds":
     the optimize call alone).
  2. Saturate, once per thread count T (its cost model measures at T threads):
     ``saturate optimize FILE -o OUT --verify --threads T --json REPORT --cost-cache CACHE``
     (a cold cache each time; default target, i.e. onnxruntime for ONNX input; extra arguments
     with --saturate-args); Optimize s is the command's wall time, which includes its own
     latency check and verification.
  3. every output is checked against the original with ``saturate.onnx_check.compare_models``
     (the same random feeds for every tool: fixed seed; float64 where ONNX Runtime can run
     both models in double, else float32);
  4. fusions are counted in each written model: nodes per op type in domain com.microsoft
     (Attention, MultiHeadAttention, SkipLayerNormalization, FastGelu, ...), Softmax nodes left,
     nodes in all; and (unless --no-session-ops) the same counts in the graph ONNX Runtime
     itself runs after its session-time rewrites (ORT_ENABLE_ALL, optimized_model_filepath),
     which shows how much of a tool's work ORT would have done anyway;
  5. for each T, whole-model latency in ONNX Runtime (CPU, ORT_ENABLE_ALL,
     intra_op_num_threads=T, inter_op_num_threads=1, sequential) of the original and of every
     output on the same random feeds: --warmup runs each, then --rounds round-robin rounds,
     the order rotated by one every round; median, p10, p90, and the speedup original median /
     tool median (> 1: the tool's model is faster).

A failure (tool error, timeout, a session ORT cannot create, a mismatch) is recorded and the
benchmark goes on.  Progress lines go to stderr.

Writes (under --out-dir, default bench/results) peers.json (every raw number and sample),
peers.md (a table per thread count, the fusion counts, skips and errors) and peers.png (speedup
per model and tool, one panel per thread count).  Optimized models, reports, cost caches and
logs go to --work-dir (default /work/peers-work).
"""
from __future__ import annotations

import argparse
import gc
import json
import os
import pathlib
import shlex
import subprocess
import sys
import time
from collections import Counter

import numpy as np

REPO = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "python"))

from real_exports import (error_text, host_info, session, summary,  # noqa: E402 (bench/ on the path)
                          timed)
from saturate.onnx_check import _graphs  # noqa: E402

PEERS = ["onnxsim", "onnxslim", "onnxoptimizer", "ort_transformers"]
TOOLS = PEERS + ["saturate"]

# onnxruntime.transformers.optimizer model types by model name (the part of the file name
# before the first dot).  DistilBERT is optimized as "bert", as ORT's docs say.
ORT_MODEL_TYPES = {"bert": "bert", "distilbert": "bert", "gpt2": "gpt2", "vit": "vit",
                   # bench/unseen_models.py's architectures (RoBERTa is BERT to ORT's optimizer)
                   "roberta": "bert", "gpt_neox": "gpt_neox", "clip_vision": "clip",
                   "swin": "swin", "t5_encoder": "t5", "phi3": "phi"}
# (num_heads, hidden_size) of the configurations in tests/fixtures/exporters/export_models.py;
# ORT's optimizer is told them instead of guessing from the graph.  Other names: 0, 0 (ORT
# detects them).
ORT_HEADS = {
    "bert_base": (12, 768), "distilbert_base": (12, 768), "gpt2_small": (12, 768),
    "vit_b_16": (12, 768),
    "bert": (4, 64), "bert_eager": (4, 64), "bert_sdpa": (4, 64), "distilbert": (4, 64),
    "gpt2": (4, 64), "vit": (4, 64),
    # bench/unseen_models.py --size medium: hidden 512, 8 heads.
    **{name: (8, 512) for name in ("roberta_m", "gpt_neox_m", "clip_vision_m", "t5_encoder_m",
                                   "phi3_m")},
}
SKIP_REASONS = {
    "llama": "onnxruntime.transformers.optimizer has no Llama model type (its types: bart, bert, "
             "clip, conformer, gpt2, gpt_neox, phi, qwen3, sam2, swin, tnlr, t5, unet, vae, vit, "
             "mmdit; ORT's Llama path is its own exporter, onnxruntime.transformers.models.llama)",
    "resnet": "no onnxruntime.transformers.optimizer model type for convolutional networks",
    "mobilenet": "no onnxruntime.transformers.optimizer model type for convolutional networks",
    "shufflenet": "no onnxruntime.transformers.optimizer model type for convolutional networks",
    "opt": "onnxruntime.transformers.optimizer has no OPT model type",
    "mistral": "onnxruntime.transformers.optimizer has no Mistral model type",
    "qwen2": "onnxruntime.transformers.optimizer has no Qwen2 model type (it has qwen3)",
}
# ONNX Runtime kernels that it declares in the default ONNX domain, not in com.microsoft.
DEFAULT_DOMAIN_KERNELS = {"SimplifiedLayerNormalization"}
# Short names of com.microsoft operators in the tables.
SHORT = {"MultiHeadAttention": "MHA", "Attention": "Attn", "GroupQueryAttention": "GQA",
         "SkipLayerNormalization": "SkipLN", "SkipSimplifiedLayerNormalization": "SkipRMSN",
         "SimplifiedLayerNormalization": "RMSN", "EmbedLayerNormalization": "EmbedLN",
         "RotaryEmbedding": "Rotary", "BiasGelu": "BiasGelu", "FastGelu": "FastGelu",
         "FusedMatMul": "FusedMM", "FusedConv": "FusedConv", "QuickGelu": "QuickGelu",
         "BiasSplitGelu": "BiasSplitGelu", "BiasAdd": "BiasAdd"}


def log(message):
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def model_name(path):
    return path.name.split(".")[0]


def exporter_name(path):
    parts = path.name.split(".")
    return parts[1] if len(parts) > 2 else "-"


def ort_model_type(name):
    """(model_type, None) or (None, reason)."""
    for prefix in sorted(ORT_MODEL_TYPES, key=len, reverse=True):
        if name.startswith(prefix):
            return ORT_MODEL_TYPES[prefix], None
    for prefix, reason in SKIP_REASONS.items():
        if name.startswith(prefix):
            return None, reason
    return None, f"no onnxruntime.transformers.optimizer model type known for '{name}'"


# --------------------------------------------------------------------------
# One peer in its own process: peers.py _tool NAME SRC DST STATUS OPTIONS_JSON
# --------------------------------------------------------------------------

def tool_main(argv):
    name, src, dst, status_path, options = argv
    options = json.loads(options)
    import onnx

    status = {"tool": name}
    start = time.perf_counter()
    if name == "ort_transformers":
        import onnxruntime
        from onnxruntime.transformers.optimizer import optimize_model

        status["version"] = onnxruntime.__version__
        call = time.perf_counter()
        optimizer = optimize_model(src, model_type=options["model_type"],
                                   num_heads=options.get("num_heads", 0),
                                   hidden_size=options.get("hidden_size", 0),
                                   opt_level=options.get("opt_level"), use_gpu=False)
        status["call_seconds"] = time.perf_counter() - call
        try:
            status["fused_operator_statistics"] = optimizer.get_fused_operator_statistics()
        except Exception as e:  # noqa: BLE001
            status["fused_operator_statistics_error"] = f"{type(e).__name__}: {e}"
        optimizer.save_model_to_file(dst, use_external_data_format=False)
    else:
        model = onnx.load(src)
        status["load_seconds"] = time.perf_counter() - start
        call = time.perf_counter()
        if name == "onnxsim":
            import onnxsim

            status["version"] = getattr(onnxsim, "__version__", None)
            out, check = onnxsim.simplify(model)
            status["onnxsim_check"] = bool(check)
        elif name == "onnxslim":
            import onnxslim

            status["version"] = getattr(onnxslim, "__version__", None)
            out = onnxslim.slim(model)
        elif name == "onnxoptimizer":
            import onnxoptimizer

            status["version"] = getattr(onnxoptimizer, "__version__", None)
            out = onnxoptimizer.optimize(model)
        else:
            raise ValueError(f"unknown tool {name}")
        status["call_seconds"] = time.perf_counter() - call
        onnx.save(out, dst)
    status["seconds"] = time.perf_counter() - start
    pathlib.Path(status_path).write_text(json.dumps(status, indent=2) + "\n")
    return 0


# --------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------

def one_line(text, limit=300):
    return " ".join(str(text).split())[:limit]


def _version(module):
    try:
        return __import__(module).__version__
    except Exception:  # noqa: BLE001
        return None


def machine(binary):
    info = host_info()
    for module in ("onnxruntime", "onnx", "onnxsim", "onnxslim", "onnxoptimizer", "numpy"):
        info[module] = _version(module)
    if binary is not None and pathlib.Path(binary).exists():
        version = subprocess.run([str(binary), "--version"], capture_output=True, text=True)
        info["saturate"] = version.stdout.strip() or None
    return info


def op_counts(path):
    """Node counts of a written model: {"nodes", "ops" ("domain::Op" or "Op"), "fusions"
    (ONNX Runtime's own kernels), "softmax", "opsets"}."""
    import onnx

    model = onnx.load(str(path), load_external_data=False)
    ops = Counter()
    for graph in _graphs(model.graph):
        for node in graph.node:
            domain = node.domain if node.domain not in ("", "ai.onnx") else ""
            ops[f"{domain}::{node.op_type}" if domain else node.op_type] += 1
    # ONNX Runtime's kernels: its com.microsoft operators, and those it declares in the default
    # domain (SimplifiedLayerNormalization).
    fusions = {k.split("::", 1)[1]: v for k, v in sorted(ops.items())
               if k.startswith("com.microsoft::")}
    fusions.update({k: v for k, v in ops.items() if k in DEFAULT_DOMAIN_KERNELS})
    fusions = dict(sorted(fusions.items()))
    return {"nodes": sum(ops.values()), "ops": dict(sorted(ops.items())), "fusions": fusions,
            "softmax": ops.get("Softmax", 0),
            "opsets": {o.domain or "ai.onnx": o.version for o in model.opset_import}}


def session_ops(path, scratch):
    """op_counts of the graph ONNX Runtime runs (ORT_ENABLE_ALL, 1 thread)."""
    try:
        session(path, 1, scratch)
        return op_counts(scratch)
    finally:
        for p in (scratch, pathlib.Path(str(scratch) + ".data")):
            if p.exists():
                p.unlink()


def verify(original, written, seed, trials):
    from saturate import onnx_check

    start = time.perf_counter()
    try:
        r = onnx_check.compare_models(str(original), str(written), seed=seed, trials=trials)
    except Exception as e:  # noqa: BLE001
        return {"ok": False, "error": f"{type(e).__name__}: {one_line(e, 2000)}",
                "seconds": time.perf_counter() - start}
    return {"ok": bool(r.ok), "max_abs_error": r.max_abs_error, "max_rel_error": r.max_rel_error,
            "precision": r.precision, "float64_unavailable": r.float64_unavailable,
            "outputs_finite": r.outputs_finite, "rtol": r.rtol, "atol": r.atol,
            "trials": r.trials, "seconds": time.perf_counter() - start}


# --------------------------------------------------------------------------
# Producing the outputs
# --------------------------------------------------------------------------

def run_peer(args, tool, path, model_dir):
    out = model_dir / f"{path.stem}.{tool}.onnx"
    status_path = model_dir / f"{tool}.status.json"
    entry = {"tool": tool, "threads": None, "output": str(out)}
    options = {}
    if tool == "ort_transformers":
        model_type, reason = ort_model_type(model_name(path))
        if model_type is None:
            entry["skipped"] = reason
            return entry
        heads, hidden = ORT_HEADS.get(model_name(path), (0, 0))
        options = {"model_type": model_type, "num_heads": heads, "hidden_size": hidden,
                   "opt_level": args.ort_opt_level}
        entry["options"] = options
    if args.reuse and out.exists() and status_path.exists():
        entry.update(json.loads(status_path.read_text()))
        entry["optimize_seconds"] = entry.get("seconds")
        entry["reused"] = True
        return entry
    for stale in (out, status_path):
        if stale.exists():
            stale.unlink()
    cmd = [sys.executable, pathlib.Path(__file__).resolve(), "_tool", tool, path, out,
           status_path, json.dumps(options)]
    rc, stdout, stderr, seconds = timed(cmd, args.timeout, cwd=model_dir)
    (model_dir / f"{tool}.log").write_text(stdout + "\n--- stderr ---\n" + stderr)
    entry["process_seconds"] = seconds
    if status_path.exists():
        entry.update(json.loads(status_path.read_text()))
    entry["optimize_seconds"] = entry.get("seconds")
    if rc != 0:
        entry["error"] = error_text(rc, stdout, stderr)
    elif not out.exists():
        entry["error"] = f"exit status 0 but {out} was not written"
    return entry


def run_saturate(args, path, threads, model_dir):
    run_dir = model_dir / f"saturate-t{threads}"
    run_dir.mkdir(parents=True, exist_ok=True)
    out = run_dir / f"{path.stem}.saturate.onnx"
    report = run_dir / "report.json"
    cache = run_dir / "costs.sqlite"
    entry = {"tool": "saturate", "threads": threads, "output": str(out), "report": str(report)}
    cmd = [args.binary, "optimize", path, "-o", out, "--verify", "--threads", threads,
           "--json", report, "--cost-cache", cache] + args.saturate_args
    entry["command"] = shlex.join(map(str, cmd))
    if args.reuse and out.exists() and report.exists() and (run_dir / "status.json").exists():
        entry.update(json.loads((run_dir / "status.json").read_text()))
        entry["reused"] = True
    else:
        for stale in (out, report, cache, pathlib.Path(str(cache) + "-journal"),
                      pathlib.Path(str(cache) + "-wal"), pathlib.Path(str(cache) + "-shm"),
                      run_dir / "status.json"):
            if stale.exists():
                stale.unlink()  # a cold cost cache for every run
        rc, stdout, stderr, seconds = timed(cmd, args.timeout)
        (run_dir / "stdout.txt").write_text(stdout)
        (run_dir / "stderr.txt").write_text(stderr)
        entry.update({"returncode": rc, "optimize_seconds": seconds})
        if rc != 0:
            entry["error"] = error_text(rc, stdout, stderr)
        elif not out.exists():
            entry["error"] = f"exit status 0 but {out} was not written"
        if not entry.get("error"):
            (run_dir / "status.json").write_text(
                json.dumps({"returncode": rc, "optimize_seconds": seconds}) + "\n")
    if report.exists():
        try:
            data = json.loads(report.read_text())
            entry["report_fields"] = {k: data.get(k) for k in (
                "verified", "max_relative_error", "kept_original", "latency_check",
                "original_ops", "optimized_ops", "explore_seconds", "extract_seconds",
                "cost_measure_seconds", "stop_reason", "target", "session_fusion_guards")}
        except json.JSONDecodeError as e:
            entry["report_error"] = str(e)
    return entry


def describe_output(args, path, entry, model_dir):
    """Adds op counts, session-time op counts and verification to a written output."""
    out = pathlib.Path(entry["output"])
    entry["bytes"] = out.stat().st_size
    try:
        entry["counts"] = op_counts(out)
    except Exception as e:  # noqa: BLE001
        entry["counts_error"] = f"{type(e).__name__}: {one_line(e, 1000)}"
    if not args.no_session_ops:
        try:
            entry["session_counts"] = session_ops(out, model_dir / "session-optimized.onnx")
        except Exception as e:  # noqa: BLE001
            entry["session_counts_error"] = f"{type(e).__name__}: {one_line(e, 1000)}"
    entry["verify"] = verify(path, out, args.seed, args.verify_trials)


# --------------------------------------------------------------------------
# Latency
# --------------------------------------------------------------------------

def time_variants(args, path, variants, threads):
    """variants: [(key, path)], the first the original.  Returns {key: result}."""
    from saturate import onnx_check

    results, sessions = {}, {}
    for key, file in variants:
        start = time.perf_counter()
        try:
            sessions[key] = session(file, threads)
            results[key] = {"session_seconds": time.perf_counter() - start}
        except Exception as e:  # noqa: BLE001
            results[key] = {"error": f"session: {type(e).__name__}: {one_line(e, 1000)}"}
    if "original" not in sessions:
        return results
    rng = np.random.default_rng(args.seed)
    feeds = onnx_check.random_feeds(sessions["original"], rng, str(path))
    live = {}
    for key, sess in list(sessions.items()):
        names = [i.name for i in sess.get_inputs()]
        missing = [n for n in names if n not in feeds]
        if missing:
            results[key]["error"] = f"inputs not fed by the original's feeds: {missing}"
            del sessions[key]
            continue
        live[key] = {n: feeds[n] for n in names}

    def once(key):
        start = time.perf_counter()
        sessions[key].run(None, live[key])
        return (time.perf_counter() - start) * 1e3

    for key in list(sessions):
        try:
            for _ in range(args.warmup):
                once(key)
        except Exception as e:  # noqa: BLE001
            results[key]["error"] = f"run: {type(e).__name__}: {one_line(e, 1000)}"
            del sessions[key]
    keys = list(sessions)
    samples = {k: [] for k in keys}
    for r in range(args.rounds):
        shift = r % max(len(keys), 1)
        for key in keys[shift:] + keys[:shift]:
            samples[key].append(once(key))
    for key in keys:
        results[key].update(summary(samples[key]))
        results[key]["samples_ms"] = samples[key]
    base = results.get("original", {}).get("median_ms")
    for key in keys:
        if base:
            results[key]["speedup"] = base / results[key]["median_ms"]
    results["_feeds"] = {k: {"dtype": str(v.dtype), "shape": list(v.shape)}
                         for k, v in feeds.items()}
    sessions.clear()
    gc.collect()
    return results


# --------------------------------------------------------------------------
# Report
# --------------------------------------------------------------------------

def fmt(value, spec, missing="-"):
    return missing if value is None else format(value, spec)


def fusion_text(counts):
    if not counts:
        return "-"
    parts = [f"{SHORT.get(k, k)} {v}" for k, v in counts.get("fusions", {}).items()]
    parts.append(f"Softmax {counts.get('softmax', 0)}")
    return ", ".join(parts)


def outputs_for(model, threads):
    """(row label, entry) for the tools' outputs timed at this thread count."""
    rows = []
    for entry in model["outputs"]:
        if entry["tool"] == "saturate" and entry["threads"] != threads:
            continue
        rows.append((entry["tool"], entry))
    return rows


def markdown(results):
    m = results["machine"]
    lines = [
        "# Saturate against the peers (issue 18)",
        "",
        f"Models from `{results['models_dir']}`; generated by `bench/peers.py` on "
        f"{results['date']}.",
        f"Machine: {m.get('cpu', '?')}, {m.get('cpus')} CPUs, {m.get('memory_gib')} GiB; "
        f"ONNX Runtime {m.get('onnxruntime')}, onnx {m.get('onnx')}, onnxsim "
        f"{m.get('onnxsim')}, onnxslim {m.get('onnxslim')}, onnxoptimizer "
        f"{m.get('onnxoptimizer')}; commit {m.get('commit')}"
        f"{' (dirty tree)' if m.get('dirty') else ''}.",
        "",
        "Latency: ONNX Runtime CPU, ORT_ENABLE_ALL, intra-op threads T, inter-op 1, the same "
        f"random feeds for every model; {results['warmup']} warm-up runs each, then "
        f"{results['rounds']} round-robin rounds (order rotated each round): median "
        "(p10-p90) ms. Speedup: original median / tool median (> 1: faster). Verified: "
        "`saturate.onnx_check.compare_models` against the original (max relative error). "
        "Optimize s: load + optimize + save (peers), the whole `saturate optimize ... --verify` "
        "command (Saturate, at T threads). Fusions: ONNX Runtime kernels in the written model "
        "(com.microsoft operators and SimplifiedLayerNormalization), and the Softmax nodes left.",
    ]
    for threads in results["threads"]:
        lines += ["", f"## {threads} thread{'s' if threads != 1 else ''}", "",
                  "| model | exporter | tool | latency ms | speedup | verified | optimize s | "
                  "fusions |",
                  "|---|---|---|--:|--:|---|--:|---|"]
        for model in results["models"]:
            lat = (model.get("latency") or {}).get(str(threads), {})
            o = lat.get("original", {})
            lines.append(
                f"| {model['model']} | {model['exporter']} | original | "
                + (f"{o['median_ms']:.2f} ({o['p10_ms']:.2f}-{o['p90_ms']:.2f})"
                   if "median_ms" in o else o.get("error", "-"))
                + f" | 1.000 | - | - | {fusion_text(model.get('counts'))} |")
            for label, entry in outputs_for(model, threads):
                if entry.get("skipped"):
                    lines.append(f"| {model['model']} | {model['exporter']} | {label} | "
                                 "skipped | - | - | - | - |")
                    continue
                if entry.get("error"):
                    lines.append(f"| {model['model']} | {model['exporter']} | {label} | "
                                 f"FAILED | - | - | {fmt(entry.get('optimize_seconds'), '.1f')} "
                                 "| - |")
                    continue
                t = lat.get(entry["key"], {})
                v = entry.get("verify") or {}
                ver = ("yes" if v.get("ok") else "NO") + (
                    f" ({v['max_rel_error']:.1e})" if v.get("max_rel_error") is not None
                    else "")
                lines.append(
                    f"| {model['model']} | {model['exporter']} | {label} | "
                    + (f"{t['median_ms']:.2f} ({t['p10_ms']:.2f}-{t['p90_ms']:.2f})"
                       if "median_ms" in t else "error")
                    + f" | {fmt(t.get('speedup'), '.3f')} | {ver} | "
                    f"{fmt(entry.get('optimize_seconds'), '.1f')} | "
                    f"{fusion_text(entry.get('counts'))} |")
    lines += ["", "## Best peer against Saturate", "",
              "Speedup over the original of the fastest peer's model and of Saturate's, with "
              "the spread (p10-p90 of the tool's runs against the original's median).", "",
              "| model | exporter | T | best peer | its speedup | Saturate's speedup |",
              "|---|---|--:|---|--:|--:|"]
    for threads in results["threads"]:
        for model in results["models"]:
            lat = (model.get("latency") or {}).get(str(threads), {})
            base = lat.get("original", {}).get("median_ms")

            def spread(key):
                t = lat.get(key, {})
                if not base or "median_ms" not in t:
                    return None
                return (f"{base / t['median_ms']:.3f} ({base / t['p90_ms']:.3f}-"
                        f"{base / t['p10_ms']:.3f})")

            peers = [(lat[e["key"]]["speedup"], e["tool"], e["key"]) for e in model["outputs"]
                     if e["tool"] != "saturate" and "speedup" in lat.get(e.get("key"), {})]
            best = max(peers) if peers else None
            sat = next((e["key"] for e in model["outputs"]
                        if e["tool"] == "saturate" and e["threads"] == threads), None)
            lines.append(f"| {model['model']} | {model['exporter']} | {threads} | "
                         f"{best[1] if best else '-'} | {spread(best[2]) if best else '-'} | "
                         f"{(spread(sat) or '-') if sat else '-'} |")
    lines += ["", "## Fusions after ONNX Runtime's own session-time rewrites", "",
              "What ONNX Runtime runs (ORT_ENABLE_ALL, graph saved through "
              "`optimized_model_filepath`): ONNX Runtime kernels and Softmax nodes left, "
              "and nodes in all (written -> run).", "",
              "| model | exporter | tool | fusions ORT runs | nodes written -> run |",
              "|---|---|---|---|--:|"]
    for model in results["models"]:
        rows = [("original", model)] + [
            (e["tool"] + (f" (T={e['threads']})" if e["threads"] else ""), e)
            for e in model["outputs"] if not e.get("skipped") and not e.get("error")]
        for label, entry in rows:
            sc, c = entry.get("session_counts"), entry.get("counts") or {}
            lines.append(f"| {model['model']} | {model['exporter']} | {label} | "
                         f"{fusion_text(sc) if sc else entry.get('session_counts_error', '-')} "
                         f"| {fmt(c.get('nodes'), 'd')} -> "
                         f"{fmt((sc or {}).get('nodes'), 'd')} |")
    skipped, errors = [], []
    for model in results["models"]:
        if model.get("error"):
            errors.append((model["file"], "-", model["error"]))
        for entry in model["outputs"]:
            label = entry["tool"] + (f" T={entry['threads']}" if entry["threads"] else "")
            if entry.get("skipped"):
                skipped.append((model["file"], label, entry["skipped"]))
            if entry.get("error"):
                errors.append((model["file"], label, entry["error"]))
            v = entry.get("verify") or {}
            if v.get("error"):
                errors.append((model["file"], label, "verification: " + v["error"]))
        for threads, lat in (model.get("latency") or {}).items():
            for key, t in lat.items():
                if isinstance(t, dict) and t.get("error"):
                    errors.append((model["file"], f"{key} T={threads}", "ORT: " + t["error"]))
    if skipped:
        lines += ["", "## Skipped", ""]
        lines += [f"- {f}, {label}: {why}" for f, label, why in skipped]
    if errors:
        lines += ["", "## Errors", ""]
        lines += [f"- {f}, {label}: `{one_line(err, 600)}`" for f, label, err in errors]
    return "\n".join(lines) + "\n"


def plot(results, path):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except Exception as e:  # noqa: BLE001
        log(f"matplotlib not available ({type(e).__name__}); no plot")
        return False
    models = results["models"]
    labels = [f"{m['model']}\n{m['exporter']}" for m in models]
    tools = [t for t in results["tools"]]
    threads = results["threads"]
    width = 0.8 / max(len(tools), 1)
    fig, axes = plt.subplots(len(threads), 1, squeeze=False,
                             figsize=(max(8, 0.2 * len(models) * max(len(tools), 1) + 3),
                                      3.8 * len(threads)))
    x = np.arange(len(models))
    for ax, t in zip(axes[:, 0], threads):
        for i, tool in enumerate(tools):
            values, low, high = [], [], []
            for m in models:
                lat = (m.get("latency") or {}).get(str(t), {})
                entry = next((e for e in m["outputs"] if e["tool"] == tool and
                              (tool != "saturate" or e["threads"] == t)), None)
                value, lo, hi = np.nan, 0.0, 0.0
                timing = lat.get(entry.get("key")) if entry is not None else None
                base = lat.get("original", {}).get("median_ms")
                if timing and "speedup" in timing and base:
                    value = timing["speedup"]
                    # The tool's p10-p90 against the original's median.
                    lo = max(0.0, value - base / timing["p90_ms"])
                    hi = max(0.0, base / timing["p10_ms"] - value)
                values.append(value)
                low.append(lo)
                high.append(hi)
            ax.bar(x + (i - (len(tools) - 1) / 2) * width, values, width, label=tool,
                   yerr=[low, high], error_kw={"elinewidth": 0.6, "capsize": 1.5})
        ax.axhline(1.0, color="black", linewidth=0.8)
        ax.set_xticks(x)
        ax.set_xticklabels(labels, fontsize=7)
        ax.set_ylabel("original / tool (median)")
        ax.set_title(f"ONNX Runtime CPU latency speedup, {t} thread{'s' if t != 1 else ''}")
        finite = [b.get_height() for b in ax.patches if np.isfinite(b.get_height())]
        if finite:
            lo, hi = min(finite + [1.0]), max(finite + [1.0])
            pad = max(0.03, 0.15 * (hi - lo))
            ax.set_ylim(max(0.0, lo - pad), hi + pad)
        ax.grid(axis="y", linewidth=0.3)
        ax.legend(fontsize=7, loc="center left", bbox_to_anchor=(1.0, 0.5))
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return True


def write_outputs(args, results):
    args.out_dir.mkdir(parents=True, exist_ok=True)
    (args.out_dir / "peers.json").write_text(json.dumps(results, indent=2) + "\n")
    (args.out_dir / "peers.md").write_text(markdown(results))


# --------------------------------------------------------------------------
# Main
# --------------------------------------------------------------------------

def benchmark_model(args, path, results):
    model_dir = args.work_dir / path.stem
    model_dir.mkdir(parents=True, exist_ok=True)
    model = {"file": path.name, "path": str(path), "model": model_name(path),
             "exporter": exporter_name(path), "bytes": path.stat().st_size, "outputs": [],
             "latency": {}}
    results["models"].append(model)
    try:
        model["counts"] = op_counts(path)
        if not args.no_session_ops:
            model["session_counts"] = session_ops(path, model_dir / "session-optimized.onnx")
    except Exception as e:  # noqa: BLE001
        model["error"] = f"{type(e).__name__}: {one_line(e, 1000)}"
        log(f"  cannot read {path.name}: {model['error']}")
        return
    for tool in args.tools:
        if tool == "saturate":
            continue
        log(f"  {tool}: optimizing")
        entry = run_peer(args, tool, path, model_dir)
        entry["key"] = tool
        model["outputs"].append(entry)
        if entry.get("skipped"):
            log(f"  {tool}: skipped: {entry['skipped']}")
            continue
        if entry.get("error"):
            log(f"  {tool}: FAILED after {fmt(entry.get('process_seconds'), '.1f')} s: "
                f"{one_line(entry['error'])}")
            continue
        describe_output(args, path, entry, model_dir)
        log(f"  {tool}: {entry['optimize_seconds']:.1f} s, {entry['counts']['nodes']} nodes, "
            f"{fusion_text(entry.get('counts'))}; verified {entry['verify'].get('ok')} "
            f"({fmt(entry['verify'].get('max_rel_error'), '.1e')})")
        write_outputs(args, results)
    if "saturate" in args.tools:
        for threads in args.threads:
            log(f"  saturate T={threads}: optimizing")
            entry = run_saturate(args, path, threads, model_dir)
            entry["key"] = f"saturate@{threads}"
            model["outputs"].append(entry)
            if entry.get("error"):
                log(f"  saturate T={threads}: FAILED after "
                    f"{fmt(entry.get('optimize_seconds'), '.1f')} s: {one_line(entry['error'])}")
                continue
            describe_output(args, path, entry, model_dir)
            log(f"  saturate T={threads}: {fmt(entry.get('optimize_seconds'), '.1f')} s, "
                f"{entry['counts']['nodes']} nodes, {fusion_text(entry.get('counts'))}; "
                f"verified {entry['verify'].get('ok')}")
            write_outputs(args, results)
    for threads in args.threads:
        variants = [("original", path)] + [
            (e["key"], pathlib.Path(e["output"])) for e in model["outputs"]
            if not e.get("skipped") and not e.get("error")
            and (e["tool"] != "saturate" or e["threads"] == threads)]
        log(f"  T={threads}: timing {len(variants)} models, {args.rounds} rounds")
        lat = time_variants(args, path, variants, threads)
        model["latency"][str(threads)] = lat
        base = lat.get("original", {})
        parts = [f"{k} {v['median_ms']:.2f} ms ({v.get('speedup', 0):.3f}x)"
                 for k, v in lat.items() if isinstance(v, dict) and "median_ms" in v]
        log(f"  T={threads}: " + "; ".join(parts))
        for k, v in lat.items():
            if isinstance(v, dict) and v.get("error"):
                log(f"  T={threads}: {k}: {one_line(v['error'])}")
        if "median_ms" not in base:
            log(f"  T={threads}: the original could not be timed")
        write_outputs(args, results)


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "_tool":
        return tool_main(sys.argv[2:])
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--models-dir", type=pathlib.Path, default=pathlib.Path("/work/full-models"))
    ap.add_argument("--models", nargs="+", default=None,
                    help="only files whose name contains one of these strings")
    ap.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--rounds", type=int, default=25, help="round-robin timing rounds")
    ap.add_argument("--warmup", type=int, default=3, help="warm-up runs per model and T")
    ap.add_argument("--tools", nargs="+", default=TOOLS, choices=TOOLS)
    ap.add_argument("--skip-saturate", action="store_true", help="leave Saturate out")
    ap.add_argument("--binary", type=pathlib.Path, default=REPO / "build" / "bin" / "saturate")
    ap.add_argument("--saturate-args", default="",
                    help="extra arguments for saturate optimize (one shell-quoted string)")
    ap.add_argument("--ort-opt-level", type=int, default=None,
                    help="opt_level for ORT's transformers optimizer (default: its own)")
    ap.add_argument("--work-dir", type=pathlib.Path, default=pathlib.Path("/work/peers-work"))
    ap.add_argument("--out-dir", type=pathlib.Path, default=REPO / "bench" / "results")
    ap.add_argument("--seed", type=int, default=0, help="seed of the random feeds")
    ap.add_argument("--verify-trials", type=int, default=2)
    ap.add_argument("--timeout", type=float, default=2 * 3600, help="seconds per tool run")
    ap.add_argument("--reuse", action="store_true",
                    help="keep outputs already in --work-dir instead of optimizing again")
    ap.add_argument("--no-session-ops", action="store_true",
                    help="do not count what ONNX Runtime fuses itself at session creation")
    args = ap.parse_args()
    args.saturate_args = shlex.split(args.saturate_args)
    if args.skip_saturate:
        args.tools = [t for t in args.tools if t != "saturate"]
    args.work_dir = args.work_dir.resolve()
    args.out_dir = args.out_dir.resolve()
    models_dir = args.models_dir.resolve()
    files = sorted(models_dir.glob("*.onnx"))
    if args.models:
        files = [f for f in files if any(s in f.name for s in args.models)]
    if not files:
        ap.error(f"no .onnx files in {models_dir}" + (f" matching {args.models}"
                                                       if args.models else ""))
    if "saturate" in args.tools and not args.binary.exists():
        ap.error(f"{args.binary} does not exist: build it or pass --skip-saturate")
    log(f"{len(files)} models from {models_dir}; tools {args.tools}; threads {args.threads}; "
        f"{args.rounds} rounds; work dir {args.work_dir}")
    started = time.perf_counter()
    results = {"generator": "bench/peers.py", "date": time.strftime("%Y-%m-%d %H:%M:%S"),
               "command": shlex.join(sys.argv), "models_dir": str(models_dir),
               "work_dir": str(args.work_dir), "tools": args.tools, "threads": args.threads,
               "rounds": args.rounds, "warmup": args.warmup, "seed": args.seed,
               "saturate_args": args.saturate_args,
               "machine": machine(args.binary if "saturate" in args.tools else None),
               "models": []}
    for n, path in enumerate(files, 1):
        log(f"({n}/{len(files)}) {path.name} ({path.stat().st_size / 1e6:.1f} MB)")
        benchmark_model(args, path, results)
        write_outputs(args, results)
        gc.collect()
    results["total_seconds"] = time.perf_counter() - started
    write_outputs(args, results)
    if plot(results, args.out_dir / "peers.png"):
        log(f"wrote {args.out_dir / 'peers.png'}")
    log(f"done in {results['total_seconds']:.0f} s; wrote {args.out_dir / 'peers.json'} and "
        f"{args.out_dir / 'peers.md'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
