#!/usr/bin/env python3
"""Wall time of `saturate optimize M.onnx -o O.onnx --verify` (the ONNX path), cold and warm
cost cache, for this build and a baseline build, side by side.

    python3 bench/optimize_path.py --baseline /path/to/old/build/bin/saturate
    python3 bench/optimize_path.py --models distilbert.torchscript gpt2.dynamo --repeats 5

Each repeat runs every binary once with an empty cost cache (cold: every operator timed in ONNX
Runtime) and once with the cache it filled (warm), binaries interleaved, so that machine drift
hits both alike. The Python processes each run starts are counted through a logging
interpreter (SATURATE_PYTHON), and the report's onnx_exports when the build writes it.
Prints a table and writes bench/results/optimize_path.json (or --out).
"""
import argparse
import json
import os
import pathlib
import shutil
import statistics
import subprocess
import tempfile
import time

REPO = pathlib.Path(__file__).resolve().parents[1]
FIXTURES = REPO / "tests" / "fixtures" / "exporters"
DEFAULT_MODELS = ["distilbert.torchscript", "bert_sdpa.torchscript", "gpt2.dynamo",
                  "resnet.torchscript"]


def counting_python(work: pathlib.Path) -> tuple[pathlib.Path, pathlib.Path]:
    log = work / "python-starts.log"
    wrapper = work / "python"
    wrapper.write_text(f'#!/bin/sh\necho "$@" >> "{log}"\nexec python3 "$@"\n')
    wrapper.chmod(0o755)
    return wrapper, log


def optimize_once(binary: str, model: pathlib.Path, cache: pathlib.Path,
                  work: pathlib.Path, extra=()) -> dict:
    """One `optimize MODEL -o OUT --verify` (plus `extra` arguments), timed, in `work`."""
    python, log = counting_python(work)
    log.unlink(missing_ok=True)
    report_path = work / "report.json"
    command = [binary, "optimize", str(model), "-o", str(work / "out.onnx"), "--verify",
               "--cost-cache", str(cache), "--json", str(report_path), *map(str, extra)]
    start = time.perf_counter()
    process = subprocess.run(command, capture_output=True, text=True, timeout=3600,
                             env={**os.environ, "SATURATE_PYTHON": str(python)})
    seconds = time.perf_counter() - start
    if process.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed:\n{process.stderr[-2000:]}")
    report = json.loads(report_path.read_text())
    starts = log.read_text().splitlines() if log.exists() else []
    return {"seconds": seconds, "python_starts": len(starts),
            "onnx_exports": report.get("onnx_exports"), "verified": report.get("verified"),
            "kept_original": report.get("kept_original")}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--binary", default=str(REPO / "build" / "bin" / "saturate"))
    parser.add_argument("--baseline", help="the saturate program to compare with")
    parser.add_argument("--models", nargs="+", default=DEFAULT_MODELS)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--out", type=pathlib.Path,
                        default=REPO / "bench" / "results" / "optimize_path.json")
    args = parser.parse_args()
    binaries = {"this build": args.binary}
    if args.baseline:
        binaries["baseline"] = args.baseline
    results = []
    for name in args.models:
        model = FIXTURES / f"{name}.onnx"
        samples = {label: {"cold": [], "warm": []} for label in binaries}
        facts = {}
        for _ in range(args.repeats):
            for label, binary in binaries.items():
                work = pathlib.Path(tempfile.mkdtemp(prefix="saturate-path-"))
                try:
                    cache = work / "costs.sqlite"
                    cold = optimize_once(binary, model, cache, work)
                    warm = optimize_once(binary, model, cache, work)
                finally:
                    shutil.rmtree(work, ignore_errors=True)
                samples[label]["cold"].append(cold["seconds"])
                samples[label]["warm"].append(warm["seconds"])
                facts[label] = {"cold": cold, "warm": warm}
        for label in binaries:
            row = {"model": name, "binary": label, "path": binaries[label],
                   "cold_median_s": statistics.median(samples[label]["cold"]),
                   "warm_median_s": statistics.median(samples[label]["warm"]),
                   "cold_samples_s": samples[label]["cold"],
                   "warm_samples_s": samples[label]["warm"],
                   "cold_python_starts": facts[label]["cold"]["python_starts"],
                   "warm_python_starts": facts[label]["warm"]["python_starts"],
                   "onnx_exports": facts[label]["warm"]["onnx_exports"],
                   "verified": facts[label]["warm"]["verified"]}
            results.append(row)
            print(f"{name:24s} {label:10s} cold {row['cold_median_s']:6.2f} s "
                  f"warm {row['warm_median_s']:6.2f} s  python starts "
                  f"{row['cold_python_starts']}/{row['warm_python_starts']}  exports "
                  f"{row['onnx_exports']}  verified {row['verified']}", flush=True)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({"repeats": args.repeats, "results": results}, indent=2) + "\n")
    print(f"wrote {args.out}")
    return 0 if all(row["verified"] for row in results) else 1


if __name__ == "__main__":
    raise SystemExit(main())
