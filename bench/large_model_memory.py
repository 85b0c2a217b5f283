"""Peak memory of `saturate optimize` on a large model, the whole process tree counted: a
generated chain of MatMul + Relu layers whose weights (default 12 x 8192 x 8192 float32, 3 GiB)
live in external data (model.onnx + model.onnx.data, written tensor by tensor so the generator
itself stays small). Saturate reads the external data, optimizes, and writes the output with
external data again. The resident memory of saturate and of every process it starts (the ONNX
Runtime helper that times operators, runs the latency check and verifies) is sampled every 50
ms; the peak of their sum must stay under 1.5 x the weights plus 1 GiB.

    python3 bench/large_model_memory.py [--layers 12] [--width 8192] [--work-dir DIR]
                                        [--cost analytic|onnxruntime] [--verify]

`--cost onnxruntime` (the default for ONNX models) also times operators and runs the latency
check in the helper; `--verify` compares both models' outputs there.
"""
from __future__ import annotations

import argparse
import collections
import json
import os
import pathlib
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


def _children(pid: int) -> list[int]:
    found = []
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/children", encoding="ascii") as file:
                found += [int(child) for child in file.read().split()]
    except OSError:
        pass
    return found


def _rss_bytes(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as file:
            for line in file:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def _name(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as file:
            words = file.read().split(b"\0")
    except OSError:
        return "?"
    words = [w.decode(errors="replace") for w in words if w]
    if "-m" in words:  # python3 -m saturate.ort_helper
        return words[words.index("-m") + 1]
    return os.path.basename(words[0]) if words else "?"


def run_sampled(command: list[str]) -> tuple[subprocess.CompletedProcess, int, dict]:
    """Runs `command`, sampling the resident memory of it and its descendants every 50 ms:
    (the result, the peak of their sum in bytes, the peak of each process by name)."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        process = subprocess.Popen(command, stdout=out, stderr=err)
        peak, each = 0, collections.defaultdict(int)
        while process.poll() is None:
            pids, index = [process.pid], 0
            while index < len(pids):
                pids += _children(pids[index])
                index += 1
            total = 0
            for pid in pids:
                rss = _rss_bytes(pid)
                total += rss
                name = _name(pid)
                each[name] = max(each[name], rss)
            peak = max(peak, total)
            time.sleep(0.05)
        out.seek(0)
        err.seek(0)
        result = subprocess.CompletedProcess(command, process.returncode,
                                             out.read().decode(), err.read().decode())
    return result, peak, dict(each)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--layers", type=int, default=12)
    parser.add_argument("--width", type=int, default=8192)
    parser.add_argument("--work-dir", default=None)
    parser.add_argument("--verify", action="store_true")
    parser.add_argument("--cost", default="analytic", choices=["analytic", "onnxruntime"])
    parser.add_argument("--binary", default=os.environ.get(
        "SATURATE_BIN", str(REPO / "build" / "bin" / "saturate")))
    parser.add_argument("--out", default=str(REPO / "bench" / "results" / "large_model_memory"),
                        help="folder: runs.jsonl gains this run, RESULTS.md shows them all")
    args = parser.parse_args()
    work = pathlib.Path(args.work_dir or tempfile.mkdtemp(prefix="saturate-large-"))
    work.mkdir(parents=True, exist_ok=True)
    try:
        start = time.perf_counter()
        weight_bytes = generate(work, args.layers, args.width)
        print(f"generated {weight_bytes / 2**30:.2f} GiB of weights in "
              f"{time.perf_counter() - start:.1f} s", flush=True)
        command = [args.binary, "optimize", str(work / "model.onnx"), "-o", str(work / "out.onnx"),
                   "--cost", args.cost, "--cost-cache", str(work / "costs.sqlite"),
                   "--json", str(work / "report.json")]
        if args.verify:
            command.append("--verify")
        start = time.perf_counter()
        result, peak, each = run_sampled(command)
        seconds = time.perf_counter() - start
        if result.returncode != 0:
            print(result.stderr[-2000:])
            return 1
        report = json.loads((work / "report.json").read_text())
        out_data = work / "out.onnx.data"
        target = 1.5 * weight_bytes + 2**30
        row = {
            "weights_gib": weight_bytes / 2**30,
            "peak_rss_gib": peak / 2**30,
            "peak_by_process_gib": {name: rss / 2**30 for name, rss in each.items() if rss},
            "peak_over_weights": peak / weight_bytes,
            "target_gib": target / 2**30,
            "met": peak <= target,
            "optimize_seconds": seconds,
            "output_data_gib": out_data.stat().st_size / 2**30 if out_data.exists() else None,
            "verified": report.get("verified"),
            "latency_check": (report.get("latency_check") or {}).get("verdict"),
            "ops": [report["original_ops"], report["optimized_ops"]],
        }
        print(json.dumps(row), flush=True)
        row["command"] = (f"python3 bench/large_model_memory.py --layers {args.layers} --width "
                          f"{args.width} --cost {args.cost}" + (" --verify" if args.verify else ""))
        out_dir = pathlib.Path(args.out)
        out_dir.mkdir(parents=True, exist_ok=True)
        with open(out_dir / "runs.jsonl", "a", encoding="utf-8") as log:
            log.write(json.dumps(row) + "\n")
        rows = [json.loads(line) for line in
                (out_dir / "runs.jsonl").read_text(encoding="utf-8").splitlines() if line]
        text = ("# Peak memory of the process tree on a large model\n\n"
                "A chain of MatMul + Relu layers, weights in model.onnx.data; the resident memory "
                "of saturate and of every process it starts, sampled every 50 ms. One row per "
                "run (runs.jsonl).\n\n"
                "| command | weights GiB | tree peak GiB | peak / weights | target (1.5 x + 1 GiB) "
                "| met | each process's peak GiB | optimize s | latency check | verified |\n"
                "|---|---|---|---|---|---|---|---|---|---|\n")
        for each in rows:
            processes = ", ".join(f"{name} {gib:.2f}" for name, gib in sorted(
                each["peak_by_process_gib"].items(), key=lambda kv: -kv[1]))
            text += (f"| `{each['command']}` | {each['weights_gib']:.2f} | "
                     f"{each['peak_rss_gib']:.2f} | {each['peak_over_weights']:.2f} | "
                     f"{each['target_gib']:.2f} | {each['met']} | {processes} | "
                     f"{each['optimize_seconds']:.1f} | {each['latency_check']} | "
                     f"{each['verified']} |\n")
        (out_dir / "RESULTS.md").write_text(text, encoding="utf-8")
        print(text)
        return 0 if row["met"] else 1
    finally:
        if not args.work_dir:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())
