"""Peak memory of `saturate optimize` on a model past protobuf's 2 GB (issue 14, target 5):
a generated chain of MatMul + Relu layers whose weights (default 12 x 8192 x 8192 float32,
3.2 GB) live in external data (model.onnx + model.onnx.data, written tensor by tensor so the
generator itself stays small). Saturate reads the external data, optimizes, and writes the
output with external data again; /usr/bin/time measures its peak resident memory, which must
stay under 1.5 x the weights plus 1 GiB.

    python3 bench/large_model_memory.py [--layers 12] [--width 8192] [--work-dir DIR] [--verify]

`--verify` also runs both models in ONNX Runtime (a child process that loads both copies of
the weights: its memory is not Saturate's and is not counted).
"""
from __future__ import annotations

import argparse
import json
import os
import pathlib
import re
import shutil
import subprocess
import tempfile
import time

import numpy as np
import onnx
from onnx import TensorProto, helper

REPO = pathlib.Path(__file__).resolve().parents[1]


def generate(folder: pathlib.Path, layers: int, width: int) -> int:
    """Writes folder/model.onnx + model.onnx.data; returns the weights' bytes."""
    rng = np.random.default_rng(0)
    data_path = folder / "model.onnx.data"
    initializers, nodes = [], []
    offset = 0
    with open(data_path, "wb") as data:
        for k in range(layers):
            weight = (rng.standard_normal((width, width), dtype=np.float32)
                      / np.float32(np.sqrt(width)))
            raw = weight.tobytes()
            data.write(raw)
            tensor = TensorProto(name=f"w{k}", data_type=TensorProto.FLOAT, dims=[width, width])
            tensor.data_location = TensorProto.EXTERNAL
            for key, value in (("location", data_path.name), ("offset", str(offset)),
                               ("length", str(len(raw)))):
                entry = tensor.external_data.add()
                entry.key, entry.value = key, value
            offset += len(raw)
            initializers.append(tensor)
            previous = "x" if k == 0 else f"h{k - 1}"
            nodes.append(helper.make_node("MatMul", [previous, f"w{k}"], [f"m{k}"]))
            nodes.append(helper.make_node("Relu", [f"m{k}"], [f"h{k}"]))
    graph = helper.make_graph(nodes, "large", [helper.make_tensor_value_info(
        "x", TensorProto.FLOAT, [1, width])], [helper.make_tensor_value_info(
            f"h{layers - 1}", TensorProto.FLOAT, [1, width])], initializers)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    (folder / "model.onnx").write_bytes(model.SerializeToString())
    return offset


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--layers", type=int, default=12)
    parser.add_argument("--width", type=int, default=8192)
    parser.add_argument("--work-dir", default=None)
    parser.add_argument("--verify", action="store_true")
    parser.add_argument("--binary", default=os.environ.get(
        "SATURATE_BIN", str(REPO / "build" / "bin" / "saturate")))
    parser.add_argument("--out", default=str(REPO / "bench" / "results" / "large_model_memory.md"))
    args = parser.parse_args()
    work = pathlib.Path(args.work_dir or tempfile.mkdtemp(prefix="saturate-large-"))
    work.mkdir(parents=True, exist_ok=True)
    try:
        start = time.perf_counter()
        weight_bytes = generate(work, args.layers, args.width)
        print(f"generated {weight_bytes / 2**30:.2f} GiB of weights in "
              f"{time.perf_counter() - start:.1f} s", flush=True)
        command = [args.binary, "optimize", str(work / "model.onnx"), "-o", str(work / "out.onnx"),
                   "--cost", "analytic", "--json", str(work / "report.json")]
        if args.verify:
            command.append("--verify")
        start = time.perf_counter()
        result = subprocess.run(["/usr/bin/time", "-v", *command], capture_output=True, text=True)
        seconds = time.perf_counter() - start
        if result.returncode != 0:
            print(result.stderr[-2000:])
            return 1
        peak_kib = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)",
                                 result.stderr).group(1))
        report = json.loads((work / "report.json").read_text())
        out_data = work / "out.onnx.data"
        peak = peak_kib * 1024
        target = 1.5 * weight_bytes + 2**30
        row = {
            "weights_gib": weight_bytes / 2**30,
            "peak_rss_gib": peak / 2**30,
            "peak_over_weights": peak / weight_bytes,
            "target_gib": target / 2**30,
            "met": peak <= target,
            "optimize_seconds": seconds,
            "output_data_gib": out_data.stat().st_size / 2**30 if out_data.exists() else None,
            "verified": report.get("verified"),
            "ops": [report["original_ops"], report["optimized_ops"]],
        }
        print(json.dumps(row), flush=True)
        text = ("# Peak memory on a model past 2 GB\n\n"
                f"`python3 bench/large_model_memory.py --layers {args.layers} --width "
                f"{args.width}{' --verify' if args.verify else ''}`: {args.layers} MatMul + Relu "
                f"layers, weights in model.onnx.data.\n\n"
                "| weights GiB | saturate peak RSS GiB | peak / weights | target (1.5 x + 1 GiB) "
                "| met | optimize s | output data GiB | verified |\n|---|---|---|---|---|---|---|---|\n"
                f"| {row['weights_gib']:.2f} | {row['peak_rss_gib']:.2f} | "
                f"{row['peak_over_weights']:.2f} | {row['target_gib']:.2f} | {row['met']} | "
                f"{seconds:.1f} | {row['output_data_gib']:.2f} | {row['verified']} |\n")
        pathlib.Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        pathlib.Path(args.out).write_text(text)
        print(text)
        return 0 if row["met"] else 1
    finally:
        if not args.work_dir:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())
