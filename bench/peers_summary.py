#!/usr/bin/env python3
"""One table and one plot from several runs of bench/peers.py (issue 18, part 5).

    python3 bench/peers_summary.py RUN/peers.json [RUN2/peers.json ...] [--out-dir DIR]

The whole peer benchmark (sixteen full-size exports, 1 and 2 threads) takes longer than one
sitting on a 2-core VM, so it is run in parts; this script puts the parts side by side. Where
a (model file, thread count) appears in several runs, the run listed last wins. Each row says
which run (commit, rounds) it comes from.

For each model file and thread count:
  - the best peer: the verified peer output with the lowest median latency;
  - Saturate against the best peer and against the original, as *paired* ratios: the
    benchmark times every model once per round, interleaved, so round r's ratio
    peer_ms[r] / saturate_ms[r] compares two runs taken moments apart. The median of those
    ratios and their p10-p90 are reported, and the verdict is "faster" when p10 > 1, "slower"
    when p90 < 1, and "within noise" otherwise (the Done-when of issue 18 asks for "at least as
    fast as the best peer within the measured noise", and never slower than the original);
  - what Saturate wrote: its com.microsoft fusions and the residual norms it kept ONNX Runtime
    from fusing (session fusion guards), or "the original" when its latency check
    kept the input.

Writes DIR/peers_summary.md (default bench/results) and DIR/peers_summary.png (when matplotlib
is installed: bench/requirements-peers.txt has it).
"""
from __future__ import annotations

import argparse
import json
import pathlib
import sys

import numpy as np

REPO = pathlib.Path(__file__).resolve().parents[1]
PEERS = ["onnxsim", "onnxslim", "onnxoptimizer", "ort_transformers"]
SHORT = {"MultiHeadAttention": "MHA", "SimplifiedLayerNormalization": "RMSNorm",
         "SkipLayerNormalization": "SkipLN"}
MODEL_ORDER = ["bert_base", "distilbert_base", "gpt2_small", "llama_4l", "llama_4l_seq512",
               "vit_b_16", "resnet50", "mobilenet_v3_large"]


def paired(numerator, denominator):
    """Per-round ratios numerator[r] / denominator[r]: (median, p10, p90), or None."""
    n = min(len(numerator), len(denominator))
    if n == 0:
        return None
    ratios = np.asarray(numerator[:n], dtype=float) / np.asarray(denominator[:n], dtype=float)
    return (float(np.median(ratios)), float(np.percentile(ratios, 10)),
            float(np.percentile(ratios, 90)))


def verdict(ratio):
    if ratio is None:
        return "-"
    _, p10, p90 = ratio
    return "faster" if p10 > 1 else "slower" if p90 < 1 else "within noise"


def fmt_ratio(ratio):
    return "-" if ratio is None else f"{ratio[0]:.3f} ({ratio[1]:.2f}-{ratio[2]:.2f})"


def fusion_text(counts):
    if not counts:
        return "-"
    parts = [f"{SHORT.get(k, k)} {v}" for k, v in sorted(counts.get("fusions", {}).items())]
    return ", ".join(parts) if parts else "no fusion"


def guards_text(entry, fields):
    """", 25 norms guarded" when Saturate's output respelled residual norms so that ONNX Runtime
    does not fuse them (src/driver/session_fusion_guard.h); from the run's report fields, or from
    its report file for runs made before peers.py recorded them."""
    guards = fields.get("session_fusion_guards")
    report = pathlib.Path(entry.get("report", ""))
    if guards is None and "session_fusion_guards" not in fields and report.is_file():
        guards = json.loads(report.read_text()).get("session_fusion_guards")
    if not guards or not guards.get("written"):
        return ""
    return f", {guards['guarded']} norms guarded"


def rows_of_run(run, label):
    """{(file, threads): row} for one peers.json."""
    rows = {}
    for model in run["models"]:
        for threads_key, latency in (model.get("latency") or {}).items():
            threads = int(threads_key)
            original = latency.get("original", {})
            if "samples_ms" not in original:
                continue
            row = {"file": model["file"], "model": model["model"], "exporter": model["exporter"],
                   "threads": threads, "run": label, "original_ms": original["median_ms"]}
            best = None
            for entry in model["outputs"]:
                timing = latency.get(entry.get("key"), {})
                verified = (entry.get("verify") or {}).get("ok") is True
                if entry["tool"] in PEERS and verified and "samples_ms" in timing:
                    if best is None or timing["median_ms"] < best[1]["median_ms"]:
                        best = (entry["tool"], timing)
                if entry["tool"] == "saturate" and entry.get("threads") == threads:
                    row["saturate_verified"] = verified
                    fields = entry.get("report_fields") or {}
                    row["saturate_wrote"] = ("the original" if fields.get("kept_original")
                                             else fusion_text(entry.get("counts"))
                                             + guards_text(entry, fields))
                    row["saturate_optimize_s"] = entry.get("optimize_seconds")
                    if "samples_ms" in timing:
                        row["saturate_ms"] = timing["median_ms"]
                        row["saturate_vs_original"] = paired(original["samples_ms"],
                                                             timing["samples_ms"])
                        row["_saturate_samples"] = timing["samples_ms"]
            if best is not None:
                row["best_peer"] = best[0]
                row["best_peer_vs_original"] = paired(original["samples_ms"],
                                                      best[1]["samples_ms"])
                if "_saturate_samples" in row:
                    row["saturate_vs_best_peer"] = paired(best[1]["samples_ms"],
                                                          row["_saturate_samples"])
            row.pop("_saturate_samples", None)
            rows[(model["file"], threads)] = row
    return rows


def order_key(row):
    model = MODEL_ORDER.index(row["model"]) if row["model"] in MODEL_ORDER else len(MODEL_ORDER)
    return (model, row["model"], row["exporter"], row["threads"])


def markdown(rows, runs):
    lines = ["# Saturate against the peers: every export, one table (issue 18)", "",
             "Generated by `bench/peers_summary.py` from these `bench/peers.py` runs "
             "(a row comes from the last run listed that has it):", ""]
    for label, path, run in runs:
        m = run["machine"]
        lines.append(f"- {label}: `{path}`, {run['date']}, commit {m.get('commit')}, "
                     f"{run['rounds']} rounds, {m.get('cpus')} CPUs ({m.get('cpu')}), "
                     f"ONNX Runtime {m.get('onnxruntime')}")
    lines += ["", "Ratios are paired per round (the benchmark times every model once a round, "
              "interleaved): median (p10-p90) of peer_ms / Saturate_ms, or original_ms / "
              "tool_ms; > 1 means Saturate (or the tool) is faster. Verdict: faster if "
              "p10 > 1, slower if p90 < 1, else within noise.", "",
              "| model | exporter | threads | original ms | best peer vs original | "
              "Saturate vs original | Saturate vs best peer | verdict vs best peer | "
              "verdict vs original | Saturate wrote | optimize s | run |",
              "|---|---|--:|--:|---|---|---|---|---|---|--:|---|"]
    for row in sorted(rows, key=order_key):
        peer = (f"{row['best_peer']} {fmt_ratio(row.get('best_peer_vs_original'))}"
                if "best_peer" in row else "-")
        wrote = row.get("saturate_wrote", "-")
        if row.get("saturate_verified") is False:
            wrote += " (NOT verified)"
        seconds = row.get("saturate_optimize_s")
        lines.append(
            f"| {row['model']} | {row['exporter']} | {row['threads']} | "
            f"{row['original_ms']:.2f} | {peer} | {fmt_ratio(row.get('saturate_vs_original'))} | "
            f"{fmt_ratio(row.get('saturate_vs_best_peer'))} | "
            f"{verdict(row.get('saturate_vs_best_peer'))} | "
            f"{verdict(row.get('saturate_vs_original'))} | {wrote} | "
            f"{'-' if seconds is None else f'{seconds:.1f}'} | {row['run']} |")
    counted = {}
    for row in rows:
        counted.setdefault(row["threads"], []).append(verdict(row.get("saturate_vs_best_peer")))
    lines += [""]
    for threads in sorted(counted):
        verdicts = counted[threads]
        lines.append(f"- {threads} thread{'s' if threads != 1 else ''}: Saturate against the best "
                     f"peer: " + ", ".join(f"{v} {verdicts.count(v)}" for v in
                                           ("faster", "within noise", "slower", "-")
                                           if verdicts.count(v)))
    return "\n".join(lines) + "\n"


def plot(rows, path):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except Exception as e:  # noqa: BLE001
        print(f"matplotlib not available ({type(e).__name__}); no plot", file=sys.stderr)
        return False
    threads = sorted({row["threads"] for row in rows})
    fig, axes = plt.subplots(len(threads), 1, squeeze=False, figsize=(12, 3.6 * len(threads)))
    for ax, t in zip(axes[:, 0], threads):
        chosen = sorted((r for r in rows if r["threads"] == t), key=order_key)
        x = np.arange(len(chosen))
        for offset, key, label in ((-0.2, "best_peer_vs_original", "best peer"),
                                   (0.2, "saturate_vs_original", "Saturate")):
            values = [r[key][0] if r.get(key) else np.nan for r in chosen]
            low = [r[key][0] - r[key][1] if r.get(key) else 0 for r in chosen]
            high = [r[key][2] - r[key][0] if r.get(key) else 0 for r in chosen]
            ax.bar(x + offset, values, 0.4, label=label, yerr=[low, high],
                   error_kw={"elinewidth": 0.6, "capsize": 1.5})
        ax.axhline(1.0, color="black", linewidth=0.8)
        ax.set_xticks(x)
        ax.set_xticklabels([f"{r['model']}\n{r['exporter']}" for r in chosen], fontsize=7)
        ax.set_ylabel("original / tool (paired)")
        ax.set_title(f"ONNX Runtime CPU, {t} thread{'s' if t != 1 else ''}: median and "
                     "p10-p90 of per-round speedups")
        ax.set_ylim(0.7, 1.4)
        ax.grid(axis="y", linewidth=0.3)
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return True


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("runs", nargs="+", type=pathlib.Path, help="peers.json files, oldest first")
    ap.add_argument("--out-dir", type=pathlib.Path, default=REPO / "bench" / "results")
    args = ap.parse_args()
    runs, rows = [], {}
    for i, path in enumerate(args.runs):
        run = json.loads(path.read_text())
        label = f"run {i + 1}"
        runs.append((label, path, run))
        rows.update(rows_of_run(run, label))
    if not rows:
        ap.error("no timed models in these runs")
    args.out_dir.mkdir(parents=True, exist_ok=True)
    (args.out_dir / "peers_summary.md").write_text(markdown(list(rows.values()), runs))
    plot(list(rows.values()), args.out_dir / "peers_summary.png")
    print(f"{len(rows)} rows -> {args.out_dir / 'peers_summary.md'}")


if __name__ == "__main__":
    main()
