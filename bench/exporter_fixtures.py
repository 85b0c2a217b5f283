"""Saturate on ONNX files written by PyTorch's exporters: the small fixture models of
tests/fixtures/exporters (TorchScript and dynamo exports of BERT, DistilBERT, GPT-2, a
Llama-style decoder, ViT, ResNet, MobileNetV3 and ShuffleNet), each optimized as a user would
(`saturate optimize FILE -o OUT --verify`, ONNX Runtime costs, the latency check on) at 1 and
2 threads. Reports per file: import folding, operators before and after, opaque nodes, optimize
time, verification, and ONNX Runtime latency of original and kept model (the check's medians,
20 interleaved runs each).

    python3 bench/exporter_fixtures.py [--threads 1 2] [--out bench/results/exporter_fixtures.md]

These are tiny models (hidden 64, 2 layers): the numbers say that the path works on real
exporter output and that the latency check never keeps a slower model, not what full-size models
gain (that benchmark is not done yet; README status).
"""
from __future__ import annotations

import argparse
import json
import os
import pathlib
import subprocess
import tempfile
import time

REPO = pathlib.Path(__file__).resolve().parents[1]
FIXTURES = REPO / "tests" / "fixtures" / "exporters"


def run_one(binary: pathlib.Path, source: pathlib.Path, threads: int, work: pathlib.Path,
            cache: pathlib.Path) -> dict:
    out = work / (source.stem + f".t{threads}.opt.onnx")
    report_path = work / (source.stem + f".t{threads}.json")
    start = time.perf_counter()
    result = subprocess.run(
        [str(binary), "optimize", str(source), "-o", str(out), "--verify", "--threads",
         str(threads), "--json", str(report_path), "--cost-cache", str(cache)],
        capture_output=True, text=True, timeout=900)
    seconds = time.perf_counter() - start
    if result.returncode != 0:
        return {"file": source.name, "threads": threads, "error": result.stderr.strip()[-300:]}
    report = json.loads(report_path.read_text())
    latency = report.get("latency_check") or {}
    return {
        "file": source.name,
        "threads": threads,
        "folded_nodes": report.get("folded_nodes"),
        "ops_before": report["original_ops"],
        "ops_after": report["optimized_ops"],
        "opaque_nodes": report["opaque_nodes"],
        "optimize_seconds": seconds,
        "verified": report.get("verified"),
        "max_rel_error": report.get("max_relative_error"),
        "original_ms": latency.get("original_median_ms"),
        "optimized_ms": latency.get("optimized_median_ms"),
        "kept": "original" if report.get("kept_original") else "optimized",
    }


def table(rows: list[dict]) -> str:
    lines = ["| file | threads | folded | ops before -> after | opaque | optimize s | verified "
             "(max rel err) | ORT ms original / optimized | kept |",
             "|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        if "error" in r:
            lines.append(f"| {r['file']} | {r['threads']} | error: {r['error']} ||||||| |")
            continue
        latency = ("-" if r["original_ms"] is None else
                   f"{r['original_ms']:.3f} / {r['optimized_ms']:.3f}")
        lines.append(
            f"| {r['file']} | {r['threads']} | {r['folded_nodes']} | {r['ops_before']} -> "
            f"{r['ops_after']} | {r['opaque_nodes']} | {r['optimize_seconds']:.1f} | "
            f"{r['verified']} ({r['max_rel_error']:.2g}) | {latency} | {r['kept']} |")
    return "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--out", default=str(REPO / "bench" / "results" / "exporter_fixtures.md"))
    parser.add_argument("--binary", default=os.environ.get("SATURATE_BIN",
                                                           str(REPO / "build" / "bin" / "saturate")))
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        work = pathlib.Path(tmp)
        cache = work / "costs.sqlite"  # cold: every operator configuration is measured
        for source in sorted(FIXTURES.glob("*.onnx")):
            for threads in args.threads:
                row = run_one(pathlib.Path(args.binary), source, threads, work, cache)
                print(json.dumps(row), flush=True)
                rows.append(row)
    text = ("# Saturate on PyTorch exporter output (tests/fixtures/exporters)\n\n"
            "`python3 bench/exporter_fixtures.py` (cold cost cache per run).\n\n" + table(rows))
    slower = [r for r in rows if r.get("original_ms") and r["kept"] == "optimized"
              and r["optimized_ms"] > r["original_ms"]]
    failed = [r for r in rows if "error" in r or r.get("verified") is not True]
    text += (f"\n{len(rows)} runs, {len(failed)} failed or unverified, "
             f"{len(slower)} kept a model slower than the original.\n")
    pathlib.Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    pathlib.Path(args.out).write_text(text)
    print(text)
    return 1 if failed or slower else 0


if __name__ == "__main__":
    raise SystemExit(main())
