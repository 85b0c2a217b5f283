#!/usr/bin/env python3
"""PyPM pattern matching against onnxscript's pattern rewriter, on one graph, side by side.

The workload is ``transformer_decomposed`` (reduced sizes) with enough layers for at least
100,000 graph nodes: an encoder written the way an exporter writes it, with layer norm, GELU and
attention decomposed into primitive operators.

1. PyPM: compiles examples/pypm/shipped.py and rewrites the graph with ``saturate.apply_rules``
   (greedy, passes to a fixpoint), a few times; reports the median of the C++-measured seconds
   and of the wall time around the call, the rewrites per rule, passes, nodes before and after.
2. Exports the same graph to ONNX (bench/onnx_export.py, opset 20) and checks it with
   onnx.checker (full check: types and shapes).
3. onnxscript: rewrite rules equivalent to the shipped PyPM rules (onnxscript.rewriter.pattern),
   applied with ``RewriteRuleSet.apply_to_model`` until a pass rewrites nothing (the same
   fixpoint semantics as PyPM, the same pass cap), on a freshly converted onnx_ir model each
   repeat. Only the rewriting is timed; the ModelProto -> onnx_ir conversion is reported apart.
4. Checks that both systems rewrote the same number of times per kind (and leave the same
   number of operators), and, on a 2-layer copy with random weights, that the original and
   both rewritten models compute the same output (onnx.reference). Prints a table and the
   time ratio, and writes bench/results/pm_matching.{json,md,png} (a full-size default run
   only: --quick and --layers write to the temp folder unless --out is given).

    python3 bench/pm_bench.py              # full size (>= 100,000 nodes)
    python3 bench/pm_bench.py --quick      # 50 layers, a smoke run
    python3 bench/pm_bench.py --layers N

Needs the C++ build (build/, or $SATURATE_BUILD_DIR) and requirements-bench.txt (onnx,
onnxscript; matplotlib for the chart, skipped when missing). Exits 1 when the rewrite counts
of the two systems disagree (or the numerical check fails), 2 when a dependency is missing.
"""
from __future__ import annotations

import argparse
import datetime
import json
import math
import os
import pathlib
import platform
import statistics
import subprocess
import sys
import tempfile
import time

REPO = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "python"))
sys.path.insert(0, str(REPO / "bench"))

SQRT2 = 1.4142135623730951
TARGET_NODES = 100_000
QUICK_LAYERS = 50
MAX_PASSES = 100  # saturate.apply_rules' default; the onnxscript loop uses the same cap

# PyPM rule name -> the onnxscript rules that implement it (in the shipped file order).
RULE_KINDS = {
    "fuse_attention": ["attention"],
    "fuse_gelu": ["gelu", "gelu_commuted"],
    "fuse_layernorm": ["layernorm"],
    "product_of_transposes": ["transpose_matmul"],
    "collapse_idempotent_chain": ["relu_chain"],
}
# The operator each kind's replacement creates: (PyPM IR op, ONNX op_type).
FUSED_OPS = {
    "fuse_attention": ("attention", "Attention"),
    "fuse_gelu": ("gelu", "Gelu"),
    "fuse_layernorm": ("layernorm", "LayerNormalization"),
}


def need(module_name: str):
    """Imports a benchmark dependency, or exits with a message naming the requirements file."""
    import importlib

    try:
        return importlib.import_module(module_name)
    except ImportError as error:
        print(f"pm_bench: cannot import {module_name} ({error}).\n"
              f"Install the benchmark dependencies: "
              f"python3 -m pip install -r {REPO / 'requirements-bench.txt'}", file=sys.stderr)
        sys.exit(2)


def machine_line() -> str:
    cpu = "unknown CPU"
    try:
        for line in pathlib.Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    arch = subprocess.run(["uname", "-m"], capture_output=True, text=True).stdout.strip()
    nproc = subprocess.run(["nproc"], capture_output=True, text=True).stdout.strip()
    return f"{arch or platform.machine()}, {cpu}, nproc {nproc or os.cpu_count()}"


def build_type() -> str:
    cache = pathlib.Path(os.environ.get("SATURATE_BUILD_DIR", REPO / "build")) / "CMakeCache.txt"
    try:
        for line in cache.read_text().splitlines():
            if line.startswith("CMAKE_BUILD_TYPE:"):
                return line.split("=", 1)[1] or "(none)"
    except OSError:
        pass
    return "unknown"


def git_commit() -> str:
    result = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"],
                            capture_output=True, text=True)
    dirty = subprocess.run(["git", "-C", str(REPO), "status", "--porcelain",
                            "--untracked-files=no"], capture_output=True, text=True).stdout.strip()
    return result.stdout.strip() + ("+dirty" if dirty else "")


def layers_for(saturate, target: int) -> int:
    """The fewest layers whose graph has at least `target` nodes (the size grows linearly)."""
    one = saturate.model("transformer_decomposed", reduced=True, layers=1).num_nodes
    two = saturate.model("transformer_decomposed", reduced=True, layers=2).num_nodes
    per_layer, base = two - one, 2 * one - two
    layers = max(1, math.ceil((target - base) / per_layer))
    while saturate.model("transformer_decomposed", reduced=True, layers=layers).num_nodes < target:
        layers += 1
    return layers


# ---------------------------------------------------------------------------------------------
# onnxscript rules, equivalent to examples/pypm/{attention,gelu,layernorm,transpose_matmul,
# unary_chain}.py. Alternates become pattern.OrValue where onnxscript allows it (not at a
# pattern's root), so GELU's commuted product is a second rule.


def onnxscript_rules(pattern, counts: dict):
    def scalar_constant(value) -> bool:
        """PyPM's `v.op == "constant" and v.shape.numel == 1`: constants are initializers here."""
        const = value.const_value
        return const is not None and not value.is_graph_input() and const.size == 1

    def scalar_of(value) -> float:
        return float(value.const_value.numpy().reshape(-1)[0])

    # attention.py: MatMul(Softmax(Div(MatMul(q, k), s), axis=-1), v) -> Attention(q, k, v, s)
    def attention_target(op, q, k, v, s):
        scores = op.MatMul(q, k)
        return op.MatMul(op.Softmax(op.Div(scores, s), axis=-1), v)

    def attention_check(context, s, **_):
        return scalar_constant(s)

    def attention_replacement(op, q, k, v, s, **_):
        counts["attention"] += 1
        return op.Attention(q, k, v, scale=scalar_of(s), _domain="saturate", _version=1)

    # gelu.py: Half(x) = Div(x, 2) | Mul(x, 0.5); OnePlus(e) = Add(1, e) | Add(e, 1);
    # ErfGelu(x) = Mul(Half(x), OnePlus(Erf(Div(x, sqrt2)))) | the commuted product.
    def half(op, x):
        return pattern.OrValue([op.Div(x, 2.0), op.Mul(x, 0.5)])

    def one_plus_erf(op, x):
        erf = op.Erf(op.Div(x, SQRT2))
        return pattern.OrValue([op.Add(1.0, erf), op.Add(erf, 1.0)])

    def gelu_target(op, x):
        return op.Mul(half(op, x), one_plus_erf(op, x))

    def gelu_commuted_target(op, x):
        return op.Mul(one_plus_erf(op, x), half(op, x))

    def gelu_replacement(kind):
        def replacement(op, x, **_):
            counts[kind] += 1
            return op.Gelu(x)
        return replacement

    # layernorm.py: d = Sub(x, ReduceMean(x)), the variance of d by Mul(d, d) or Pow(d, 2),
    # Add(Mul(Div(d, Sqrt(Add(var, eps))), scale), bias) -> LayerNormalization.
    def layernorm_target(op, x, scale, bias, eps):
        d = op.Sub(x, op.ReduceMean(x, [-1], keepdims=1))
        square = pattern.OrValue([op.Mul(d, d), op.Pow(d, 2.0)])
        variance = op.ReduceMean(square, [-1], keepdims=1)
        y = op.Div(d, op.Sqrt(op.Add(variance, eps)))
        return op.Add(op.Mul(y, scale), bias)

    def layernorm_check(context, x, scale, bias, eps, **_):
        if not scalar_constant(eps):
            return False
        # The rule's guards: scale and bias rank 1, as long as x's last axis.
        if x.shape is None or len(x.shape) == 0:
            return False
        width = x.shape[-1]
        return all(t.shape is not None and len(t.shape) == 1 and t.shape[0] == width
                   for t in (scale, bias))

    def layernorm_replacement(op, x, scale, bias, eps, **_):
        counts["layernorm"] += 1
        return op.LayerNormalization(x, scale, bias, axis=-1, epsilon=scalar_of(eps))

    # transpose_matmul.py: MatMul(Trans(x), Trans(y)) -> Trans(MatMul(y, x)), rank-2 x and y.
    def transpose_matmul_target(op, x, y):
        return op.MatMul(op.Transpose(x, perm=[1, 0]), op.Transpose(y, perm=[1, 0]))

    def transpose_matmul_check(context, x, y, **_):
        return all(t.shape is not None and len(t.shape) == 2 for t in (x, y))

    def transpose_matmul_replacement(op, x, y, **_):
        counts["transpose_matmul"] += 1
        return op.Transpose(op.MatMul(y, x), perm=[1, 0])

    # unary_chain.py with its guard f in ("relu",): Relu(Relu(x)) -> Relu(x). onnxscript has
    # no recursive patterns or operator variables, so a chain of n relus takes n - 1 rewrites
    # here and one in PyPM (the graph has no relu, so neither fires).
    def relu_chain_target(op, x):
        return op.Relu(op.Relu(x))

    def relu_chain_replacement(op, x, **_):
        counts["relu_chain"] += 1
        return op.Relu(x)

    RewriteRule = pattern.RewriteRule
    return pattern.RewriteRuleSet([
        RewriteRule(attention_target, attention_replacement, attention_check, name="attention"),
        RewriteRule(gelu_target, gelu_replacement("gelu"), name="gelu"),
        RewriteRule(gelu_commuted_target, gelu_replacement("gelu_commuted"),
                    name="gelu_commuted"),
        RewriteRule(layernorm_target, layernorm_replacement, layernorm_check, name="layernorm"),
        RewriteRule(transpose_matmul_target, transpose_matmul_replacement,
                    transpose_matmul_check, name="transpose_matmul"),
        RewriteRule(relu_chain_target, relu_chain_replacement, name="relu_chain"),
    ])


class Stopwatch:
    """Accumulates the time spent in wrapped functions (the onnxscript profile run)."""

    def __init__(self):
        self.seconds: dict[str, float] = {}
        self.calls: dict[str, int] = {}

    def wrap(self, owner, attribute: str, label: str):
        original = getattr(owner, attribute)
        own = attribute in vars(owner)

        def timed(*args, **kwargs):
            started = time.perf_counter()
            try:
                return original(*args, **kwargs)
            finally:
                self.seconds[label] = self.seconds.get(label, 0.0) + time.perf_counter() - started
                self.calls[label] = self.calls.get(label, 0) + 1

        setattr(owner, attribute, timed)
        if own:
            return lambda: setattr(owner, attribute, original)
        return lambda: delattr(owner, attribute)


def run_onnxscript_fixpoint(rule_set, model, max_passes: int):
    """apply_to_model until a pass rewrites nothing (or the cap); returns per-pass counts."""
    per_pass = []
    while len(per_pass) < max_passes:
        count = rule_set.apply_to_model(model)
        per_pass.append(count)
        if count == 0:
            break
    return per_pass


def numeric_check(saturate, onnx_ir, pattern, onnx_export, patterns, layers=2, seed=0):
    """Runs the original, the PyPM-rewritten and the onnxscript-rewritten model (a small one,
    random weights) with onnx.reference; returns the largest absolute differences."""
    import numpy as np
    from onnx.reference import ReferenceEvaluator
    from onnx.reference.op_run import OpRun

    class Attention(OpRun):  # saturate.Attention: softmax(q k / scale, last axis) v
        op_domain = "saturate"

        def _run(self, q, k, v, scale=1.0, **_):  # (also given ONNX Attention's defaults)
            scores = np.matmul(q, k) / np.float32(scale)
            scores = np.exp(scores - scores.max(axis=-1, keepdims=True))
            return (np.matmul(scores / scores.sum(axis=-1, keepdims=True), v).astype(q.dtype),)

    graph = saturate.model("transformer_decomposed", reduced=True, layers=layers)
    original = onnx_export.export(graph, seed=seed)
    weights = {tensor.name: tensor for tensor in original.graph.initializer}
    fused, _ = saturate.apply_rules(graph, patterns, max_passes=MAX_PASSES)
    by_pypm = onnx_export.export(fused)
    for tensor in by_pypm.graph.initializer:
        if tensor.name in weights:
            tensor.CopyFrom(weights[tensor.name])
    counts = {k: 0 for names in RULE_KINDS.values() for k in names}
    model_ir = onnx_ir.serde.deserialize_model(original)
    run_onnxscript_fixpoint(onnxscript_rules(pattern, counts), model_ir, MAX_PASSES)
    by_onnxscript = onnx_ir.serde.serialize_model(model_ir)

    feed_value = original.graph.input[0]
    shape = [d.dim_value for d in feed_value.type.tensor_type.shape.dim]
    feeds = {feed_value.name: np.random.default_rng(seed + 1).standard_normal(shape)
             .astype(np.float32)}
    expected = ReferenceEvaluator(original).run(None, feeds)[0]
    result = {"layers": layers, "output_max_abs": float(np.abs(expected).max())}
    for label, model in (("pypm", by_pypm), ("onnxscript", by_onnxscript)):
        fused_ops = sum(1 for node in model.graph.node
                        if node.op_type in ("Gelu", "LayerNormalization", "Attention"))
        got = ReferenceEvaluator(model, new_ops=[Attention]).run(None, feeds)[0]
        result[f"{label}_max_abs_diff"] = float(np.abs(got - expected).max())
        result[f"{label}_fused_ops"] = fused_ops
    return result


def median(values):
    return statistics.median(values) if values else float("nan")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    size = parser.add_mutually_exclusive_group()
    size.add_argument("--quick", action="store_true",
                      help=f"smoke run: {QUICK_LAYERS} layers")
    size.add_argument("--layers", type=int, help="encoder layers (default: >= 100,000 nodes)")
    parser.add_argument("--repeats", type=int, default=5, help="PyPM repeats (median)")
    parser.add_argument("--onnxscript-repeats", type=int, default=3,
                        help="onnxscript repeats (median), each on a fresh onnx_ir model")
    parser.add_argument("--no-profile", action="store_true",
                        help="skip the extra onnxscript run that splits its time by phase")
    parser.add_argument("--out", help="results prefix (default bench/results/pm_matching; "
                                      "with --quick or --layers, a file in the temp folder)")
    args = parser.parse_args()

    import saturate

    if not saturate.HAVE_EXTENSION:
        print(f"pm_bench: the C++ extension did not load ({saturate.EXTENSION_ERROR}); "
              "build the project first (cmake --build build).", file=sys.stderr)
        return 2
    onnx = need("onnx")
    onnxscript = need("onnxscript")
    onnx_ir = need("onnx_ir")
    from onnxscript.rewriter import pattern

    import onnx_export

    def log(message):
        print(message, file=sys.stderr, flush=True)

    load_before = os.getloadavg()
    # ---- the graph ---------------------------------------------------------------------------
    if args.layers:
        layers = args.layers
    elif args.quick:
        layers = QUICK_LAYERS
    else:
        layers = layers_for(saturate, TARGET_NODES)
    started = time.perf_counter()
    graph = saturate.model("transformer_decomposed", reduced=True, layers=layers)
    build_seconds = time.perf_counter() - started
    log(f"graph: transformer_decomposed, {layers} layers, {graph.num_nodes} nodes "
        f"({graph.num_operators} operators), built in {build_seconds:.3f} s")

    # ---- PyPM --------------------------------------------------------------------------------
    shipped = REPO / "examples" / "pypm" / "shipped.py"
    started = time.perf_counter()
    patterns = saturate.pypm.compile_file(str(shipped))
    compile_seconds = time.perf_counter() - started
    pypm_runs = []
    rewritten = None
    for repeat in range(args.repeats):
        rewritten = None  # free the previous result before the clock starts
        started = time.perf_counter()
        outcome = saturate.apply_rules(graph, patterns, max_passes=MAX_PASSES)
        wall = time.perf_counter() - started
        rewritten, report = outcome
        pypm_runs.append({"wall_seconds": wall, "cpp_seconds": report["seconds"],
                          "passes": report["passes"],
                          "hit_iteration_cap": report["hit_iteration_cap"],
                          "applications": dict(report["applications"])})
        log(f"pypm run {repeat + 1}/{args.repeats}: {report['seconds']:.3f} s (C++), "
            f"{wall:.3f} s wall, {sum(report['applications'].values())} rewrites, "
            f"{report['passes']} passes")
    pypm_apps = pypm_runs[0]["applications"]
    if any(run["applications"] != pypm_apps for run in pypm_runs):
        log("pypm: the repeats rewrote differently")
    pypm_after_hist = rewritten.op_histogram()
    pypm = {
        "cpp_seconds_median": median([r["cpp_seconds"] for r in pypm_runs]),
        "wall_seconds_median": median([r["wall_seconds"] for r in pypm_runs]),
        "cpp_seconds_min": min(r["cpp_seconds"] for r in pypm_runs),
        "wall_seconds_min": min(r["wall_seconds"] for r in pypm_runs),
        "compile_seconds": compile_seconds,
        "passes": pypm_runs[0]["passes"],
        "hit_iteration_cap": pypm_runs[0]["hit_iteration_cap"],
        "applications": pypm_apps,
        "nodes_before": graph.num_nodes, "nodes_after": rewritten.num_nodes,
        "operators_before": graph.num_operators, "operators_after": rewritten.num_operators,
        "op_histogram_after": pypm_after_hist,
        "runs": pypm_runs,
    }

    # ---- ONNX export -------------------------------------------------------------------------
    started = time.perf_counter()
    nodes = graph.nodes()
    model_proto = onnx_export.export(graph, name=f"transformer_decomposed_{layers}", nodes=nodes)
    export_seconds = time.perf_counter() - started
    started = time.perf_counter()
    onnx.checker.check_model(model_proto, full_check=True)
    check_seconds = time.perf_counter() - started
    onnx_info = {
        "opset": onnx_export.OPSET,
        "nodes": len(model_proto.graph.node),
        "initializers": len(model_proto.graph.initializer),
        "bytes": model_proto.ByteSize(),
        "export_seconds": export_seconds,
        "checker_seconds": check_seconds,
    }
    log(f"onnx: {onnx_info['nodes']} nodes, {onnx_info['initializers']} initializers, "
        f"{onnx_info['bytes'] / 1e6:.1f} MB, exported in {export_seconds:.2f} s, "
        f"checker (full) passed in {check_seconds:.2f} s")

    # ---- onnxscript --------------------------------------------------------------------------
    kinds = [k for names in RULE_KINDS.values() for k in names]
    counts = {k: 0 for k in kinds}
    started = time.perf_counter()
    rule_set = onnxscript_rules(pattern, counts)
    rules_seconds = time.perf_counter() - started
    onnxscript_runs = []
    model_ir = None
    for repeat in range(args.onnxscript_repeats):
        model_ir = None  # free the previous model first
        started = time.perf_counter()
        model_ir = onnx_ir.serde.deserialize_model(model_proto)
        convert_seconds = time.perf_counter() - started
        nodes_before = len(list(model_ir.graph))
        for k in counts:
            counts[k] = 0
        started = time.perf_counter()
        per_pass = run_onnxscript_fixpoint(rule_set, model_ir, MAX_PASSES)
        rewrite_seconds = time.perf_counter() - started
        onnxscript_runs.append({"rewrite_seconds": rewrite_seconds,
                                "convert_seconds": convert_seconds,
                                "passes": len(per_pass), "per_pass": per_pass,
                                "hit_iteration_cap": per_pass[-1] != 0,
                                "counts": dict(counts), "nodes_before": nodes_before})
        log(f"onnxscript run {repeat + 1}/{args.onnxscript_repeats}: {rewrite_seconds:.3f} s "
            f"rewriting ({convert_seconds:.3f} s converting), {sum(per_pass)} rewrites, "
            f"{len(per_pass)} passes")
    after_hist: dict[str, int] = {}
    for node in model_ir.graph:
        key = node.op_type if node.domain in ("", "ai.onnx") else f"{node.domain}.{node.op_type}"
        after_hist[key] = after_hist.get(key, 0) + 1
    rewritten_proto = onnx_ir.serde.serialize_model(model_ir)
    try:
        onnx.checker.check_model(rewritten_proto)  # not full: saturate.Attention has no schema
        rewritten_valid = True
    except onnx.checker.ValidationError as error:
        rewritten_valid = False
        log(f"onnxscript: the rewritten model fails onnx.checker: {error}")

    profile = None
    if not args.no_profile:
        # One more run with onnxscript's whole-graph helpers timed, to show where the time goes.
        import onnx_ir.passes.common as ir_passes_common
        import onnxscript.optimizer

        watch = Stopwatch()
        restores = [
            watch.wrap(onnxscript.optimizer, "basic_constant_propagation",
                       "basic_constant_propagation (per pass over the graph, and per rewrite)"),
            watch.wrap(ir_passes_common.NameFixPass, "__call__",
                       "NameFixPass (after each pass that rewrote)"),
            watch.wrap(onnxscript.rewriter._rewrite_rule.convenience, "replace_nodes_and_values",
                       "replace_nodes_and_values (graph edits)"),
        ]
        try:
            model_profile = onnx_ir.serde.deserialize_model(model_proto)
            started = time.perf_counter()
            run_onnxscript_fixpoint(rule_set, model_profile, MAX_PASSES)
            total = time.perf_counter() - started
        finally:
            for restore in reversed(restores):
                restore()
        profile = {"total_seconds": total, "phases": watch.seconds, "calls": watch.calls}
        accounted = sum(watch.seconds.values())
        profile["phases"]["matching and the rest"] = total - accounted
        del model_profile

    onnxscript_counts = onnxscript_runs[0]["counts"]
    onnxscript_info = {
        "version": onnxscript.__version__,
        "onnx_ir_version": onnx_ir.__version__,
        "rewrite_seconds_median": median([r["rewrite_seconds"] for r in onnxscript_runs]),
        "rewrite_seconds_min": min(r["rewrite_seconds"] for r in onnxscript_runs),
        "convert_seconds_median": median([r["convert_seconds"] for r in onnxscript_runs]),
        "rule_construction_seconds": rules_seconds,
        "rules": [rule.name for rule in rule_set.rules],
        "passes": onnxscript_runs[0]["passes"],
        "hit_iteration_cap": onnxscript_runs[0]["hit_iteration_cap"],
        "counts": onnxscript_counts,
        "nodes_before": onnxscript_runs[0]["nodes_before"],
        "nodes_after": sum(after_hist.values()),
        "op_histogram_after": after_hist,
        "rewritten_model_passes_checker": rewritten_valid,
        "profile": profile,
        "runs": onnxscript_runs,
    }

    # ---- numerical check (small graph, random weights) ---------------------------------------
    numeric = numeric_check(saturate, onnx_ir, pattern, onnx_export, patterns)
    numeric["agree"] = max(numeric["pypm_max_abs_diff"], numeric["onnxscript_max_abs_diff"]) \
        <= 1e-4 * max(1.0, numeric["output_max_abs"])
    log(f"numerical check ({numeric['layers']} layers, onnx.reference): PyPM's rewrite differs "
        f"by {numeric['pypm_max_abs_diff']:.2e}, onnxscript's by "
        f"{numeric['onnxscript_max_abs_diff']:.2e}")

    # ---- agreement ---------------------------------------------------------------------------
    rows = []
    agree = True
    for rule, names in RULE_KINDS.items():
        ours = pypm_apps.get(rule, 0)
        theirs = sum(onnxscript_counts[name] for name in names)
        same = ours == theirs
        # The fused operators left in each graph must agree with the counts too.
        if rule in FUSED_OPS:
            ir_op, onnx_op = FUSED_OPS[rule]
            onnx_key = onnx_op if onnx_op != "Attention" else "saturate.Attention"
            same = same and pypm_after_hist.get(ir_op, 0) == ours \
                and after_hist.get(onnx_key, 0) == theirs
        agree = agree and same
        rows.append({"rule": rule, "pypm": ours, "onnxscript": theirs,
                     "onnxscript_rules": names, "agree": same})
    if any(run["counts"] != onnxscript_counts for run in onnxscript_runs):
        agree = False
        log("onnxscript: the repeats rewrote differently")
    operators_agree = pypm["operators_after"] == onnxscript_info["nodes_after"] and \
        pypm["operators_before"] == onnxscript_info["nodes_before"]
    agree = agree and operators_agree

    ratio_wall = onnxscript_info["rewrite_seconds_median"] / pypm["wall_seconds_median"]
    ratio_cpp = onnxscript_info["rewrite_seconds_median"] / pypm["cpp_seconds_median"]
    summary = {
        "ratio_onnxscript_over_pypm_wall": ratio_wall,
        "ratio_onnxscript_over_pypm_cpp": ratio_cpp,
        "target_ratio": 10.0,
        "meets_ratio_target": ratio_wall >= 10.0,
        "pypm_under_1s_wall": pypm["wall_seconds_median"] < 1.0,
        "pypm_under_1s_cpp": pypm["cpp_seconds_median"] < 1.0,
        "counts_agree": agree,
        "operators_agree": operators_agree,
        "numeric_check": numeric,
    }
    result = {
        "benchmark": "pm_matching",
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "machine": machine_line(),
        "load_average_before": load_before,
        "load_average_after": os.getloadavg(),
        "python": platform.python_version(),
        "saturate_build_type": build_type(),
        "git_commit": git_commit(),
        "workload": {"model": "transformer_decomposed", "reduced": True, "layers": layers,
                     "nodes": graph.num_nodes, "operators": graph.num_operators,
                     "op_histogram": graph.op_histogram(), "build_seconds": build_seconds,
                     "quick": bool(args.quick)},
        "pypm": pypm,
        "onnx": onnx_info,
        "onnxscript": onnxscript_info,
        "rewrites": rows,
        "summary": summary,
    }

    # ---- report ------------------------------------------------------------------------------
    lines = report_lines(result)
    print("\n".join(lines))
    if args.out:
        out = pathlib.Path(args.out)
    elif args.quick or args.layers:  # a smoke run does not overwrite the recorded results
        out = pathlib.Path(tempfile.gettempdir()) / f"pm_matching_{layers}_layers"
    else:
        out = REPO / "bench" / "results" / "pm_matching"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.with_suffix(".json").write_text(json.dumps(result, indent=2) + "\n")
    out.with_suffix(".md").write_text(markdown(result, lines))
    plot(result, out.with_suffix(".png"))
    print(f"wrote {out.with_suffix('.json')}, {out.with_suffix('.md')}")
    if not agree:
        print("pm_bench: the two rewriters disagree (see the table)", file=sys.stderr)
        return 1
    if not numeric["agree"]:
        print("pm_bench: a rewritten model computes something else (numerical check)",
              file=sys.stderr)
        return 1
    return 0


def report_lines(result) -> list[str]:
    p, o, s, w = result["pypm"], result["onnxscript"], result["summary"], result["workload"]
    lines = [
        f"transformer_decomposed (reduced), {w['layers']} layers: {w['nodes']:,} nodes, "
        f"{w['operators']:,} operators; ONNX: {result['onnx']['nodes']:,} nodes, "
        f"{result['onnx']['initializers']:,} initializers (opset {result['onnx']['opset']})",
        "",
        "| | PyPM (saturate.apply_rules) | onnxscript (RewriteRuleSet.apply_to_model) |",
        "|---|---|---|",
        f"| rewriting, median s | {p['wall_seconds_median']:.3f} wall "
        f"({p['cpp_seconds_median']:.3f} measured in C++) | {o['rewrite_seconds_median']:.3f} |",
        f"| fastest repeat, s | {p['wall_seconds_min']:.3f} wall ({p['cpp_seconds_min']:.3f} C++) "
        f"| {o['rewrite_seconds_min']:.3f} |",
        f"| repeats | {len(p['runs'])} | {len(o['runs'])} |",
        f"| passes to fixpoint | {p['passes']} | {o['passes']} |",
        f"| rules | {len(p['applications'])} | {len(o['rules'])} ({', '.join(o['rules'])}) |",
        f"| operators before -> after | {p['operators_before']:,} -> {p['operators_after']:,} "
        f"| {o['nodes_before']:,} -> {o['nodes_after']:,} |",
        f"| graph nodes before -> after (with inputs, weights, constants) | "
        f"{p['nodes_before']:,} -> {p['nodes_after']:,} | (initializers, not nodes) |",
        f"| not timed: preparing | compile shipped.py {p['compile_seconds']:.3f} s | "
        f"ModelProto -> onnx_ir {o['convert_seconds_median']:.3f} s (median), "
        f"rule construction {o['rule_construction_seconds']:.3f} s |",
        "",
        "| rewrite | PyPM | onnxscript | agree |",
        "|---|---|---|---|",
    ]
    for row in result["rewrites"]:
        lines.append(f"| {row['rule']} | {row['pypm']:,} | {row['onnxscript']:,} "
                     f"({' + '.join(row['onnxscript_rules'])}) | "
                     f"{'yes' if row['agree'] else 'NO'} |")
    lines += [
        "",
        f"onnxscript / PyPM time: {s['ratio_onnxscript_over_pypm_wall']:.1f}x against PyPM's "
        f"wall time, {s['ratio_onnxscript_over_pypm_cpp']:.1f}x against its C++-measured time "
        f"(target >= 10x: {'met' if s['meets_ratio_target'] else 'NOT met'})",
        f"PyPM under 1 s on {w['nodes']:,} nodes: "
        f"{'yes' if s['pypm_under_1s_wall'] else 'no'} (wall), "
        f"{'yes' if s['pypm_under_1s_cpp'] else 'no'} (C++)",
        f"rewrite counts agree: {'yes' if s['counts_agree'] else 'NO'}; operators left agree: "
        f"{'yes' if s['operators_agree'] else 'NO'}",
        f"numerical check ({s['numeric_check']['layers']} layers, random weights, onnx.reference "
        f"on the original and both rewritten models): max |difference| PyPM "
        f"{s['numeric_check']['pypm_max_abs_diff']:.1e}, onnxscript "
        f"{s['numeric_check']['onnxscript_max_abs_diff']:.1e} (outputs up to "
        f"{s['numeric_check']['output_max_abs']:.1f}): "
        f"{'ok' if s['numeric_check']['agree'] else 'MISMATCH'}",
    ]
    if o.get("profile"):
        prof = o["profile"]
        lines += ["", f"onnxscript time by phase (one extra run, instrumented, "
                      f"{prof['total_seconds']:.3f} s):", ""]
        lines += ["| phase | s | share |", "|---|---|---|"]
        for phase, seconds in sorted(prof["phases"].items(), key=lambda kv: -kv[1]):
            lines.append(f"| {phase} | {seconds:.3f} | "
                         f"{100 * seconds / max(prof['total_seconds'], 1e-12):.0f}% |")
    return lines


NOTES = """\
## What each side does

* **Same graph.** The ONNX model is exported from the same `saturate` graph by
  `bench/onnx_export.py` (opset 20, one ONNX node per operator; weights and constants are
  initializers, so ONNX node counts compare with PyPM's operator counts). It passes
  `onnx.checker.check_model(full_check=True)`.
* **Same rules.** One onnxscript rule per PyPM rule, in the same order, with the same guards,
  except that GELU needs two: onnxscript's `OrValue` alternates cannot be a pattern's root, so
  the commuted product `Mul(OnePlus(..), Half(x))` is a second rule. The other alternates
  (`Half`, `OnePlus`, the variance's `Mul(d, d) | Pow(d, 2)`) are `OrValue`s, as onnxscript's own
  LayerNorm fusion writes them. PyPM's `unary_chain` (an operator variable `f`, recursive,
  guarded to `f == relu`) becomes `Relu(Relu(x)) -> Relu(x)`: onnxscript has neither operator
  variables nor recursion, so it only tries the pattern at Relu nodes (PyPM's pattern, rooted
  at an operator variable, can match at any one-input operator and is rejected by the guard
  unless f is relu), and a chain of n relus takes n - 1 rewrites instead of one. Neither rule (nor `product_of_transposes`, whose transposes here are rank 3)
  fires on this graph.
* **Same fixpoint.** Both rewrite greedily in topological order and repeat passes until one
  rewrites nothing (cap 100). onnxscript's `apply_to_model` also runs
  `basic_constant_propagation` over the graph at the start of each pass and a `NameFixPass`
  after a pass that rewrote; those are part of its rewriting API, so they are timed (the
  phase table shows how much they cost).
* **Guards on constants.** PyPM requires `s` (attention scale) and `eps` to be `constant` nodes
  of one element; in ONNX they are initializers, so the onnxscript rules require a one-element
  `const_value` that is not a graph input (a weight initializer would pass this test too; there
  is none in those positions here).
* **Differences in what the rewriters do.** onnxscript refuses a match whose inner values are
  used outside it (it deletes the matched nodes); PyPM redirects the uses of the root and drops
  whatever became unused. In this graph every inner value is used only inside its pattern, so
  the two rewrite the same places (the numerical check runs both rewritten models). PyPM
  rewrites a copy and builds the result graph (`to_graph()`) inside its C++-measured time;
  onnxscript edits the model in place. PyPM's wall time also covers what its C++ clock leaves
  out: reading the compiled module, copying the input graph into the rewriter's mutable form,
  freeing it, and handing the result graph back to Python.
* **Replacements.** GELU becomes ONNX `Gelu` (opset 20), layer norm `LayerNormalization`
  (axis -1, the matched epsilon), attention the custom op `saturate.Attention(q, k, v,
  scale=s)`; in PyPM the IR's `gelu`, `layernorm` and `attention`.
* **Timing.** PyPM: median of the repeats, C++-measured (`report["seconds"]`) and the wall time
  around `saturate.apply_rules` (the ratio uses the wall time unless stated). onnxscript: median
  wall time around the fixpoint loop, each repeat on a fresh `onnx_ir` model converted from the
  ModelProto (the conversion is reported, not counted). Compiling `shipped.py`, building the
  onnxscript rules and exporting to ONNX are not counted either. Every repeat's times are in
  the JSON (`runs`); the load average in the machine line shows how busy the (possibly shared)
  machine was.
"""


def markdown(result, lines) -> str:
    w = result["workload"]
    text = [
        "# PyPM vs onnxscript pattern rewriting",
        "",
        f"Machine: {result['machine']}; load average (1, 5, 15 min) "
        f"{', '.join(f'{x:.2f}' for x in result['load_average_before'])} before the run, "
        f"{', '.join(f'{x:.2f}' for x in result['load_average_after'])} after. "
        f"Python {result['python']}, saturate build "
        f"{result['saturate_build_type']} at {result['git_commit']}, onnxscript "
        f"{result['onnxscript']['version']}, onnx_ir {result['onnxscript']['onnx_ir_version']}. "
        f"Measured {result['date']}.",
        "",
        f"Generated by `python3 bench/pm_bench.py"
        f"{' --quick' if w['quick'] else ''}` (layers={w['layers']}).",
        "",
        *lines,
        "",
        NOTES,
    ]
    return "\n".join(text) + "\n"


def plot(result, path: pathlib.Path) -> None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("pm_bench: matplotlib is not installed; skipping the chart "
              f"(pip install -r {REPO / 'requirements-bench.txt'})")
        return
    p, o = result["pypm"], result["onnxscript"]
    labels = ["PyPM\n(C++-measured)", "PyPM\n(wall)", "onnxscript\n(wall)"]
    values = [p["cpp_seconds_median"], p["wall_seconds_median"], o["rewrite_seconds_median"]]
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    bars = ax.bar(labels, values, color=["#2b6cb0", "#63b3ed", "#dd6b20"])
    ax.set_ylabel("seconds to fixpoint (median of repeats)")
    total = sum(row["pypm"] for row in result["rewrites"])
    ax.set_title(f"Rewriting {result['workload']['nodes']:,} nodes "
                 f"({total:,} rewrites), "
                 f"onnxscript / PyPM wall = "
                 f"{result['summary']['ratio_onnxscript_over_pypm_wall']:.1f}x", fontsize=10)
    for bar, value in zip(bars, values):
        ax.annotate(f"{value:.3f} s", (bar.get_x() + bar.get_width() / 2, value),
                    ha="center", va="bottom", fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    print(f"wrote {path}")


if __name__ == "__main__":
    sys.exit(main())
