#!/usr/bin/env python3
"""End-to-end: the 7 paper models as ONNX files, optimized for the runtime they run on, timed.

    python3 bench/real_models.py                    # all 7 paper models, full size
    python3 bench/real_models.py --quick            # reduced models, fewer runs (CI-sized)
    python3 bench/real_models.py --models bert vgg19 --runs 50
    python3 bench/real_models.py --quick --baseline /path/to/old/build/bin/saturate

For each model, side by side in one run:
  1. `saturate export MODEL -o M.onnx` (random weights: the bundled models have no trained ones);
  2. `saturate optimize M.onnx --cost onnxruntime` with a cold cost cache, then again with the
     warm cache (the target: the second run spends under 5% of its time measuring), and
     `saturate optimize M.onnx --cost onednn` for the oneDNN executor;
  3. whole-model latency of the original and the optimized model in ONNX Runtime (CPU, default
     graph optimizations on, as deployed; runs interleaved; median and p10-p90) and on the
     oneDNN executor (`saturate bench`), with the cost model's predicted speedup beside the
     measured one;
  4. every optimized model checked against its original in ONNX Runtime (onnx_check);
  5. with --baseline OLD_SATURATE, the ONNX path's optimize time before and after: the same
     `optimize M.onnx -o O.onnx --cost onnxruntime --verify` with a cold and then a warm cache
     of its own, run by the baseline program and by this build alternately.

Writes bench/results/real_models.json, docs/REAL_MODELS.md and docs/results/real_models.png
(or everything under --out-dir). Exit status 1 when a model fails to optimize or verify.
"""
import argparse
import json
import os
import pathlib
import shutil
import subprocess
import sys
import time


REPO = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "python"))
sys.path.insert(0, str(REPO / "bench"))

from optimize_path import optimize_once  # noqa: E402
from paper_published import LABELS, PAPER_MODELS  # noqa: E402
from paper_runner import machine  # noqa: E402
from saturate import onnx_check  # noqa: E402
from saturate.ort_latency import compare_latency  # noqa: E402


def run(cmd, timeout):
    start = time.perf_counter()
    process = subprocess.run([str(c) for c in cmd], capture_output=True, text=True,
                             timeout=timeout)
    return process, time.perf_counter() - start


def checked(cmd, timeout=3600):
    process, seconds = run(cmd, timeout)
    if process.returncode != 0:
        raise RuntimeError(f"{' '.join(map(str, cmd))} failed ({process.returncode}):\n"
                           f"{process.stderr.strip()[-2000:]}")
    return process, seconds


def measure_model(args, name, work):
    binary = args.binary
    onnx_path = work / f"{name}.onnx"
    # Random weights at scale 1 overflow float32 in a deep model without normalization (BERT's
    # attention stack): halve them until the original's outputs are finite, so that checking
    # the optimized model compares numbers rather than NaNs. The scale used is reported.
    weight_scale = 1.0
    for _ in range(12):
        export_cmd = [binary, "export", name, "-o", onnx_path, "--weight-scale", weight_scale]
        if args.quick:
            export_cmd.append("--reduced")
        checked(export_cmd)
        if onnx_check.compare_models(onnx_path, onnx_path, trials=1).outputs_finite:
            break
        weight_scale /= 2
    result = {"model": name, "label": LABELS.get(name, name), "weight_scale": weight_scale}
    cache = work / "costs.sqlite"
    for backend in ("onnxruntime", "onednn"):
        optimized = work / f"{name}.opt-{backend}.onnx"
        report_path = work / f"{name}.opt-{backend}.json"
        cmd = [binary, "optimize", onnx_path, "-o", optimized, "--cost", backend,
               "--cost-cache", cache, "--json", report_path, "--threads", args.threads,
               "--ilp-time-limit", args.ilp_time_limit]
        _, cold_seconds = checked(cmd)
        cold = json.loads(report_path.read_text())
        _, warm_seconds = checked(cmd)
        warm = json.loads(report_path.read_text())
        check = onnx_check.compare_models(onnx_path, optimized, trials=1)
        # The warm run wrote the model that is timed below (with ONNX Runtime costs, each run's
        # whole-model latency check may keep the original), so its prediction is the one shown.
        result[backend] = {
            "predicted_speedup": warm["original_cost"] / warm["optimized_cost"],
            "original_cost_ms": warm["original_cost"],
            "optimized_cost_ms": warm["optimized_cost"],
            "latency_check": warm.get("latency_check"),
            "cold_seconds": cold_seconds,
            "cold_measure_seconds": cold.get("cost_measure_seconds"),
            "cold_measured": cold.get("cost_measured"),
            "warm_seconds": warm_seconds,
            "warm_measure_seconds": warm.get("cost_measure_seconds"),
            "warm_measured": warm.get("cost_measured"),
            "warm_measure_fraction": (warm.get("cost_measure_seconds") or 0.0) / warm_seconds,
            "fallbacks": cold.get("cost_fallbacks"),
            "verified": check.ok,
            "outputs_finite": check.outputs_finite,
            "max_abs_error": check.max_abs_error,
            "max_rel_error": check.max_rel_error,
            "egraph_nodes": cold.get("egraph_nodes"),
        }
    if args.baseline:
        result["optimize_path"] = optimize_path_times(args, name, onnx_path, work)
    ort_original, ort_optimized = compare_latency(onnx_path,
                                                  work / f"{name}.opt-onnxruntime.onnx",
                                                  args.runs, args.threads)
    result["onnxruntime"].update({
        "original_latency": ort_original, "optimized_latency": ort_optimized,
        "measured_speedup": ort_original["median_ms"] / ort_optimized["median_ms"],
        "measured_speedup_min": ort_original["min_ms"] / ort_optimized["min_ms"]})
    # oneDNN: `saturate bench --optimize` times the original and the graph it optimizes with the
    # same measured costs (warm cache now) in one process, on the same inputs.
    report_path = work / f"{name}.bench-onednn.json"
    checked([binary, "bench", onnx_path, "--optimize", "--cost", "onednn", "--cost-cache", cache,
             "--runs", args.runs, "--threads", args.threads, "--json", report_path,
             "--ilp-time-limit", args.ilp_time_limit])
    bench = json.loads(report_path.read_text())
    result["onednn"].update({
        "original_latency": bench["original"], "optimized_latency": bench["optimized"],
        "measured_speedup": bench["original"]["median_ms"] / bench["optimized"]["median_ms"],
        "measured_speedup_min": bench["original"]["min_ms"] / bench["optimized"]["min_ms"],
        "bench_predicted_speedup": bench.get("predicted_speedup")})
    return result


def optimize_path_times(args, name, onnx_path, work):
    """Cold and warm wall time of `optimize M.onnx -o O.onnx --verify` (ONNX Runtime costs),
    this build and the baseline alternately, each with its own cache and folder
    (bench/optimize_path.py's run)."""
    times = {}
    programs = (("this build", args.binary), ("baseline", args.baseline))
    extra = ["--cost", "onnxruntime", "--threads", args.threads,
             "--ilp-time-limit", args.ilp_time_limit]
    for label, _ in programs:
        folder = work / f"{name}.path-{label.replace(' ', '-')}"
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir(parents=True)
    for phase in ("cold", "warm"):
        for label, program in programs:
            folder = work / f"{name}.path-{label.replace(' ', '-')}"
            run = optimize_once(program, onnx_path, folder / "costs.sqlite", folder, extra)
            times.setdefault(label, {})[f"{phase}_seconds"] = run["seconds"]
    return times


def write_report(results, meta, out_md, plot_path):
    lines = [
        "# End-to-end: optimized ONNX models, measured",
        "",
        "Written by `python3 bench/real_models.py` "
        f"({'quick mode, reduced models' if meta['quick'] else 'full-size models'}). "
        f"Machine: {meta['machine']['cpu']}, {meta['machine']['cores']} cores; "
        f"{meta['threads']} thread(s) for both runtimes; {meta['runs']} timed runs per model.",
        "",
        "Each model is exported with random weights, optimized once per runtime with that "
        "runtime's measured cost model (every distinct operator configuration timed, cached in "
        "SQLite), and the original and optimized models are timed whole. *Predicted* is the "
        "cost model's speedup (sum of measured per-operator times); *measured* is the ratio of "
        "median whole-model latencies. Latency columns: median (p10-p90) ms. Random weights "
        "are scaled down where float32 would overflow at scale 1 (weight scale column in the "
        "JSON: " + ", ".join(f"{r['label']} {r['weight_scale']:g}" for r in results
                             if r.get("weight_scale", 1.0) != 1.0) + ").",
        "",
        "| model | runtime | original ms | optimized ms | measured speedup (medians) | "
        "by minimum | predicted speedup | verified (max abs err) |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in results:
        if "error" in r:
            lines.append(f"| {r['label']} | - | failed: {r['error'][:80]} | | | | | |")
            continue
        for backend in ("onnxruntime", "onednn"):
            b = r[backend]
            o, p = b["original_latency"], b["optimized_latency"]
            lines.append(
                f"| {r['label']} | {backend} | {o['median_ms']:.2f} ({o['p10_ms']:.2f}-"
                f"{o['p90_ms']:.2f}) | {p['median_ms']:.2f} ({p['p10_ms']:.2f}-{p['p90_ms']:.2f})"
                f" | {b['measured_speedup']:.3f}x | {b['measured_speedup_min']:.3f}x"
                f" | {b['predicted_speedup']:.3f}x | "
                f"{'yes' if b['verified'] else 'NO'} ({b['max_abs_error']:.1e})"
                f"{'' if b.get('outputs_finite', True) else ', outputs not finite'} |")
    lines += [
        "",
        "## Cost cache",
        "",
        "| model | runtime | cold optimize s | of which measuring s | configurations measured | "
        "warm optimize s | warm measuring s | warm share |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in results:
        if "error" in r:
            continue
        for backend in ("onnxruntime", "onednn"):
            b = r[backend]
            lines.append(
                f"| {r['label']} | {backend} | {b['cold_seconds']:.1f} | "
                f"{b['cold_measure_seconds'] or 0:.1f} | {b['cold_measured']} | "
                f"{b['warm_seconds']:.2f} | {b['warm_measure_seconds'] or 0:.3f} | "
                f"{100 * b['warm_measure_fraction']:.2f} % |")
    with_path = [r for r in results if "optimize_path" in r]
    if with_path:
        lines += [
            "",
            "## Optimize time of the ONNX path, before and after",
            "",
            f"`optimize M.onnx -o O.onnx --cost onnxruntime --verify`, cold cache then warm, run "
            f"alternately by this build and by the baseline program ({meta.get('baseline')}).",
            "",
            "| model | cold s, baseline | cold s, this build | warm s, baseline | "
            "warm s, this build |",
            "|---|---|---|---|---|",
        ]
        for r in with_path:
            t = r["optimize_path"]
            lines.append(
                f"| {r['label']} | {t['baseline']['cold_seconds']:.2f} | "
                f"{t['this build']['cold_seconds']:.2f} | {t['baseline']['warm_seconds']:.2f} | "
                f"{t['this build']['warm_seconds']:.2f} |")
    if plot_path:
        lines += ["", f"![predicted vs measured speedup](results/{plot_path.name})", ""]
    out_md.write_text("\n".join(lines) + "\n")


def plot(results, path):
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    fig, ax = plt.subplots(figsize=(6, 5))
    for backend, marker in (("onnxruntime", "o"), ("onednn", "s")):
        xs = [r[backend]["predicted_speedup"] for r in results if "error" not in r]
        ys = [r[backend]["measured_speedup"] for r in results if "error" not in r]
        ax.scatter(xs, ys, marker=marker, label=backend)
        for r, x, y in zip([r for r in results if "error" not in r], xs, ys):
            ax.annotate(r["label"], (x, y), fontsize=7)
    low = min([0.9] + [a for r in results if "error" not in r
                       for a in (r["onnxruntime"]["measured_speedup"],
                                 r["onednn"]["measured_speedup"])])
    high = max([1.3] + [a for r in results if "error" not in r
                        for a in (r["onnxruntime"]["predicted_speedup"],
                                  r["onednn"]["predicted_speedup"],
                                  r["onnxruntime"]["measured_speedup"],
                                  r["onednn"]["measured_speedup"])])
    ax.plot([low, high], [low, high], "k--", linewidth=0.8, label="measured = predicted")
    ax.axhline(1.0, color="grey", linewidth=0.5)
    ax.set_xlabel("predicted speedup (measured cost model)")
    ax.set_ylabel("measured whole-model speedup")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    return path


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="reduced models, 20 runs")
    parser.add_argument("--models", nargs="+", default=PAPER_MODELS)
    parser.add_argument("--runs", type=int)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--ilp-time-limit", type=float, default=20.0,
                        help="of every optimize (NasRNN, NasNet-A and Inception-v3 reach it)")
    parser.add_argument("--out-dir", type=pathlib.Path)
    parser.add_argument("--baseline", help="an older saturate program: also time the ONNX "
                        "path's optimize (cold and warm) with it, alternating with this build")
    parser.add_argument("--binary", default=os.environ.get(
        "SATURATE_BIN", str(REPO / "build" / "bin" / "saturate")))
    args = parser.parse_args()
    # This 2-core VM is noisy (p10-p90 spans 30 % of a run): many interleaved runs per model.
    args.runs = args.runs or (20 if args.quick else 100)
    if args.out_dir:
        work = args.out_dir / "work"
        json_path, md_path = args.out_dir / "real_models.json", args.out_dir / "REAL_MODELS.md"
        plot_path = args.out_dir / "results" / "real_models.png"
    else:
        work = REPO / "build" / "real_models"
        json_path = REPO / "bench" / "results" / "real_models.json"
        md_path = REPO / "docs" / "REAL_MODELS.md"
        plot_path = REPO / "docs" / "results" / "real_models.png"
    work.mkdir(parents=True, exist_ok=True)
    plot_path.parent.mkdir(parents=True, exist_ok=True)
    (work / "costs.sqlite").unlink(missing_ok=True)  # the first optimize of each model is cold
    results, failed = [], False
    for name in args.models:
        print(f"[real_models] {name} ...", flush=True)
        try:
            r = measure_model(args, name, work)
            for backend in ("onnxruntime", "onednn"):
                b = r[backend]
                print(f"  {backend:12s} predicted {b['predicted_speedup']:.3f}x measured "
                      f"{b['measured_speedup']:.3f}x verified {b['verified']} warm measuring "
                      f"{100 * b['warm_measure_fraction']:.2f} %", flush=True)
                failed = failed or not b["verified"]
        except (RuntimeError, subprocess.TimeoutExpired, ValueError, KeyError) as error:
            print(f"  failed: {error}", flush=True)
            r = {"model": name, "label": LABELS.get(name, name), "error": str(error)}
            failed = True
        results.append(r)
    meta = {"machine": machine(args.binary), "quick": args.quick, "runs": args.runs,
            "threads": args.threads, "ilp_time_limit": args.ilp_time_limit,
            "baseline": args.baseline}
    json_path.parent.mkdir(parents=True, exist_ok=True)
    json_path.write_text(json.dumps({"meta": meta, "results": results}, indent=1) + "\n")
    written_plot = plot(results, plot_path)
    write_report(results, meta, md_path, written_plot)
    print(f"[real_models] wrote {json_path}, {md_path}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
