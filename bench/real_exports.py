#!/usr/bin/env python3
"""Saturate on real exporter output: every .onnx file in a folder, optimized and timed.

    python3 bench/real_exports.py                          # /work/full-models, threads 1 and 2
    python3 bench/real_exports.py --models-dir DIR --threads 1 2 --runs 20

The models are meant to be the full-size exports of
``tests/fixtures/exporters/export_models.py --full --out-dir /work/full-models``
(BERT-base, GPT-2 small, ViT-B/16, ResNet-50, MobileNetV3-large, each from the
TorchScript and the dynamo exporter), but any folder of .onnx files works.

For each file:
  1. ``saturate show FILE --json`` once: import time (wall time of the command),
     ``folded_nodes``, ``opaque_op_types``, ``ops``;
  2. for each thread count T: ``saturate optimize FILE -o OUT --verify --threads T
     --json REPORT --cost-cache CACHE`` in its own run folder with a fresh (cold) cost
     cache, timed (wall time of the command); the report's op counts, verification,
     latency check and phase times are kept;
  3. independently of Saturate's own latency check, the original and the written model
     are timed side by side in ONNX Runtime (CPU, ORT_ENABLE_ALL, intra_op_num_threads=T,
     inter_op_num_threads=1) on the same random feeds: 3 warm-up runs each, then N
     interleaved ABBA rounds (2N runs each); median and p10/p90 of each, and the ratio
     original/optimized (> 1: the written model is faster).

A failing optimize is recorded (error text) and the next run goes on.

Writes bench/results/real_exports.json (every raw number), bench/results/real_exports.md
and, when matplotlib imports, bench/results/real_exports.png (under --out-dir).
Optimized models, reports, cost caches and logs go to --work-dir (default: the models
folder's name with "-optimized" appended, next to it).
"""
from __future__ import annotations

import argparse
import json
import os
import pathlib
import platform
import shlex
import subprocess
import sys
import time

import numpy as np

REPO = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "python"))

from saturate import onnx_check, ort_session  # noqa: E402

REPORT_FIELDS = ["original_ops", "optimized_ops", "opaque_nodes", "folded_nodes", "verified",
                 "max_relative_error", "max_abs_error", "kept_original", "latency_check",
                 "explore_seconds", "extract_seconds", "cost_measure_seconds",
                 "original_cost", "optimized_cost", "stop_reason", "iterations",
                 "egraph_nodes", "extraction_status", "cost_measured", "cost_cache_hits",
                 "cost_fallbacks", "outputs_finite"]
SHOW_FIELDS = ["folded_nodes", "opaque_op_types", "ops", "nodes", "folded_operators",
               "op_histogram", "parameters", "weights"]


def log(message):
    print(f"[{time.strftime('%H:%M:%S')}] {message}", flush=True)


def timed(cmd, timeout, cwd=None):
    """Runs cmd; returns (returncode or None on timeout, stdout, stderr, wall seconds)."""
    start = time.perf_counter()
    try:
        p = subprocess.run([str(c) for c in cmd], capture_output=True, text=True,
                           timeout=timeout, cwd=cwd)
        return p.returncode, p.stdout, p.stderr, time.perf_counter() - start
    except subprocess.TimeoutExpired as e:
        out = e.stdout.decode(errors="replace") if isinstance(e.stdout, bytes) else (e.stdout or "")
        err = e.stderr.decode(errors="replace") if isinstance(e.stderr, bytes) else (e.stderr or "")
        return None, out, err + f"\ntimed out after {timeout} s", time.perf_counter() - start


def error_text(returncode, stdout, stderr, limit=4000):
    text = (stderr.strip() or stdout.strip())
    status = "timeout" if returncode is None else f"exit status {returncode}"
    return f"{status}: {text[-limit:]}"


def host_info():
    """The machine and the checkout: platform, CPU model and count, memory, commit, dirty."""
    info = {"platform": platform.platform(), "python": platform.python_version(),
            "cpus": os.cpu_count()}
    try:
        for line in pathlib.Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                info["cpu"] = line.split(":", 1)[1].strip()
                break
        for line in pathlib.Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                info["memory_gib"] = round(int(line.split()[1]) / 1024 / 1024, 1)
    except OSError:
        pass
    git = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO,
                         capture_output=True, text=True)
    info["commit"] = git.stdout.strip() or None
    dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=REPO,
                           capture_output=True, text=True)
    info["dirty"] = bool(dirty.stdout.strip())
    return info


def machine(binary):
    info = host_info()
    try:
        import onnxruntime as ort
        info["onnxruntime"] = ort.__version__
    except Exception:  # noqa: BLE001
        pass
    info["numpy"] = np.__version__
    version = subprocess.run([str(binary), "--version"], capture_output=True, text=True)
    info["saturate"] = version.stdout.strip() or None
    return info


# --------------------------------------------------------------------------
# saturate show / optimize
# --------------------------------------------------------------------------

def show(args, path):
    rc, out, err, seconds = timed([args.binary, "show", path, "--json"], args.timeout)
    entry = {"command": shlex.join(map(str, [args.binary, "show", path, "--json"])),
             "import_seconds": seconds, "returncode": rc}
    if rc != 0:
        entry["error"] = error_text(rc, out, err)
        return entry
    try:
        data = json.loads(out)
    except json.JSONDecodeError as e:
        entry["error"] = f"show --json printed no JSON ({e}): {out[:2000]}"
        return entry
    for key in SHOW_FIELDS:
        entry[key] = data.get(key)
    return entry


def optimize(args, path, threads, run_dir):
    run_dir.mkdir(parents=True, exist_ok=True)
    out = run_dir / f"{path.stem}.optimized.onnx"
    report = run_dir / "report.json"
    cache = run_dir / "costs.sqlite"
    for stale in (out, report, cache, pathlib.Path(str(cache) + "-journal"),
                  pathlib.Path(str(cache) + "-wal"), pathlib.Path(str(cache) + "-shm")):
        if stale.exists():
            stale.unlink()  # a cold cost cache for every run
    cmd = [args.binary, "optimize", path, "-o", out, "--verify", "--threads", threads,
           "--json", report, "--cost-cache", cache] + args.optimize_args
    rc, stdout, stderr, seconds = timed(cmd, args.timeout)
    (run_dir / "stdout.txt").write_text(stdout)
    (run_dir / "stderr.txt").write_text(stderr)
    entry = {"threads": threads, "command": shlex.join(map(str, cmd)),
             "optimize_seconds": seconds, "returncode": rc, "output": str(out),
             "report": str(report)}
    if report.exists():
        try:
            data = json.loads(report.read_text())
            for key in REPORT_FIELDS:
                entry[key] = data.get(key)
        except json.JSONDecodeError as e:
            entry["report_error"] = str(e)
    if rc != 0:
        entry["error"] = error_text(rc, stdout, stderr)
    elif not out.exists():
        entry["error"] = f"exit status 0 but {out} was not written"
    if out.exists():
        entry["output_bytes"] = out.stat().st_size
    return entry


# --------------------------------------------------------------------------
# ONNX Runtime, side by side
# --------------------------------------------------------------------------

def session(path, threads, optimized_path=None):
    """A CPU session as deployed (ORT_ENABLE_ALL, sequential); `optimized_path` saves the graph
    ONNX Runtime runs after its own session-time rewrites."""
    import onnxruntime as ort

    so = ort.SessionOptions()
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    so.intra_op_num_threads = threads
    so.inter_op_num_threads = 1
    so.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    so.log_severity_level = 3
    # The sessions are timed in turn: idle pools must not spin on the cores of the one timed.
    ort_session.no_spinning(so)
    if optimized_path is not None:
        so.optimized_model_filepath = str(optimized_path)
    return ort.InferenceSession(str(path), so, providers=["CPUExecutionProvider"])


def summary(samples):
    a = np.asarray(samples)
    return {"median_ms": float(np.median(a)), "p10_ms": float(np.percentile(a, 10)),
            "p90_ms": float(np.percentile(a, 90)), "min_ms": float(a.min()),
            "max_ms": float(a.max()), "n": int(a.size)}


def ort_compare(args, original, written, threads):
    a, b = session(original, threads), session(written, threads)
    names_a = sorted(i.name for i in a.get_inputs())
    names_b = sorted(i.name for i in b.get_inputs())
    if names_a != names_b:
        raise ValueError(f"the models take different inputs: {names_a} and {names_b}")
    rng = np.random.default_rng(args.seed)
    feeds = onnx_check.random_feeds(a, rng, str(original))

    def once(sess):
        start = time.perf_counter()
        outs = sess.run(None, feeds)
        return (time.perf_counter() - start) * 1e3, outs

    first_a = first_b = None
    for _ in range(args.warmup):
        _, first_a = once(a)
        _, first_b = once(b)
    times = {"original": [], "written": []}
    for _ in range(args.runs):  # ABBA
        for which, sess in (("original", a), ("written", b), ("written", b),
                            ("original", a)):
            times[which].append(once(sess)[0])
    result = {"threads": threads, "warmup": args.warmup, "rounds": args.runs,
              "feeds": {k: {"dtype": str(v.dtype), "shape": list(v.shape)}
                        for k, v in feeds.items()},
              "original": summary(times["original"]), "written": summary(times["written"]),
              "original_samples_ms": times["original"], "written_samples_ms": times["written"]}
    result["ratio"] = result["original"]["median_ms"] / result["written"]["median_ms"]
    if first_a is not None and len(first_a) == len(first_b):
        diffs = [float(np.max(np.abs(x.astype(np.float64) - y.astype(np.float64))))
                 if x.size and x.shape == y.shape else (0.0 if x.shape == y.shape else None)
                 for x, y in zip(first_a, first_b)]
        result["outputs_max_abs_diff"] = None if None in diffs else max(diffs, default=0.0)
    return result


# --------------------------------------------------------------------------
# Report
# --------------------------------------------------------------------------

def fmt(value, spec, missing="-"):
    return missing if value is None else format(value, spec)


def markdown(results):
    m = results["machine"]
    lines = [
        "# Saturate on real exporter output",
        "",
        f"Models from `{results['models_dir']}`; generated by `bench/real_exports.py` "
        f"on {results['date']}.",
        f"Machine: {m.get('cpu', '?')}, {m.get('cpus')} CPUs, {m.get('memory_gib')} GiB; "
        f"ONNX Runtime {m.get('onnxruntime')}; commit {m.get('commit')}"
        f"{' (dirty tree)' if m.get('dirty') else ''}.",
        "",
        "Import s: wall time of `saturate show FILE --json`. Optimize s: wall time of "
        "`saturate optimize FILE -o OUT --verify --threads T --json REPORT --cost-cache CACHE` "
        "with a cold cost cache. ORT ms: this script's own timing in ONNX Runtime "
        f"(ORT_ENABLE_ALL, intra-op threads T, inter-op 1; {results['warmup']} warm-up runs, "
        f"then {results['runs']} ABBA rounds, i.e. {2 * results['runs']} runs each): "
        "median [p10-p90]. Ratio: original / written median (> 1: the written model is "
        "faster). Kept: Saturate's own latency check (`latency_check.kept`).",
        "",
        "| model file | T | import s | folded nodes | ops before -> after | opaque nodes | "
        "optimize s | verified (max rel err) | ORT ms original | ORT ms written | ratio | kept |",
        "|---|--:|--:|--:|--:|--:|--:|---|--:|--:|--:|---|",
    ]
    errors = []
    for model in results["models"]:
        sh = model["show"]
        for run in model["runs"]:
            lc = run.get("latency_check") or {}
            ort_r = run.get("ort") or {}
            o, w = ort_r.get("original"), ort_r.get("written")
            verified = run.get("verified")
            ver = "-" if verified is None else (
                f"{'yes' if verified else 'NO'} ({fmt(run.get('max_relative_error'), '.1e')})")
            kept = lc.get("kept")
            if kept is None and run.get("kept_original") is not None:
                kept = "original" if run["kept_original"] else "optimized"
            if run.get("error"):
                kept = "FAILED"
                errors.append((model["file"], run["threads"], run["error"]))
            elif run.get("ort_error"):
                errors.append((model["file"], run["threads"], "ORT timing: " + run["ort_error"]))
            before, after = run.get("original_ops"), run.get("optimized_ops")
            ops = f"{fmt(before, 'd')} -> {fmt(after, 'd')}"
            lines.append(
                f"| {model['file']} | {run['threads']} | {fmt(sh.get('import_seconds'), '.2f')} | "
                f"{fmt(sh.get('folded_nodes'), 'd')} | {ops} | "
                f"{fmt(run.get('opaque_nodes'), 'd')} | {fmt(run.get('optimize_seconds'), '.1f')} | "
                f"{ver} | "
                + (f"{o['median_ms']:.2f} [{o['p10_ms']:.2f}-{o['p90_ms']:.2f}]" if o else "-")
                + " | "
                + (f"{w['median_ms']:.2f} [{w['p10_ms']:.2f}-{w['p90_ms']:.2f}]" if w else "-")
                + f" | {fmt(ort_r.get('ratio'), '.3f')} | {kept or '-'} |")
    lines += ["", "## Saturate's own latency check and phase times", "",
              "| model file | T | latency check original ms | optimized ms | explore s | "
              "extract s | cost measure s |",
              "|---|--:|--:|--:|--:|--:|--:|"]
    for model in results["models"]:
        for run in model["runs"]:
            lc = run.get("latency_check") or {}
            lines.append(
                f"| {model['file']} | {run['threads']} | "
                f"{fmt(lc.get('original_median_ms'), '.2f')} | "
                f"{fmt(lc.get('optimized_median_ms'), '.2f')} | "
                f"{fmt(run.get('explore_seconds'), '.2f')} | "
                f"{fmt(run.get('extract_seconds'), '.2f')} | "
                f"{fmt(run.get('cost_measure_seconds'), '.1f')} |")
    lines += ["", "## Opaque operator types at import (`saturate show`)", ""]
    for model in results["models"]:
        sh = model["show"]
        if sh.get("error"):
            lines.append(f"- {model['file']}: show failed: `{sh['error'].splitlines()[0][:300]}`")
            continue
        kinds = sh.get("opaque_op_types") or {}
        text = ", ".join(f"{k} x{v}" for k, v in sorted(kinds.items())) or "none"
        lines.append(f"- {model['file']}: {fmt(sh.get('ops'), 'd')} ops; opaque: {text}")
    if errors:
        lines += ["", "## Errors", ""]
        for file, threads, err in errors:
            first = " ".join(err.split())[:600]
            lines.append(f"- {file}, T={threads}: `{first}`")
    return "\n".join(lines) + "\n"


def plot(results, path):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except Exception as e:  # noqa: BLE001
        log(f"matplotlib not available ({type(e).__name__}); no plot")
        return False
    files = [m["file"] for m in results["models"]]
    threads = results["threads"]
    width = 0.8 / max(len(threads), 1)
    fig, ax = plt.subplots(figsize=(max(6, 1.1 * len(files) + 2), 4.5))
    x = np.arange(len(files))
    for i, t in enumerate(threads):
        ratios = []
        for m in results["models"]:
            run = next((r for r in m["runs"] if r["threads"] == t), None)
            ratios.append(((run or {}).get("ort") or {}).get("ratio") or np.nan)
        ax.bar(x + (i - (len(threads) - 1) / 2) * width, ratios, width, label=f"{t} thread(s)")
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.set_xticks(x)
    ax.set_xticklabels([f.removesuffix(".onnx") for f in files], rotation=30, ha="right")
    ax.set_ylabel("ORT median original / written")
    ax.set_title("Saturate on real exports: ONNX Runtime speedup")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return True


def write_outputs(args, results):
    args.out_dir.mkdir(parents=True, exist_ok=True)
    (args.out_dir / "real_exports.json").write_text(json.dumps(results, indent=2) + "\n")
    (args.out_dir / "real_exports.md").write_text(markdown(results))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--models-dir", type=pathlib.Path, default=pathlib.Path("/work/full-models"))
    ap.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--runs", type=int, default=20, help="ABBA rounds in ONNX Runtime")
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--seed", type=int, default=0, help="seed of the random feeds")
    ap.add_argument("--binary", type=pathlib.Path, default=REPO / "build" / "bin" / "saturate")
    ap.add_argument("--out-dir", type=pathlib.Path, default=REPO / "bench" / "results")
    ap.add_argument("--work-dir", type=pathlib.Path, default=None,
                    help="optimized models, reports, cost caches (default: MODELS_DIR-optimized)")
    ap.add_argument("--timeout", type=float, default=4 * 3600,
                    help="seconds per saturate command")
    ap.add_argument("--only", nargs="+", default=None,
                    help="only files whose name contains one of these strings")
    ap.add_argument("--optimize-args", default="",
                    help="extra arguments for saturate optimize (one shell-quoted string)")
    args = ap.parse_args()
    args.optimize_args = shlex.split(args.optimize_args)
    models_dir = args.models_dir.resolve()
    work = (args.work_dir or models_dir.with_name(models_dir.name + "-optimized")).resolve()
    files = sorted(models_dir.glob("*.onnx"))
    if args.only:
        files = [f for f in files if any(s in f.name for s in args.only)]
    if not files:
        ap.error(f"no .onnx files in {models_dir}")
    if not args.binary.exists():
        ap.error(f"{args.binary} does not exist")
    log(f"{len(files)} models from {models_dir}; threads {args.threads}; runs {args.runs}; "
        f"work dir {work}")
    started = time.perf_counter()
    results = {"generator": "bench/real_exports.py", "date": time.strftime("%Y-%m-%d %H:%M:%S"),
               "models_dir": str(models_dir), "work_dir": str(work), "threads": args.threads,
               "runs": args.runs, "warmup": args.warmup, "seed": args.seed,
               "optimize_args": args.optimize_args, "machine": machine(args.binary),
               "models": []}
    for n, path in enumerate(files, 1):
        model = {"file": path.name, "path": str(path), "bytes": path.stat().st_size, "runs": []}
        results["models"].append(model)
        log(f"({n}/{len(files)}) {path.name} ({path.stat().st_size / 1e6:.1f} MB): show")
        model["show"] = show(args, path)
        sh = model["show"]
        if sh.get("error"):
            log(f"  show FAILED: {sh['error'].splitlines()[0][:300]}")
        else:
            log(f"  import {sh['import_seconds']:.2f} s, {sh.get('ops')} ops, "
                f"{sh.get('folded_nodes')} folded, opaque {sh.get('opaque_op_types')}")
        for threads in args.threads:
            run_dir = work / path.stem / f"t{threads}"
            log(f"  T={threads}: optimize -> {run_dir}")
            run = optimize(args, path, threads, run_dir)
            model["runs"].append(run)
            if run.get("error"):
                log(f"  T={threads}: optimize FAILED after {run['optimize_seconds']:.1f} s: "
                    f"{' '.join(run['error'].split())[:300]}")
                write_outputs(args, results)
                continue
            lc = run.get("latency_check") or {}
            log(f"  T={threads}: optimize {run['optimize_seconds']:.1f} s, ops "
                f"{run.get('original_ops')} -> {run.get('optimized_ops')}, verified "
                f"{run.get('verified')} (max rel {fmt(run.get('max_relative_error'), '.1e')}), "
                f"kept {lc.get('kept')}")
            try:
                run["ort"] = ort_compare(args, path, pathlib.Path(run["output"]), threads)
                o, w = run["ort"]["original"], run["ort"]["written"]
                log(f"  T={threads}: ORT original {o['median_ms']:.2f} ms "
                    f"[{o['p10_ms']:.2f}-{o['p90_ms']:.2f}], written {w['median_ms']:.2f} ms "
                    f"[{w['p10_ms']:.2f}-{w['p90_ms']:.2f}], ratio {run['ort']['ratio']:.3f}")
            except Exception as e:  # noqa: BLE001
                run["ort_error"] = f"{type(e).__name__}: {e}"
                log(f"  T={threads}: ORT timing FAILED: {run['ort_error'][:300]}")
            write_outputs(args, results)
    results["total_seconds"] = time.perf_counter() - started
    write_outputs(args, results)
    if plot(results, args.out_dir / "real_exports.png"):
        log(f"wrote {args.out_dir / 'real_exports.png'}")
    failed = sum(1 for m in results["models"] for r in m["runs"] if r.get("error"))
    log(f"done in {results['total_seconds']:.0f} s; {failed} failed optimize runs; wrote "
        f"{args.out_dir / 'real_exports.json'} and {args.out_dir / 'real_exports.md'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
