"""Saturate on float16 models: every fixture of tests/fixtures/exporters and
tests/fixtures/architectures (TorchScript and dynamo exports), converted to float16 by ONNX
Runtime's own converter (`convert_float_to_float16(model, keep_io_types=True)`, the usual
"export in float32, then convert" flow), optimized as a user would (`saturate optimize FILE -o
OUT --verify`: ONNX Runtime costs, the latency check on), next to the float32 file it came
from, in the same run, one after the other. Reports per file and precision: fused operators,
opaque nodes, verification (policy and error), and the latency check's medians with the model
kept.

    python3 bench/float16_fixtures.py [--out bench/results/float16] [--replot]

Writes results.json, results.md and, when matplotlib is there, latency.png (`--replot` rewrites
the last two from results.json without running anything). The fixtures are
tiny models (hidden 64, 2 layers): the numbers say whether float16 files take the float32 path
(same fusions, verified, never slower), not what a full-size float16 model gains.
"""
from __future__ import annotations

import argparse
import json
import os
import pathlib
import subprocess
import tempfile
import time

import onnx
from onnxruntime.transformers.float16 import convert_float_to_float16

REPO = pathlib.Path(__file__).resolve().parents[1]
FIXTURE_SETS = [REPO / "tests" / "fixtures" / "exporters",
                REPO / "tests" / "fixtures" / "architectures"]


def fixtures() -> list[pathlib.Path]:
    files = []
    for folder in FIXTURE_SETS:
        manifest = json.loads((folder / "manifest.json").read_text())
        files += [folder / entry["file"] for entry in manifest["files"]]
    return files


def run_one(binary: pathlib.Path, source: pathlib.Path, precision: str,
            work: pathlib.Path) -> dict:
    stem = f"{source.stem}.{precision}"
    out, report_path = work / f"{stem}.opt.onnx", work / f"{stem}.json"
    start = time.perf_counter()
    result = subprocess.run(
        [str(binary), "optimize", str(source), "-o", str(out), "--verify", "--json",
         str(report_path), "--cost-cache", str(work / "costs.sqlite")],
        capture_output=True, text=True, timeout=900)
    row = {"file": source.name.replace(".fp16", ""), "precision": precision,
           "optimize_seconds": time.perf_counter() - start}
    if result.returncode != 0:
        return {**row, "error": result.stderr.strip()[-300:]}
    report = json.loads(report_path.read_text())
    latency = report.get("latency_check") or {}
    return {
        **row,
        "fused": report.get("fused_operators") or {},
        "opaque_nodes": report.get("opaque_nodes"),
        "verified": report.get("verified"),
        "verify_policy": report.get("verify_policy"),
        "max_rel_error": report.get("max_relative_error"),
        "original_ms": latency.get("original_median_ms"),
        "optimized_ms": latency.get("optimized_median_ms"),
        "kept": "original" if report.get("kept_original") else "optimized",
    }


def fused_text(fused: dict) -> str:
    return ", ".join(f"{count} {name}" for name, count in sorted(fused.items())) or "-"


def table(rows: list[dict]) -> str:
    lines = ["| file | precision | fused | opaque | verified (policy; max rel err) | "
             "ORT ms original / optimized | kept |", "|---|---|---|---|---|---|---|"]
    for r in rows:
        if "error" in r:
            lines.append(f"| {r['file']} | {r['precision']} | error: {r['error']} ||||| |")
            continue
        latency = ("-" if r["original_ms"] is None else
                   f"{r['original_ms']:.3f} / {r['optimized_ms']:.3f}")
        lines.append(
            f"| {r['file']} | {r['precision']} | {fused_text(r['fused'])} | {r['opaque_nodes']} "
            f"| {r['verified']} ({r['verify_policy']}; {r['max_rel_error']:.2g}) | {latency} | "
            f"{r['kept']} |")
    return "\n".join(lines) + "\n"


def plot(rows: list[dict], path: pathlib.Path) -> bool:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    files = sorted({r["file"] for r in rows})

    def speedup(file, precision):
        for r in rows:
            if r["file"] == file and r["precision"] == precision and r.get("original_ms"):
                return r["original_ms"] / r["optimized_ms"] if r["kept"] == "optimized" else 1.0
        return 0.0

    figure, axes = plt.subplots(figsize=(12, 4.5))
    positions = range(len(files))
    for offset, precision in ((-0.2, "float32"), (0.2, "float16")):
        axes.bar([p + offset for p in positions], [speedup(f, precision) for f in files], 0.4,
                 label=precision)
    axes.axhline(1.0, color="black", linewidth=0.8)
    axes.set_xticks(list(positions), files, rotation=60, ha="right", fontsize=8)
    axes.set_ylabel("latency speedup of the kept model")
    axes.set_title("saturate optimize --verify, float32 files and their float16 conversions")
    axes.legend()
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    return True


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default=str(REPO / "bench" / "results" / "float16"))
    parser.add_argument("--binary", default=os.environ.get(
        "SATURATE_BIN", str(REPO / "build" / "bin" / "saturate")))
    parser.add_argument("--replot", action="store_true",
                        help="rewrite results.md and latency.png from results.json")
    args = parser.parse_args()
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    rows = json.loads((out / "results.json").read_text()) if args.replot else []
    with tempfile.TemporaryDirectory() as tmp:
        work = pathlib.Path(tmp)
        for source in [] if args.replot else fixtures():
            half = work / source.name.replace(".onnx", ".fp16.onnx")
            onnx.save(convert_float_to_float16(onnx.load(str(source)), keep_io_types=True),
                      str(half))
            for precision, path in (("float32", source), ("float16", half)):
                row = run_one(pathlib.Path(args.binary), path, precision, work)
                print(json.dumps(row), flush=True)
                rows.append(row)
                (out / "results.json").write_text(json.dumps(rows, indent=1) + "\n")
    pairs = {}
    for r in rows:
        pairs.setdefault(r["file"], {})[r["precision"]] = r
    same = sum(1 for p in pairs.values() if "error" not in p["float32"] and
               "error" not in p["float16"] and p["float32"]["fused"] == p["float16"]["fused"])
    failed = [r for r in rows if "error" in r or r.get("verified") is not True]
    slower = [r for r in rows if r.get("original_ms") and r["kept"] == "optimized"
              and r["optimized_ms"] > r["original_ms"]]
    text = ("# Saturate on float16 models (fixtures converted by ONNX Runtime's converter)\n\n"
            "`python3 bench/float16_fixtures.py`: each fixture in float32, then its float16 "
            "conversion (`keep_io_types=True`), `saturate optimize --verify` with ONNX Runtime "
            "costs and the latency check (cost cache shared within the run).\n\n" + table(rows))
    text += (f"\n{len(pairs)} files: {same} fuse the same operators in float16 as in float32; "
             f"{len(failed)} runs failed or were not verified; {len(slower)} kept a model "
             "slower than the original (medians).\n")
    if plot(rows, out / "latency.png"):
        text += "\n![latency speedup](latency.png)\n"
    (out / "results.md").write_text(text)
    print(text)
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
