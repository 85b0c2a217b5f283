#!/usr/bin/env python3
"""Is ONNX Runtime's GroupQueryAttention faster than the MultiHeadAttention Saturate writes for a
grouped-query decoder, on the CPU? (issue 18: why GroupQueryAttention is not in the library.)

    python3 bench/gqa_kernel.py --out-dir bench/results/gqa_kernel

One-node models at the Llama-style decoder's shapes (hidden 512, 8 query heads, 4 key/value
heads, head 64, batch 1, no past): MultiHeadAttention on keys and values expanded to all heads
with the causal mask as an additive bias (what the library fuses the exported attention into),
against GroupQueryAttention on the unexpanded keys and values (causal by construction; seqlens_k
S - 1, total length S). Both outputs are compared first. Timed interleaved (--rounds rounds, the
order rotated each round; spinning off), median, p10 and p90, at each --threads.
"""
from __future__ import annotations

import argparse
import json
import pathlib
import time

import numpy as np
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper

HEADS, KV_HEADS, HEAD = 8, 4, 64


def model(kind, seq):
    hidden, kv_hidden = HEADS * HEAD, KV_HEADS * HEAD
    kv_width = hidden if kind == "mha" else kv_hidden
    inputs = [helper.make_tensor_value_info("q", TensorProto.FLOAT, [1, seq, hidden]),
              helper.make_tensor_value_info("k", TensorProto.FLOAT, [1, seq, kv_width]),
              helper.make_tensor_value_info("v", TensorProto.FLOAT, [1, seq, kv_width])]
    scale = 1.0 / np.sqrt(HEAD)
    if kind == "mha":
        mask = np.triu(np.full((seq, seq), np.finfo(np.float32).min, np.float32), 1)
        init = [numpy_helper.from_array(mask.reshape(1, 1, seq, seq), "mask")]
        node = helper.make_node("MultiHeadAttention", ["q", "k", "v", "", "", "mask"], ["y"],
                                domain="com.microsoft", num_heads=HEADS, scale=scale)
    else:
        init = [numpy_helper.from_array(np.array([seq - 1], np.int32), "seqlens_k"),
                numpy_helper.from_array(np.array(seq, np.int32), "total_sequence_length")]
        node = helper.make_node("GroupQueryAttention",
                                ["q", "k", "v", "", "", "seqlens_k", "total_sequence_length"],
                                ["y", "present_key", "present_value"], domain="com.microsoft",
                                num_heads=HEADS, kv_num_heads=KV_HEADS, scale=scale)
    graph = helper.make_graph([node], kind, inputs,
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], init)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17),
                                                   helper.make_opsetid("com.microsoft", 1)])


def session(onnx_model, threads):
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    # Idle intra-op threads must not spin on the cores the other session needs (see
    # docs/ONNX_RUNTIME.md, "Two threads were mismeasured").
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    return ort.InferenceSession(onnx_model.SerializeToString(), options,
                                providers=["CPUExecutionProvider"])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seq", type=int, nargs="+", default=[128, 512])
    ap.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--rounds", type=int, default=40)
    ap.add_argument("--runs", type=int, default=10, help="runs per sample")
    ap.add_argument("--out-dir", type=pathlib.Path, default=pathlib.Path("bench/results"))
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    rows = []
    for seq in args.seq:
        q = rng.normal(size=(1, seq, HEADS * HEAD)).astype(np.float32)
        k = rng.normal(size=(1, seq, KV_HEADS * HEAD)).astype(np.float32)
        v = rng.normal(size=(1, seq, KV_HEADS * HEAD)).astype(np.float32)

        def expanded(t):  # repeat_kv: query head j reads key/value head j // (HEADS / KV_HEADS)
            return np.repeat(t.reshape(1, seq, KV_HEADS, HEAD), HEADS // KV_HEADS,
                             axis=2).reshape(1, seq, HEADS * HEAD)

        feeds = {"mha": {"q": q, "k": expanded(k), "v": expanded(v)},
                 "gqa": {"q": q, "k": k, "v": v}}
        for threads in args.threads:
            sessions = {kind: session(model(kind, seq), threads) for kind in feeds}
            outputs = {kind: sessions[kind].run(["y"], feeds[kind])[0] for kind in feeds}
            max_diff = float(np.abs(outputs["mha"] - outputs["gqa"]).max())
            samples = {kind: [] for kind in feeds}
            kinds = list(feeds)
            for r in range(args.rounds):
                for kind in kinds[r % 2:] + kinds[:r % 2]:
                    start = time.perf_counter()
                    for _ in range(args.runs):
                        sessions[kind].run(["y"], feeds[kind])
                    samples[kind].append((time.perf_counter() - start) * 1e3 / args.runs)
            row = {"seq": seq, "threads": threads, "max_abs_diff": max_diff}
            for kind in kinds:
                row[kind] = {"median_ms": float(np.median(samples[kind])),
                             "p10_ms": float(np.percentile(samples[kind], 10)),
                             "p90_ms": float(np.percentile(samples[kind], 90)),
                             "samples_ms": samples[kind]}
            ratios = np.array(samples["mha"]) / np.array(samples["gqa"])
            row["gqa_speedup_median"] = float(np.median(ratios))
            row["gqa_speedup_p10"] = float(np.percentile(ratios, 10))
            row["gqa_speedup_p90"] = float(np.percentile(ratios, 90))
            rows.append(row)
            print(f"seq {seq} threads {threads}: MHA {row['mha']['median_ms']:.3f} ms, GQA "
                  f"{row['gqa']['median_ms']:.3f} ms, MHA/GQA {row['gqa_speedup_median']:.3f} "
                  f"(p10 {row['gqa_speedup_p10']:.3f}, p90 {row['gqa_speedup_p90']:.3f}), max "
                  f"|diff| {max_diff:.2e}", flush=True)
    args.out_dir.mkdir(parents=True, exist_ok=True)
    (args.out_dir / "gqa_kernel.json").write_text(json.dumps(
        {"onnxruntime": ort.__version__, "rounds": args.rounds, "runs_per_sample": args.runs,
         "rows": rows}, indent=1))
    lines = [f"ONNX Runtime {ort.__version__}, {args.rounds} interleaved rounds of {args.runs} "
             "runs; paired per-round ratio MHA / GQA (> 1: GQA faster)", "",
             "| sequence | threads | MultiHeadAttention ms (p10-p90) | GroupQueryAttention ms "
             "(p10-p90) | MHA / GQA (p10-p90) | max abs diff |", "|--:|--:|--:|--:|--:|--:|"]
    for row in rows:
        lines.append(
            f"| {row['seq']} | {row['threads']} | {row['mha']['median_ms']:.3f} "
            f"({row['mha']['p10_ms']:.3f}-{row['mha']['p90_ms']:.3f}) | "
            f"{row['gqa']['median_ms']:.3f} ({row['gqa']['p10_ms']:.3f}-{row['gqa']['p90_ms']:.3f})"
            f" | {row['gqa_speedup_median']:.3f} ({row['gqa_speedup_p10']:.3f}-"
            f"{row['gqa_speedup_p90']:.3f}) | {row['max_abs_diff']:.1e} |")
    (args.out_dir / "gqa_kernel.md").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
