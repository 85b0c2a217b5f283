#!/usr/bin/env python3
"""Does the load probe keep costs timed on a busy machine out of the cost cache?

    python3 bench/busy_costs.py                        # 5 rounds, 0 / 1 / 2 burners
    python3 bench/busy_costs.py --rounds 10 --model squeezenet

Each round runs ``saturate optimize MODEL --cost onednn`` once per burner count (processes
spinning on the CPU beside it; the counts interleaved within a round), each with an empty cost
cache, and records the report's ``cost_load_ratio`` (the calibration kernel's slowest time over
its quiet time), ``cost_measured_busy`` of ``cost_measured`` (timed busy: not cached), the rows
the cache holds afterwards, and the predicted speedup, which shows what busy timings would have
done to every later run had they been cached. With no burner nothing should be held back; with
burners on all cores everything should be.

Results go to ``bench/results/busy_costs/`` (``runs.jsonl`` as measured, then ``RESULTS.md``).
"""
from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import pathlib
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time

REPO = pathlib.Path(__file__).resolve().parents[1]


def burn(stop_at: float) -> None:
    while time.time() < stop_at:
        pass


def run_once(binary: str, model: str, burners: int, workdir: pathlib.Path) -> dict:
    cache = workdir / f"costs-{burners}-{time.time_ns()}.sqlite"
    report_path = workdir / "report.json"
    processes = [multiprocessing.Process(target=burn, args=(time.time() + 600,))
                 for _ in range(burners)]
    for process in processes:
        process.start()
    time.sleep(0.5 if burners else 0)  # the burners running before the first timing
    try:
        result = subprocess.run([binary, "optimize", model, "--reduced", "--extract", "greedy",
                                 "--cost", "onednn", "--cost-cache", str(cache),
                                 "--json", str(report_path)],
                                capture_output=True, text=True, timeout=600)
    finally:
        for process in processes:
            process.terminate()
            process.join()
    if result.returncode != 0:
        raise SystemExit(f"optimize failed: {result.stderr}")
    report = json.loads(report_path.read_text())
    with sqlite3.connect(cache) as db:
        cached = db.execute("SELECT COUNT(*) FROM op_costs").fetchone()[0]
    return {"burners": burners, "load_ratio": report["cost_load_ratio"],
            "measured": report["cost_measured"], "measured_busy": report["cost_measured_busy"],
            "cached": cached, "speedup_percent": report["speedup_percent"],
            "loadavg": os.getloadavg()[0]}


def write_summary(runs: list[dict], out_dir: pathlib.Path, command: str) -> None:
    lines = ["# Costs timed on a busy machine", "", f"`{command}`", "",
             f"{os.cpu_count()} CPUs. Per burner count, over the rounds: the calibration "
             "kernel's load ratio (median, min-max), configurations timed and held back as "
             "busy, rows cached, and the predicted speedup of the optimized graph (min-max).", "",
             "| burners | runs | load ratio median (min-max) | timed | held back (busy) | "
             "cached | predicted speedup % (min-max) |",
             "|---|---|---|---|---|---|---|"]
    for burners in sorted({run["burners"] for run in runs}):
        rows = [run for run in runs if run["burners"] == burners]
        ratios = [run["load_ratio"] for run in rows]
        speedups = [run["speedup_percent"] for run in rows]
        lines.append(
            f"| {burners} | {len(rows)} | {statistics.median(ratios):.2f} "
            f"({min(ratios):.2f}-{max(ratios):.2f}) | {sum(r['measured'] for r in rows)} | "
            f"{sum(r['measured_busy'] for r in rows)} | {sum(r['cached'] for r in rows)} | "
            f"{min(speedups):.1f}-{max(speedups):.1f} |")
    (out_dir / "RESULTS.md").write_text("\n".join(lines) + "\n")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--burners", type=int, nargs="+", default=[0, 1, os.cpu_count() or 2])
    parser.add_argument("--model", default="nasrnn")
    parser.add_argument("--saturate", default=str(REPO / "build" / "bin" / "saturate"))
    parser.add_argument("--out-dir", default=str(REPO / "bench" / "results" / "busy_costs"))
    args = parser.parse_args()
    out_dir = pathlib.Path(args.out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    log = out_dir / "runs.jsonl"
    log.write_text("")
    runs = []
    with tempfile.TemporaryDirectory() as workdir:
        for round_index in range(args.rounds):
            for burners in args.burners:
                run = run_once(args.saturate, args.model, burners, pathlib.Path(workdir))
                run["round"] = round_index
                runs.append(run)
                with log.open("a") as out:
                    out.write(json.dumps(run) + "\n")
                print(json.dumps(run), flush=True)
    command = "python3 bench/busy_costs.py " + " ".join(sys.argv[1:])
    write_summary(runs, out_dir, command.strip())
    print((out_dir / "RESULTS.md").read_text())
    return 0


if __name__ == "__main__":
    sys.exit(main())
