"""Checks that two ONNX models compute the same numbers, by running both in ONNX Runtime.

``saturate optimize model.onnx --verify`` calls this as
``python3 -m saturate.onnx_check ORIGINAL OPTIMIZED --json``: both models run on the same random
inputs (floats normal, token ids below their
embedding's size, masks of ones; fixed seed) and the largest absolute and relative differences of every
output are reported. The exit status is 1 on a mismatch, 2 when a model cannot be run.
"""
from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict, dataclass, field

import numpy as np

# Relative error is measured against max(|expected|, this floor) so that outputs near zero do
# not turn rounding noise into huge relative errors.
RELATIVE_FLOOR = 1e-3


@dataclass
class OutputDifference:
    name: str
    max_abs_error: float
    max_rel_error: float


@dataclass
class CheckResult:
    ok: bool
    max_abs_error: float
    max_rel_error: float
    rtol: float
    atol: float
    trials: int
    # False when the original's outputs are not all finite on the random inputs (a model whose
    # values overflow float32): agreement on NaN/inf is then all the check can say.
    outputs_finite: bool = True
    outputs: list[OutputDifference] = field(default_factory=list)


def _session(model):
    import onnxruntime as ort

    options = ort.SessionOptions()
    # Compare the graphs as written: ORT's own graph rewrites must not hide a difference.
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    options.log_severity_level = 3
    if hasattr(model, "SerializeToString"):
        source = model.SerializeToString()
    elif isinstance(model, (bytes, bytearray)):
        source = bytes(model)
    else:
        source = str(model)
    return ort.InferenceSession(source, options, providers=["CPUExecutionProvider"])


_NUMPY_TYPES = {
    "tensor(float)": np.float32,
    "tensor(double)": np.float64,
    "tensor(float16)": np.float16,
    "tensor(int64)": np.int64,
    "tensor(int32)": np.int32,
    "tensor(int16)": np.int16,
    "tensor(int8)": np.int8,
    "tensor(uint8)": np.uint8,
    "tensor(uint16)": np.uint16,
    "tensor(uint32)": np.uint32,
    "tensor(uint64)": np.uint64,
    "tensor(bool)": np.bool_,
}


# Operators that pass their first input's values through unchanged, only re-laid out.
_SAME_VALUES = {"Reshape", "Unsqueeze", "Squeeze", "Flatten", "Identity", "Expand", "Transpose"}


def index_bounds(model) -> dict[str, int]:
    """For each graph input used as Gather indices into a tensor of known shape (token ids into
    an embedding table), the size of the gathered axis: random ids must stay below it."""
    if model is None:
        return {}
    import onnx

    if isinstance(model, (bytes, bytearray)):
        model = onnx.load_from_string(bytes(model))
    elif not hasattr(model, "graph"):
        model = onnx.load(str(model), load_external_data=False)
    graph = model.graph
    dims = {t.name: list(t.dims) for t in graph.initializer}
    for info in list(graph.value_info) + list(graph.input):
        shape = info.type.tensor_type.shape
        if info.name not in dims and all(d.HasField("dim_value") for d in shape.dim):
            dims[info.name] = [d.dim_value for d in shape.dim]
    # The graph input each value merely reshapes (exporters often flatten the ids first).
    origin = {i.name: i.name for i in graph.input}
    bounds: dict[str, int] = {}
    for node in graph.node:
        if node.op_type in _SAME_VALUES and node.input and node.input[0] in origin:
            for output in node.output:
                origin[output] = origin[node.input[0]]
        if node.op_type != "Gather" or len(node.input) < 2 or node.input[1] not in origin:
            continue
        data = dims.get(node.input[0])
        if not data:
            continue
        axis = next((a.i for a in node.attribute if a.name == "axis"), 0)
        size = data[axis % len(data)]
        name = origin[node.input[1]]
        bounds[name] = min(bounds.get(name, size), size)
    return bounds


def random_feeds(session, rng, model=None) -> dict[str, np.ndarray]:
    """Random inputs for every graph input: floats from a normal distribution; integers used as
    Gather indices uniform below the gathered axis's size (token ids), other integers 1 and
    booleans True (attention masks that keep every position)."""
    bounds = index_bounds(model)
    feeds = {}
    for value in session.get_inputs():
        dtype = _NUMPY_TYPES.get(value.type)
        if dtype is None:
            raise ValueError(f"input {value.name} has type {value.type}, which is not fed")
        shape = value.shape
        if any(not isinstance(dim, int) for dim in shape):
            raise ValueError(f"input {value.name} has a dynamic shape {shape}")
        if np.issubdtype(dtype, np.floating):
            feeds[value.name] = rng.standard_normal(shape).astype(dtype)
        elif dtype is np.bool_:
            feeds[value.name] = np.ones(shape, dtype=np.bool_)
        elif value.name in bounds:
            feeds[value.name] = rng.integers(0, max(bounds[value.name], 1), shape).astype(dtype)
        else:
            feeds[value.name] = np.ones(shape, dtype=dtype)
    return feeds


def compare_models(original, optimized, *, seed=0, trials=2, rtol=1e-3, atol=1e-4) -> CheckResult:
    """Runs both models (ModelProto or path) on the same random inputs and compares outputs by
    position (an optimizer keeps the outputs in order) and by name when both have it."""
    first, second = _session(original), _session(optimized)
    names_first = [o.name for o in first.get_outputs()]
    names_second = [o.name for o in second.get_outputs()]
    if len(names_first) != len(names_second):
        raise ValueError(f"the models have {len(names_first)} and {len(names_second)} outputs")
    inputs_first = sorted(i.name for i in first.get_inputs())
    inputs_second = sorted(i.name for i in second.get_inputs())
    if inputs_first != inputs_second:
        raise ValueError(f"the models take different inputs: {inputs_first} and {inputs_second}")
    rng = np.random.default_rng(seed)
    worst = {name: [0.0, 0.0] for name in names_first}
    ok = True
    finite = True
    for _ in range(trials):
        # The optimized model's input shapes: static where --input-shape pinned the original's.
        feeds = random_feeds(second, rng, original)
        expected = first.run(None, feeds)
        actual = second.run(None, feeds)
        for name, want, got in zip(names_first, expected, actual):
            if want.shape != got.shape:
                raise ValueError(f"output {name}: shapes {want.shape} and {got.shape} differ")
            finite = finite and bool(np.all(np.isfinite(want)))
            if not (np.all(np.isfinite(want)) and np.all(np.isfinite(got))):
                ok = ok and bool(np.array_equal(np.isnan(want), np.isnan(got)))
            both = np.isfinite(want) & np.isfinite(got)
            difference = np.abs(want[both].astype(np.float64) - got[both].astype(np.float64))
            scale = np.maximum(np.abs(want[both].astype(np.float64)), RELATIVE_FLOOR)
            abs_error = float(np.max(difference)) if difference.size else 0.0
            rel_error = float(np.max(difference / scale)) if difference.size else 0.0
            worst[name][0] = max(worst[name][0], abs_error)
            worst[name][1] = max(worst[name][1], rel_error)
            ok = ok and bool(np.allclose(got, want, rtol=rtol, atol=atol, equal_nan=True))
    outputs = [OutputDifference(name, *worst[name]) for name in names_first]
    return CheckResult(
        ok=ok,
        max_abs_error=max((o.max_abs_error for o in outputs), default=0.0),
        max_rel_error=max((o.max_rel_error for o in outputs), default=0.0),
        rtol=rtol,
        atol=atol,
        trials=trials,
        outputs_finite=finite,
        outputs=outputs,
    )


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        prog="python3 -m saturate.onnx_check",
        description="Run two ONNX models in ONNX Runtime on the same random inputs and compare.",
    )
    parser.add_argument("original")
    parser.add_argument("optimized")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--trials", type=int, default=2)
    parser.add_argument("--rtol", type=float, default=1e-3)
    parser.add_argument("--atol", type=float, default=1e-4)
    parser.add_argument("--json", action="store_true", help="print the result as one JSON object")
    args = parser.parse_args(argv)
    try:
        result = compare_models(
            args.original,
            args.optimized,
            seed=args.seed,
            trials=args.trials,
            rtol=args.rtol,
            atol=args.atol,
        )
    except ImportError as error:
        print(f"error: ONNX Runtime is not installed ({error}); pip install onnxruntime",
              file=sys.stderr)
        return 2
    except Exception as error:  # ORT raises its own exception types; report them all alike
        print(f"error: cannot compare the models: {error}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(asdict(result)))
    else:
        verdict = "match" if result.ok else "MISMATCH"
        print(f"{verdict}: max abs error {result.max_abs_error:.3g}, "
              f"max rel error {result.max_rel_error:.3g} over {result.trials} trials"
              + ("" if result.outputs_finite else "; outputs not finite on random inputs"))
    return 0 if result.ok else 1


if __name__ == "__main__":
    sys.exit(main())
