#!/usr/bin/env python3
"""Does ONNX Runtime's Attention (the query, key and value projections packed into one weight)
beat the three projections followed by MultiHeadAttention on the CPU? (issue 18: why the
library fuses self-attention's projections into `qkv_attention`.)

    python3 bench/qkv_attention_kernel.py --out-dir bench/results/qkv_attention
    python3 bench/qkv_attention_kernel.py --baseline split --shapes 128:768:12 512:768:12 \
        --out-dir bench/results/qkv_attention_packed

Small models of one encoder attention block, batch 1, an additive causal (1, 1, S, S) bias:
x (1, S, D) -> MatMul + Add three times -> MultiHeadAttention (what the library fuses the
exported attention into without the projections), against one com.microsoft.Attention on the
packed (D, 3 D) weight and (3 D) bias (what `qkv_attention` writes). Both outputs are compared
first. Timed interleaved (--rounds rounds, the order alternating each round; spinning off),
median, p10 and p90 of each, at each --threads, for each --shapes S:D:N.

With --baseline split the projections are the model's own packed one (GPT-2's Conv1D): the rows
flattened to (S, D), one MatMul on the (D, 3 D) weight, Add, viewed back as (1, S, 3 D) and split
in three (as two binary Splits, the way Saturate writes it without the packed fusion), then
MultiHeadAttention; Attention takes the same weight and bias.
"""
from __future__ import annotations

import argparse
import json
import pathlib
import time

import numpy as np
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper


def split_projections(weights, biases, seq, hidden):
    """GPT-2's packed projection, split: the nodes and initializers that compute q, k, v."""
    init = [numpy_helper.from_array(np.concatenate(weights, axis=1), "w"),
            numpy_helper.from_array(np.concatenate(biases), "b"),
            numpy_helper.from_array(np.array([seq, hidden], np.int64), "rows_shape"),
            numpy_helper.from_array(np.array([1, seq, 3 * hidden], np.int64), "packed_shape"),
            numpy_helper.from_array(np.array([hidden, 2 * hidden], np.int64), "first_cut"),
            numpy_helper.from_array(np.array([hidden, hidden], np.int64), "second_cut")]
    nodes = [helper.make_node("Reshape", ["x", "rows_shape"], ["rows"]),
             helper.make_node("MatMul", ["rows", "w"], ["product"]),
             helper.make_node("Add", ["product", "b"], ["biased"]),
             helper.make_node("Reshape", ["biased", "packed_shape"], ["packed"]),
             helper.make_node("Split", ["packed", "first_cut"], ["q", "kv"], axis=2),
             helper.make_node("Split", ["kv", "second_cut"], ["k", "v"], axis=2)]
    return nodes, init


def model(packed, seq, hidden, heads, seed=0, baseline="separate"):
    rng = np.random.default_rng(seed)
    weights = [rng.normal(size=(hidden, hidden)).astype(np.float32) * 0.03 for _ in range(3)]
    biases = [rng.normal(size=(hidden,)).astype(np.float32) * 0.1 for _ in range(3)]
    causal = np.triu(np.full((seq, seq), np.finfo(np.float32).min, np.float32), 1)
    init = [numpy_helper.from_array(causal.reshape(1, 1, seq, seq), "mask")]
    scale = float(1.0 / np.sqrt(hidden // heads))
    if packed:
        init += [numpy_helper.from_array(np.concatenate(weights, axis=1), "w"),
                 numpy_helper.from_array(np.concatenate(biases), "b")]
        nodes = [helper.make_node("Attention", ["x", "w", "b", "", "", "mask"], ["y"],
                                  domain="com.microsoft", num_heads=heads, scale=scale)]
    elif baseline == "split":
        nodes, projection_init = split_projections(weights, biases, seq, hidden)
        init += projection_init
        nodes.append(helper.make_node("MultiHeadAttention", ["q", "k", "v", "", "", "mask"],
                                      ["y"], domain="com.microsoft", num_heads=heads,
                                      scale=scale))
    else:
        nodes = []
        for i, name in enumerate("qkv"):
            init += [numpy_helper.from_array(weights[i], f"w{name}"),
                     numpy_helper.from_array(biases[i], f"b{name}")]
            nodes += [helper.make_node("MatMul", ["x", f"w{name}"], [f"{name}_product"]),
                      helper.make_node("Add", [f"{name}_product", f"b{name}"], [name])]
        nodes.append(helper.make_node("MultiHeadAttention", ["q", "k", "v", "", "", "mask"],
                                      ["y"], domain="com.microsoft", num_heads=heads,
                                      scale=scale))
    graph = helper.make_graph(
        nodes, "packed" if packed else "separate",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, seq, hidden])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, seq, hidden])], init)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17),
                                                   helper.make_opsetid("com.microsoft", 1)])


def session(onnx_model, threads):
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    return ort.InferenceSession(onnx_model.SerializeToString(), options,
                                providers=["CPUExecutionProvider"])


def measure(seq, hidden, heads, threads, rounds, warmup, baseline):
    sessions = {kind: session(model(kind == "packed", seq, hidden, heads, baseline=baseline),
                              threads)
                for kind in ("separate", "packed")}
    x = np.random.default_rng(1).normal(size=(1, seq, hidden)).astype(np.float32)
    outputs = {kind: s.run(None, {"x": x})[0] for kind, s in sessions.items()}
    max_diff = float(np.abs(outputs["separate"] - outputs["packed"]).max())
    for s in sessions.values():
        for _ in range(warmup):
            s.run(None, {"x": x})
    times = {kind: [] for kind in sessions}
    for r in range(rounds):
        order = ("separate", "packed") if r % 2 == 0 else ("packed", "separate")
        for kind in order:
            start = time.perf_counter()
            sessions[kind].run(None, {"x": x})
            times[kind].append((time.perf_counter() - start) * 1e3)
    return {"seq": seq, "hidden": hidden, "heads": heads, "threads": threads,
            "max_abs_diff": max_diff, "ms": times}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--shapes", nargs="+", default=["128:768:12", "512:768:12", "128:512:8"],
                    help="S:D:N (sequence, hidden, heads)")
    ap.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--rounds", type=int, default=60)
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--baseline", choices=["separate", "split"], default="separate",
                    help="three projections (BERT) or one packed projection split (GPT-2)")
    ap.add_argument("--out-dir", type=pathlib.Path, default=None)
    args = ap.parse_args()
    rows = []
    for shape in args.shapes:
        seq, hidden, heads = (int(v) for v in shape.split(":"))
        for threads in args.threads:
            row = measure(seq, hidden, heads, threads, args.rounds, args.warmup, args.baseline)
            sep, packed = (np.array(row["ms"][k]) for k in ("separate", "packed"))
            ratios = sep / packed  # paired: both ran in the same round
            row["summary"] = {
                "separate_median_ms": float(np.median(sep)),
                "packed_median_ms": float(np.median(packed)),
                "speedup_median": float(np.median(ratios)),
                "speedup_p10": float(np.percentile(ratios, 10)),
                "speedup_p90": float(np.percentile(ratios, 90))}
            rows.append(row)
            s = row["summary"]
            print(f"S={seq} D={hidden} N={heads} T={threads}: separate "
                  f"{s['separate_median_ms']:.3f} ms, packed {s['packed_median_ms']:.3f} ms, "
                  f"speedup {s['speedup_median']:.3f} ({s['speedup_p10']:.3f}-"
                  f"{s['speedup_p90']:.3f}), max |diff| {row['max_abs_diff']:.1e}", flush=True)
    if args.out_dir:
        args.out_dir.mkdir(parents=True, exist_ok=True)
        (args.out_dir / "qkv_attention_kernel.json").write_text(json.dumps(
            {"onnxruntime": ort.__version__, "rounds": args.rounds, "baseline": args.baseline,
             "rows": rows}, indent=1))
        against = ("three projections + MultiHeadAttention" if args.baseline == "separate" else
                   "one packed projection, split, + MultiHeadAttention")
        lines = [f"# Attention (packed projections) against {against}", "",
                 f"`bench/qkv_attention_kernel.py --baseline {args.baseline}`, "
                 f"ONNX Runtime {ort.__version__}, "
                 f"{args.rounds} interleaved rounds, spinning off. Speedup: per-round ratio "
                 "separate / packed (> 1: Attention faster), median (p10-p90).", "",
                 "| S | D | heads | threads | separate ms | Attention ms | speedup | max diff |",
                 "|--:|--:|--:|--:|--:|--:|--:|--:|"]
        for row in rows:
            s = row["summary"]
            lines.append(f"| {row['seq']} | {row['hidden']} | {row['heads']} | {row['threads']} "
                         f"| {s['separate_median_ms']:.3f} | {s['packed_median_ms']:.3f} | "
                         f"{s['speedup_median']:.3f} ({s['speedup_p10']:.3f}-"
                         f"{s['speedup_p90']:.3f}) | {row['max_abs_diff']:.1e} |")
        (args.out_dir / "qkv_attention_kernel.md").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
