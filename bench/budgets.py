#!/usr/bin/env python3
"""The default growth budgets against none: same speedups on the paper models, seconds on small inputs.

`saturate optimize` bounds growth by the input's size (a node budget of 100 e-nodes per operator,
at least 2,000, and at most max(10,000, 4 per operator) matches per multi-pattern rule and
iteration). This benchmark runs every bundled model, the two-layer attention block of issue 15
(18 operators, written in ONNX by this script) and chains of 1,000 / 10,000 / 100,000 Relu, once
with the defaults and once with `--no-budget` (the paper's settings: only the 50,000-node limit),
interleaved, and reports for each: the cost-model speedup, the e-graph size, what stopped growth,
the wall time and the peak memory (GNU time), and whether the output verifies.

    python3 bench/budgets.py [--out bench/results/budgets] [--skip-unbudgeted-attention]

Writes OUT.json and OUT.md and prints the table. The unbudgeted attention run takes minutes
(that is the point); --skip-unbudgeted-attention leaves it out.
"""
import argparse
import json
import pathlib
import subprocess
import sys
import tempfile
import time

REPO = pathlib.Path(__file__).resolve().parents[1]


def attention_block(path):
    import numpy as np
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    rng = np.random.default_rng(0)
    nodes, weights, x = [], [], "x"
    for layer in range(2):
        for name in "qkvo":
            weights.append(numpy_helper.from_array(
                (rng.standard_normal((256, 256)) * 0.1).astype(np.float32), f"W{name}{layer}"))
        for name in "qkv":
            nodes.append(helper.make_node("MatMul", [x, f"W{name}{layer}"], [f"{name}{layer}"]))
        nodes += [
            helper.make_node("Transpose", [f"k{layer}"], [f"kt{layer}"], perm=[1, 0]),
            helper.make_node("MatMul", [f"q{layer}", f"kt{layer}"], [f"s{layer}"]),
            helper.make_node("Softmax", [f"s{layer}"], [f"p{layer}"], axis=-1),
            helper.make_node("MatMul", [f"p{layer}", f"v{layer}"], [f"a{layer}"]),
            helper.make_node("MatMul", [f"a{layer}", f"Wo{layer}"], [f"o{layer}"]),
            helper.make_node("Add", [x, f"o{layer}"], [f"h{layer}"]),
        ]
        x = f"h{layer}"
    graph = helper.make_graph(
        nodes, "attention", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [64, 256])],
        [helper.make_tensor_value_info(x, TensorProto.FLOAT, [64, 256])], weights)
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), path)


def relu_chain(path, length):
    lines = ["(graph chain", "  (node x (input :shape [8 64]))"]
    previous = "x"
    for i in range(length):
        lines.append(f"  (node r{i} (relu {previous}))")
        previous = f"r{i}"
    lines.append(f"  (output y {previous}))")
    pathlib.Path(path).write_text("\n".join(lines) + "\n")


def run(binary, model, budget, verify, tmp):
    report_path = pathlib.Path(tmp) / "report.json"
    report_path.unlink(missing_ok=True)
    output = pathlib.Path(tmp) / ("out.onnx" if model.endswith(".onnx") else "out.sxp")
    command = ["/usr/bin/time", "-f", "%M", str(binary), "optimize", model, "-o", str(output),
               "--json", str(report_path)]
    if not budget:
        command.append("--no-budget")
    if verify:
        command.append("--verify")
    started = time.monotonic()
    result = subprocess.run(command, capture_output=True, text=True)
    wall = time.monotonic() - started
    row = {"model": pathlib.Path(model).stem, "budget": budget, "wall_seconds": round(wall, 2)}
    try:
        row["peak_mb"] = round(int(result.stderr.strip().splitlines()[-1]) / 1024)
    except (ValueError, IndexError):
        row["peak_mb"] = None
    if result.returncode != 0:
        row["error"] = result.stderr.strip().splitlines()[-2:]
        return row
    report = json.loads(report_path.read_text())
    for key in ("original_ops", "speedup_percent", "egraph_nodes", "iterations", "growth_stopped_by",
                "node_limit_used", "rules_at_match_limit", "explore_seconds", "extract_seconds",
                "verified"):
        row[key] = report.get(key)
    return row


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--binary", default=str(REPO / "build" / "bin" / "saturate"))
    parser.add_argument("--out", default=str(REPO / "bench" / "results" / "budgets"))
    parser.add_argument("--skip-unbudgeted-attention", action="store_true")
    args = parser.parse_args()

    listed = json.loads(subprocess.run([args.binary, "models", "--json"], capture_output=True,
                                       text=True, check=True).stdout)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        inputs = [(m["name"], True) for m in listed]
        attention = str(pathlib.Path(tmp) / "attention_block.onnx")
        attention_block(attention)
        inputs.append((attention, True))
        for length in (1000, 10000, 100000):
            path = str(pathlib.Path(tmp) / f"relu_chain_{length}.sxp")
            relu_chain(path, length)
            inputs.append((path, length <= 10000))
        for model, verify in inputs:
            for budget in (True, False):  # interleaved: each input's two runs back to back
                if not budget and model == attention and args.skip_unbudgeted_attention:
                    continue
                if not budget and "relu_chain" in model and "1000.sxp" not in model:
                    continue  # unbudgeted chains of 10,000 and more run for minutes
                row = run(args.binary, model, budget, verify, tmp)
                rows.append(row)
                print(json.dumps(row), file=sys.stderr)

    out = pathlib.Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.with_suffix(".json").write_text(json.dumps(rows, indent=2) + "\n")
    lines = ["| input | ops | budget | speedup % | e-nodes | stopped by | explore s | extract s "
             "| wall s | peak MB | verified |", "|" + "---|" * 11]
    for r in rows:
        if "error" in r:
            lines.append(f"| {r['model']} | | {'on' if r['budget'] else 'off'} | error: "
                         f"{' '.join(r['error'])} | | | | | {r['wall_seconds']} | | |")
            continue
        lines.append(
            f"| {r['model']} | {r['original_ops']} | {'on' if r['budget'] else 'off'} | "
            f"{r['speedup_percent']:.2f} | {r['egraph_nodes']} | {r['growth_stopped_by']} | "
            f"{r['explore_seconds']:.2f} | {r['extract_seconds']:.2f} | {r['wall_seconds']} | "
            f"{r['peak_mb']} | {r['verified']} |")
    table = "\n".join(lines) + "\n"
    out.with_suffix(".md").write_text(
        "# Growth budgets on and off (`python3 bench/budgets.py`)\n\n" + table)
    print(table)


if __name__ == "__main__":
    main()
