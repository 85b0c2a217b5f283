#!/usr/bin/env python3
"""Is the latency check's choice stable on a busy machine?

    python3 bench/latency_stability.py                       # the exporter fixtures, 10 runs each
    python3 bench/latency_stability.py --repeats 10 --burners 1 MODEL.onnx ...

For each model, ``saturate optimize MODEL -o OUT --json REPORT`` (its defaults: onnxruntime
costs, the sequential latency check) runs ``--repeats`` times with ``--burners`` processes
spinning on the CPU beside it (a busy machine), one shared cost cache warmed by a first quiet
run, so the only thing that differs between runs is the latency check. Recorded per run: the
verdict, the speedup and its interval, the rounds, which file was written (the original or the
optimized, by the report's ``kept``) and the SHA-256 of the written file. Reported per model:
in how many runs the most frequent file was written (the issue's target: at least 9 of 10), the
verdicts, and the median speedup with the spread of the interval ends.

Results go to ``bench/results/latency_stability/`` (``runs.jsonl`` as they are measured, then
``RESULTS.md``), with the machine's load average before and after.
"""
from __future__ import annotations

import argparse
import collections
import hashlib
import json
import multiprocessing
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile
import time

REPO = pathlib.Path(__file__).resolve().parents[1]
FIXTURES = REPO / "tests" / "fixtures" / "exporters"
DEFAULT_MODELS = ["bert_eager.torchscript.onnx", "distilbert.torchscript.onnx",
                  "gpt2.torchscript.onnx", "llama.torchscript.onnx"]


def burn(stop_at: float) -> None:
    x = 0
    while time.time() < stop_at:
        x = (x * 1103515245 + 12345) % 2147483648


def optimize(binary: str, model: pathlib.Path, out_dir: pathlib.Path, cache: pathlib.Path,
             extra: list[str]) -> dict:
    out, report_path = out_dir / "out.onnx", out_dir / "report.json"
    started = time.monotonic()
    result = subprocess.run([binary, "optimize", str(model), "-o", str(out), "--json",
                             str(report_path), "--cost-cache", str(cache), *extra],
                            capture_output=True, text=True, timeout=1800)
    seconds = time.monotonic() - started
    if result.returncode != 0:
        return {"error": result.stderr.strip().splitlines()[-1:], "seconds": seconds}
    report = json.loads(report_path.read_text())
    check = report.get("latency_check") or {}
    return {"seconds": round(seconds, 2), "kept": check.get("kept", "original"),
            "verdict": check.get("verdict"), "runs": check.get("runs"),
            "speedup": check.get("speedup"), "interval": check.get("speedup_interval"),
            "original_ms": check.get("original_median_ms"),
            "optimized_ms": check.get("optimized_median_ms"),
            "sha256": hashlib.sha256(out.read_bytes()).hexdigest()[:16]}


def summarize(rows: list[dict]) -> str:
    lines = ["# Latency check stability", "",
             "`python3 bench/latency_stability.py` (see its docstring). Each row: one model, "
             "optimized repeatedly with CPU burners beside it.", "",
             "| model | runs | same file | kept (optimized/original) | verdicts | speedup median "
             "(interval ends, min..max) | rounds |", "|---|---|---|---|---|---|---|"]
    by_model = collections.defaultdict(list)
    for row in rows:
        if row.get("phase") == "busy":
            by_model[row["model"]].append(row)
    for model, runs in by_model.items():
        ok = [r for r in runs if "error" not in r]
        files = collections.Counter(r["sha256"] for r in ok)
        same = files.most_common(1)[0][1] if files else 0
        kept = collections.Counter(r["kept"] for r in ok)
        verdicts = collections.Counter(r["verdict"] for r in ok)
        speedups = [r["speedup"] for r in ok if r["speedup"] is not None]
        lows = [r["interval"][0] for r in ok if r["interval"] and r["interval"][0] is not None]
        highs = [r["interval"][1] for r in ok if r["interval"] and r["interval"][1] is not None]
        rounds = [r["runs"] for r in ok if r["runs"] is not None]
        lines.append(
            f"| {model} | {len(runs)} | {same} of {len(ok)} | {kept['optimized']}/"
            f"{kept['original']} | {dict(verdicts)} | "
            f"{statistics.median(speedups):.3f} ({min(lows, default=0):.3f}..{max(lows, default=0):.3f}"
            f" / {min(highs, default=0):.3f}..{max(highs, default=0):.3f}) | "
            f"{min(rounds, default=0)}-{max(rounds, default=0)} |" if speedups else
            f"| {model} | {len(runs)} | {same} of {len(ok)} | - | - | - | - |")
    quiet = [r for r in rows if r.get("phase") == "quiet"]
    if quiet:
        lines += ["", "Quiet reference runs (no burner): " + ", ".join(
            f"{r['model']} {r.get('verdict')} {r.get('speedup') or 0:.3f}x" for r in quiet)]
    return "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("models", nargs="*", help="ONNX files (default: three exporter fixtures)")
    parser.add_argument("--repeats", type=int, default=10)
    parser.add_argument("--burners", type=int, default=1)
    parser.add_argument("--binary", default=str(REPO / "build" / "bin" / "saturate"))
    parser.add_argument("--out", default=str(REPO / "bench" / "results" / "latency_stability"))
    parser.add_argument("--extra", nargs=argparse.REMAINDER, default=[],
                        help="further arguments for saturate optimize")
    args = parser.parse_args()
    models = [pathlib.Path(m) for m in args.models] or [FIXTURES / m for m in DEFAULT_MODELS]
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    log = out / "runs.jsonl"
    rows = []
    with tempfile.TemporaryDirectory() as scratch, log.open("w") as sink:
        def record(row):
            rows.append(row)
            sink.write(json.dumps(row) + "\n")
            sink.flush()
            print(json.dumps(row), file=sys.stderr)

        record({"phase": "machine", "loadavg": os.getloadavg(), "cpus": os.cpu_count()})
        for model in models:
            cache = pathlib.Path(scratch) / f"{model.stem}.sqlite"
            work = pathlib.Path(scratch) / model.stem
            work.mkdir()
            record({"phase": "quiet", "model": model.name,
                    **optimize(args.binary, model, work, cache, args.extra)})
            for repeat in range(args.repeats):
                stop_at = time.time() + 3600
                burners = [multiprocessing.Process(target=burn, args=(stop_at,), daemon=True)
                           for _ in range(args.burners)]
                for b in burners:
                    b.start()
                try:
                    row = optimize(args.binary, model, work, cache, args.extra)
                finally:
                    for b in burners:
                        b.terminate()
                        b.join()
                record({"phase": "busy", "model": model.name, "repeat": repeat, **row})
        record({"phase": "machine", "loadavg": os.getloadavg()})
    (out / "RESULTS.md").write_text(summarize(rows))
    print((out / "RESULTS.md").read_text())
    return 0


if __name__ == "__main__":
    sys.exit(main())
