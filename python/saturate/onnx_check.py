"""Checks that two ONNX models compute the same numbers, by running both in ONNX Runtime.

``saturate optimize model.onnx --verify`` calls ``compare_models`` in its ONNX Runtime helper
(ort_helper.py, through ort_check.py); ``python3 -m saturate.onnx_check ORIGINAL OPTIMIZED
--json`` does the same from a shell. Both models run on the same random inputs (floats normal,
token ids below their embedding's size, masks of ones; fixed seed).

Precision. An optimizer that folds weights (Wq times Wk transposed into one weight) changes where
float32 rounds, and a model that amplifies rounding (softmax over logits of magnitude 40) then
differs from the original by more than any fixed float32 tolerance, although both compute the
same function. So both models are first converted to float64 (float32 initializers, inputs,
outputs, value types, Cast targets and Constant values) and run on the same inputs in double;
the folded weights stay rounded to float32 once, which float64 arithmetic does not amplify.
When ONNX Runtime has no double kernel for some operator of either model (the session cannot be
created or run), the comparison runs in float32.

Verdict. Each output passes when every element satisfies |a - b| <= atol + rtol * max|a|, a
being the original's output: the tolerance scales with the output's range, not with each
element (an element near zero must not turn rounding noise into a huge relative error). The
tolerances depend on the precision used (float64: rtol 1e-4, atol 1e-9; float32: rtol 1e-3,
atol 1e-5); a wrong rewrite (a swapped operand, a dropped bias) moves outputs by a sizable
fraction of their range and fails either way. NaN must be NaN in both models.

Quantized models. When the outputs differ and the original quantizes computed tensors
(DynamicQuantizeLinear, QuantizeLinear), last-bit differences may have flipped roundings at a
quantizer: the models are then compared segment by segment from the original's integers
(quantized_check.py), and pass only when every segment matches; the result's ``policy`` says which
comparison decided.

16-bit models. A model that computes in float16 or bfloat16 (a 16-bit initializer, value, Cast
target or Constant) rounds every operator's result to 11 or 8 significant bits, so two correct
models differ by far more than any float32 tolerance. Both then run as written and are measured
against a reference: the original with its 16-bit and float32 values widened to float64 (or to
float32 when ONNX Runtime has no double kernel for one of its operators). The optimized model
passes when each output's largest error against the reference is at most ERROR_BUDGET_FACTOR
times the original's own, plus the float32 tolerance of the reference's range: it may not be
much less accurate than the model it replaces. The check resolves what the original's rounding
does not hide (about 1e-3 of the range in float16, 1e-2 in bfloat16); a wrong rewrite moves
outputs by more and fails. Asking for a precision or for rtol/atol compares the outputs directly
instead. The result's ``policy`` names the reference.

The exit status is 0 on a match, 1 on a mismatch, 2 when a model cannot be run.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from dataclasses import asdict, dataclass, field
from typing import Optional

import numpy as np

# Tolerances by precision: (rtol relative to the output's range max|a|, atol).
TOLERANCES = {"float64": (1e-4, 1e-9), "float32": (1e-3, 1e-5),
              # Only when no widened reference of a 16-bit model can run (see the docstring).
              "float16": (1e-2, 1e-4), "bfloat16": (6e-2, 1e-3)}
# The error budget: the optimized 16-bit model's error against the reference may be this many
# times the original's own, plus the float32 tolerance.
ERROR_BUDGET_FACTOR = 2.0
# Models with more float32 weights than this are compared in float32: a float64 copy of both
# would double their memory.
FLOAT64_WEIGHT_LIMIT_BYTES = 1 << 30


@dataclass
class OutputDifference:
    name: str
    max_abs_error: float
    # max_abs_error / max|a|: the error relative to the original output's range.
    max_rel_error: float
    range: float = 0.0  # max|a| over the original's finite outputs
    tolerance: float = 0.0  # atol + rtol * range, the largest difference allowed
    ok: bool = True
    # Under the error budget (16-bit models): the original's own largest error against the
    # widened reference; max_abs_error is then the optimized model's error against it.
    original_error: Optional[float] = None


@dataclass
class CheckResult:
    ok: bool
    max_abs_error: float
    # The largest error relative to its output's range (see OutputDifference).
    max_rel_error: float
    rtol: float
    atol: float
    trials: int
    # False when the original's outputs are not all finite on the random inputs (a model whose
    # values overflow float32): agreement on NaN/inf is then all the check can say.
    outputs_finite: bool = True
    outputs: list[OutputDifference] = field(default_factory=list)
    precision: str = "float32"  # "float64" or "float32": the arithmetic both models ran in
    # Why float64 was not used (an operator without a double kernel), or None.
    float64_unavailable: Optional[str] = None
    # The input shapes the models ran at (input name -> dims), one entry per assignment of the
    # models' dynamic dimensions asked for (one: the declared static shapes when none was), each
    # run for `trials` random inputs; every assignment must match.
    shapes: list[dict[str, list[int]]] = field(default_factory=list)
    # Optional assignments left out because the original model itself fails at them: each
    # {"shapes": {input: dims}, "error": ONNX Runtime's message}.
    skipped_shapes: list[dict] = field(default_factory=list)
    # "outputs": the outputs matched. "segments between quantizers": they did not, and the
    # original quantizes computed tensors, so every segment between quantizers was compared from
    # the same integers (quantized_check.py) and matched: the outputs differ by rounding flips.
    policy: str = "outputs"
    # That comparison's numbers (quantized_check.SegmentComparison), when it ran.
    quantized_segments: Optional[dict] = None
    # Why it could not run (quantizers that cannot be paired), or None.
    quantized_segments_unavailable: Optional[str] = None
    # Under the error budget: "float64" or "float32", the precision the original ran in as the
    # reference both 16-bit models' errors were measured against; None otherwise.
    reference: Optional[str] = None
    # Under the error budget: ERROR_BUDGET_FACTOR.
    error_budget_factor: Optional[float] = None


def _session(model):
    import onnxruntime as ort

    options = ort.SessionOptions()
    # Compare the graphs as written: ORT's own graph rewrites must not hide a difference.
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    options.log_severity_level = 3
    # A check runs each model a few times: a second, pre-packed copy of the weights would only
    # cost memory.
    options.add_session_config_entry("session.disable_prepacking", "1")
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


def feed_shapes(session, shapes=None) -> dict[str, list[int]]:
    """The shape fed to each of the session's inputs: ``shapes[name]`` where given (a concrete
    assignment of the model's dynamic dimensions, such as ``--input-shape``'s pins), else the
    shape the session declares, which must then be static. A given shape must have the declared
    rank and agree with every dimension the session fixes; raises ValueError naming the input
    otherwise, and for a name that is no input of the session."""
    shapes = shapes or {}
    inputs = session.get_inputs()
    names = {value.name for value in inputs}
    unknown = sorted(set(shapes) - names)
    if unknown:
        raise ValueError(f"input shapes are given for {', '.join(unknown)}, which the model "
                         f"does not take (its inputs: {', '.join(v.name for v in inputs)})")
    result = {}
    for value in inputs:
        declared = value.shape
        if value.name not in shapes:
            if not _is_static(declared):
                raise ValueError(f"input {value.name} has a dynamic shape {declared}; give its "
                                 f"shape (--input-shape {value.name}=D1,D2,...)")
            result[value.name] = list(declared)
            continue
        given = [int(dim) for dim in shapes[value.name]]
        if declared is not None and len(given) != len(declared):
            raise ValueError(f"input {value.name}: the shape {given} has {len(given)} "
                             f"dimensions, the model declares {len(declared)} ({declared})")
        for axis, (dim, want) in enumerate(zip(given, declared or [])):
            if dim < 0:
                raise ValueError(f"input {value.name}: dimension {axis} is {dim}, negative")
            if isinstance(want, int) and want >= 0 and dim != want:
                raise ValueError(f"input {value.name}: the shape {given} sets dimension {axis} "
                                 f"to {dim}, but the model fixes it at {want} ({declared})")
        result[value.name] = given
    return result


def random_feeds(session, rng, model=None, shapes=None, bounds=None) -> dict[str, np.ndarray]:
    """Random inputs for every graph input: floats from a normal distribution; integers used as
    Gather indices uniform below the gathered axis's size (token ids), other integers 1 and
    booleans True (attention masks that keep every position). ``shapes`` (input name -> dims)
    gives the shapes of inputs whose declared dimensions are dynamic; see feed_shapes.
    ``bounds`` is ``index_bounds(model)`` when the caller has it already."""
    if bounds is None:
        bounds = index_bounds(model)
    fed = feed_shapes(session, shapes)
    feeds = {}
    for value in session.get_inputs():
        dtype = _NUMPY_TYPES.get(value.type)
        if dtype is None:
            raise ValueError(f"input {value.name} has type {value.type}, which is not fed")
        shape = fed[value.name]
        if np.issubdtype(dtype, np.floating):
            feeds[value.name] = rng.standard_normal(shape).astype(dtype)
        elif dtype is np.bool_:
            feeds[value.name] = np.ones(shape, dtype=np.bool_)
        elif value.name in bounds:
            feeds[value.name] = rng.integers(0, max(bounds[value.name], 1), shape).astype(dtype)
        else:
            feeds[value.name] = np.ones(shape, dtype=dtype)
    return feeds


def parse_input_shape(text: str) -> tuple[str, list[int]]:
    """``NAME=D1,D2,...`` (the program's --input-shape) as (NAME, [D1, D2, ...])."""
    name, _, dims = text.rpartition("=")
    try:
        values = [int(d) for d in dims.split(",")]
    except ValueError:
        values = []
    if not name or not values or any(d <= 0 for d in values):
        raise ValueError(f"--input-shape '{text}' is not NAME=D1,D2,... with positive dims")
    return name, values


def _load_model(model, with_data=True):
    """An onnx.ModelProto (with its external data unless not `with_data`) from a ModelProto,
    bytes or a path."""
    import onnx

    if hasattr(model, "SerializeToString"):
        return model
    if isinstance(model, (bytes, bytearray)):
        return onnx.load_from_string(bytes(model))
    return onnx.load(str(model), load_external_data=with_data)


def _graphs(graph):
    """The graph and every subgraph in its nodes' attributes (If, Loop, Scan bodies)."""
    yield graph
    for node in graph.node:
        for attribute in node.attribute:
            if attribute.HasField("g"):
                yield from _graphs(attribute.g)
            for subgraph in attribute.graphs:
                yield from _graphs(subgraph)


# ONNX element types (TensorProto.DataType values): float, float16, double, bfloat16.
_FLOAT, _FLOAT16, _DOUBLE, _BFLOAT16 = 1, 10, 11, 16
_NUMPY_OF = {_FLOAT: np.float32, _DOUBLE: np.float64}
# The 16-bit float types by the names results and messages give them.
_REDUCED = {_FLOAT16: "float16", _BFLOAT16: "bfloat16"}


def _float_weight_bytes(model, sources=(_FLOAT,)) -> int:
    """The bytes the weights of the types in ``sources`` would take as float32 (the measure
    FLOAT64_WEIGHT_LIMIT_BYTES is in)."""
    total = 0
    for graph in _graphs(model.graph):
        for tensor in graph.initializer:
            if tensor.data_type in sources:
                total += 4 * int(np.prod(tensor.dims, dtype=np.int64))
    return total


def _tensor_to(tensor, target, base_dir=""):
    from onnx import numpy_helper

    converted = numpy_helper.from_array(
        numpy_helper.to_array(tensor, base_dir).astype(_NUMPY_OF[target]), tensor.name)
    tensor.CopyFrom(converted)


def to_float64(model, in_place=False, sources=(_FLOAT,), target=_DOUBLE):
    """A copy of the model (or the model itself, `in_place`) that computes in float64 wherever it
    computed in float32: float32 initializers, graph inputs, outputs, value types, Cast/CastLike
    targets and Constant (or ConstantOfShape) values become double. Other element types are
    kept. ``sources`` and ``target`` widen other float types (float16 and bfloat16 to float32
    or float64: the reference a reduced-precision model is measured against)."""
    if in_place:
        copy = model
    else:
        copy = type(model)()
        copy.CopyFrom(model)
    for graph in _graphs(copy.graph):
        for tensor in graph.initializer:
            if tensor.data_type in sources:
                _tensor_to(tensor, target)
        for info in list(graph.input) + list(graph.output) + list(graph.value_info):
            if info.type.tensor_type.elem_type in sources:
                info.type.tensor_type.elem_type = target
        for node in graph.node:
            for attribute in node.attribute:
                if node.op_type == "Cast" and attribute.name == "to" and attribute.i in sources:
                    attribute.i = target
                if attribute.HasField("t") and attribute.t.data_type in sources:
                    _tensor_to(attribute.t, target)
    return copy


def reduced_precision(model) -> Optional[str]:
    """"float16" or "bfloat16" when the model computes in a 16-bit float type (an initializer,
    a value, a Cast target or a Constant of that type; bfloat16 wins when both appear), else
    None. Read without the weights' data."""
    return _reduced_in(_load_model(model, with_data=False).graph)


def _reduced_in(main_graph) -> Optional[str]:
    found = set()
    for graph in _graphs(main_graph):
        found.update(t.data_type for t in graph.initializer)
        for info in list(graph.input) + list(graph.output) + list(graph.value_info):
            found.add(info.type.tensor_type.elem_type)
        for node in graph.node:
            for attribute in node.attribute:
                if node.op_type == "Cast" and attribute.name == "to":
                    found.add(attribute.i)
                if attribute.HasField("t"):
                    found.add(attribute.t.data_type)
    for elem_type in (_BFLOAT16, _FLOAT16):
        if elem_type in found:
            return _REDUCED[elem_type]
    return None


def _ops_without_double_kernel(model) -> list[str]:
    """The model's operators for which ONNX Runtime's CPU provider has no kernel taking double
    (fused com.microsoft kernels, quantizers): converting such a model to float64 would cost
    twice its weights in memory only to fail. Empty when ONNX Runtime cannot list its kernels."""
    try:
        from onnxruntime.capi import _pybind_state

        kernels = _pybind_state.get_all_opkernel_def()
    except Exception:  # an ONNX Runtime without the listing: let session creation decide
        return []
    def taking(type_name):
        return {(kernel.domain or "", kernel.op_name) for kernel in kernels
                if kernel.provider == "CPUExecutionProvider" and any(
                    type_name in types for types in kernel.type_constraints.values())}

    # Only operators that compute on floats matter (And on booleans never sees a double).
    with_float, with_double = taking("tensor(float)"), taking("tensor(double)")
    missing = []
    for graph in _graphs(model.graph):
        for node in graph.node:
            key = ("" if node.domain in ("", "ai.onnx") else node.domain, node.op_type)
            name = ".".join(part for part in key if part)
            if key in with_float and key not in with_double and name not in missing:
                missing.append(name)
    return missing


def _weights_to_float64(model, base_dir: str = "", sources=(_FLOAT,),
                       target=_DOUBLE) -> tuple[list[str], list[np.ndarray]]:
    """The main graph's float32 initializers as float64 arrays, each made a graph input of the
    model that the check feeds with every run: ONNX Runtime reads a fed array where it lies,
    while an initializer (even one handed over as an OrtValue) is copied into the session. The
    float32 weights are read tensor by tensor (external data too, from `base_dir`), never whole
    in memory beside the float64 ones. Graphs run as written (no graph optimization), so a
    weight that is an input computes exactly as the initializer did."""
    from onnx import TensorProto, external_data_helper, helper, numpy_helper

    graph = model.graph
    declared = {value.name for value in graph.input}
    names, arrays, kept = [], [], []
    for tensor in graph.initializer:
        if tensor.data_type not in sources:
            kept.append(tensor)
            continue
        arrays.append(numpy_helper.to_array(tensor, base_dir).astype(_NUMPY_OF[target]))
        names.append(tensor.name)
        if tensor.name not in declared:  # an IR < 4 model lists its initializers as inputs
            graph.input.append(helper.make_tensor_value_info(tensor.name, target,
                                                             list(tensor.dims)))
        else:  # declared as an input of the weight's own type: it is fed widened now
            for value in graph.input:
                if value.name == tensor.name:
                    value.type.tensor_type.elem_type = target
    remaining = [type(tensor)() for tensor in kept]
    for copy, tensor in zip(remaining, kept):
        copy.CopyFrom(tensor)
    del graph.initializer[:]
    graph.initializer.extend(remaining)
    for subgraph in list(_graphs(graph))[1:]:  # subgraphs' weights: converted in the model
        for tensor in subgraph.initializer:
            if tensor.data_location == TensorProto.EXTERNAL:
                external_data_helper.load_external_data_for_tensor(tensor, base_dir)
    return names, arrays


def _outputs_on(model, feeds_list, in_float64=False, sources=(_FLOAT,), target=_DOUBLE):
    """One model's outputs on every feed, its session made and dropped here: the two models of a
    check are never in memory at once (a float64 copy of a model doubles its weights).
    ``in_float64`` runs it widened: the float types in ``sources`` become ``target``."""
    weights = {}
    if in_float64:
        ours = not hasattr(model, "SerializeToString")  # loaded here: converted where it lies
        base_dir = ""
        if ours and not isinstance(model, (bytes, bytearray)):
            import onnx  # a path: its external data is read weight by weight, as converted

            base_dir = os.path.dirname(os.path.abspath(str(model)))
            proto = onnx.load(str(model), load_external_data=False)
        else:
            proto = _load_model(model)
        if _float_weight_bytes(proto, sources) > FLOAT64_WEIGHT_LIMIT_BYTES:
            raise MemoryError("the weights are too large for a float64 copy")
        missing = _ops_without_double_kernel(proto) if target == _DOUBLE else []
        if missing:
            raise ValueError(f"ONNX Runtime has no double kernel for {', '.join(missing[:3])}")
        if not ours:  # a copy: the caller's model is not touched
            copy = type(proto)()
            copy.CopyFrom(proto)
            proto = copy
        weights = dict(zip(*_weights_to_float64(proto, base_dir, sources, target)))
        # Its weights are inputs now.
        model = to_float64(proto, in_place=True, sources=sources,
                           target=target).SerializeToString()
        del proto
    session = _session(model)
    del model
    # A float input is fed in the type this model declares: double once widened, float16 where
    # a float16 conversion takes what the other model takes as float32 (the same values).
    declared = {value.name: _NUMPY_TYPES.get(value.type) for value in session.get_inputs()}

    def typed(feeds):
        return {name: value.astype(declared[name])
                if declared.get(name) is not None and value.dtype != declared[name]
                and np.issubdtype(value.dtype, np.floating) else value
                for name, value in feeds.items()}

    return [session.run(None, {**typed(feeds), **weights}) for feeds in feeds_list]


def _widened_reference(original, feeds_list):
    """(precision, outputs, why float64 was not used): the 16-bit original run with its 16-bit
    (and float32) values widened to float64, or to float32 when ONNX Runtime has no double
    kernel for one of its operators; (None, None, reason) when neither runs."""
    why = None
    for sources, target, name in (((_FLOAT, _FLOAT16, _BFLOAT16), _DOUBLE, "float64"),
                                  ((_FLOAT16, _BFLOAT16), _FLOAT, "float32")):
        try:
            return name, _outputs_on(original, feeds_list, True, sources, target), why
        except Exception as error:  # no kernel in the wider type: try the next
            reason = str(error).strip().splitlines()
            why = why or (reason[0] if reason else type(error).__name__)
    return None, None, why


def _direct_outputs(outputs, original, optimized, rtol, atol) -> bool:
    """Fills `outputs` comparing both models' runs directly: each element within atol + rtol *
    max|original|, NaN and infinities alike, non-float outputs equal. Returns whether the
    original's outputs were all finite."""
    finite = True
    for expected, actual in zip(original, optimized):
        for output, want, got in zip(outputs, expected, actual):
            if want.shape != got.shape:
                raise ValueError(
                    f"output {output.name}: shapes {want.shape} and {got.shape} differ")
            if not np.issubdtype(want.dtype, np.number) or want.dtype == np.bool_:
                output.ok = output.ok and bool(np.array_equal(want, got))
                continue
            want64, got64 = want.astype(np.float64), got.astype(np.float64)
            finite = finite and bool(np.all(np.isfinite(want64)))
            if not (np.all(np.isfinite(want64)) and np.all(np.isfinite(got64))):
                # Where one is NaN the other must be, and infinities must agree.
                same = np.array_equal(np.isnan(want64), np.isnan(got64)) and np.array_equal(
                    want64[np.isinf(want64)], got64[np.isinf(want64)])
                output.ok = output.ok and bool(same)
            both = np.isfinite(want64) & np.isfinite(got64)
            difference = np.abs(want64[both] - got64[both])
            abs_error = float(np.max(difference)) if difference.size else 0.0
            scale = float(np.max(np.abs(want64[both]))) if difference.size else 0.0
            output.max_abs_error = max(output.max_abs_error, abs_error)
            output.range = max(output.range, scale)
            tolerance = atol + rtol * scale
            output.tolerance = max(output.tolerance, tolerance)
            output.ok = output.ok and abs_error <= tolerance
    return finite


def _budget_outputs(outputs, reference, original, optimized, rtol, atol) -> bool:
    """Fills `outputs` under the error budget: each output's error is the optimized model's
    largest difference from the reference, allowed ERROR_BUDGET_FACTOR times the original's own
    plus the float32 tolerance of the reference's range. Returns whether the reference's outputs
    were all finite."""
    finite = True
    for wanted, first, second in zip(reference, original, optimized):
        for output, want, base, got in zip(outputs, wanted, first, second):
            if want.shape != got.shape or base.shape != got.shape:
                raise ValueError(f"output {output.name}: shapes {base.shape} and {got.shape} "
                                 "differ")
            if not np.issubdtype(base.dtype, np.floating):  # ids, masks: equal or wrong
                output.ok = output.ok and bool(np.array_equal(base, got))
                continue
            want64, base64, got64 = (a.astype(np.float64) for a in (want, base, got))
            finite = finite and bool(np.all(np.isfinite(want64)))
            # Where the 16-bit original is finite the optimized model must agree on NaN/inf.
            if not np.array_equal(np.isnan(base64), np.isnan(got64)) or not np.array_equal(
                    base64[np.isinf(base64)], got64[np.isinf(base64)]):
                output.ok = False
            both = np.isfinite(want64) & np.isfinite(base64) & np.isfinite(got64)
            own = float(np.max(np.abs(base64[both] - want64[both]))) if both.any() else 0.0
            error = float(np.max(np.abs(got64[both] - want64[both]))) if both.any() else 0.0
            scale = float(np.max(np.abs(want64[both]))) if both.any() else 0.0
            output.original_error = max(output.original_error or 0.0, own)
            output.max_abs_error = max(output.max_abs_error, error)
            output.range = max(output.range, scale)
            tolerance = ERROR_BUDGET_FACTOR * own + atol + rtol * scale
            output.tolerance = max(output.tolerance, tolerance)
            output.ok = output.ok and error <= tolerance
    return finite


def _in_float64(original, optimized, feeds_list):
    """Both models' outputs in float64, or (None, reason) when ONNX Runtime cannot run them in
    double (an operator without a double kernel, a model too large to copy)."""
    try:
        # The optimized model first: its fused kernels are the ones that may lack a double
        # kernel, and then the original is never converted.
        second = _outputs_on(optimized, feeds_list, in_float64=True)
        return [_outputs_on(original, feeds_list, in_float64=True), second], None
    except Exception as error:  # ORT raises its own types: no kernel, a type it rejects
        reason = str(error).strip().splitlines()
        return None, reason[0] if reason else type(error).__name__


def _compare_quantized_segments(original, optimized, feeds_list):
    """(quantized_check.SegmentComparison or None, why it could not run or None): the segment
    comparison of models whose outputs differ, in float32; None when the original quantizes no
    computed tensor."""
    from saturate import quantized_check

    rtol, atol = TOLERANCES["float32"]
    try:
        comparison = quantized_check.compare_segments(
            _load_model(original), _load_model(optimized), feeds_list, rtol, atol, _session)
    except Exception as error:  # unpaired quantizers, or a cut model ORT rejects
        reason = str(error).strip().splitlines()
        return None, reason[0] if reason else type(error).__name__
    return comparison, None


@dataclass
class _ValueInfo:
    name: str
    type: str  # as ONNX Runtime names it: "tensor(float)"
    shape: Optional[list]  # ints, dim_param names, None for an unknown dimension


class _Signature:
    """What a session's get_inputs() and get_outputs() say of a model, read from the model
    itself, without its weights: what to feed is learned without loading them into a session
    (two sessions at once held the weights of both models twice over)."""

    def __init__(self, model):
        import onnx
        from onnx import TensorProto

        if hasattr(model, "SerializeToString"):
            graph = model.graph
        elif isinstance(model, (bytes, bytearray)):
            graph = onnx.load_from_string(bytes(model)).graph
        else:
            graph = onnx.load(str(model), load_external_data=False).graph

        def info(value) -> _ValueInfo:
            kind = value.type.WhichOneof("value")
            if kind != "tensor_type":
                return _ValueInfo(value.name, kind or "unknown", None)
            tensor = value.type.tensor_type
            element = TensorProto.DataType.Name(tensor.elem_type).lower()
            shape = None
            if tensor.HasField("shape"):
                shape = [dim.dim_value if dim.HasField("dim_value") else
                         (dim.dim_param if dim.HasField("dim_param") else None)
                         for dim in tensor.shape.dim]
            return _ValueInfo(value.name, f"tensor({element})", shape)

        weights = {tensor.name for tensor in graph.initializer}
        self._inputs = [info(value) for value in graph.input if value.name not in weights]
        self._outputs = [info(value) for value in graph.output]
        self.reduced = _reduced_in(graph)  # reduced_precision's answer, from the graph read here

    def get_inputs(self) -> list:
        return self._inputs

    def get_outputs(self) -> list:
        return self._outputs


def _is_static(shape) -> bool:
    return shape is not None and all(isinstance(dim, int) and dim >= 0 for dim in shape)


def common_feed_shapes(first, second, assignment) -> dict[str, list[int]]:
    """The input shapes both sessions are fed at one assignment: the assignment's, and for the
    inputs it leaves out the shape either model declares static (the optimized model's first:
    the original may keep dimensions dynamic that --input-shape pinned in the optimized one).
    Raises ValueError when they do not suit both models."""
    given = {name: list(dims) for name, dims in (assignment or {}).items()}
    for session in (second, first):
        for value in session.get_inputs():
            if value.name not in given and _is_static(value.shape):
                given[value.name] = list(value.shape)
    fed = feed_shapes(first, given)
    feed_shapes(second, fed)
    return fed


def compare_models(original, optimized, *, seed=0, trials=2, rtol=None, atol=None,
                   precision="auto", input_shapes=None, required=None) -> CheckResult:
    """Runs both models (ModelProto, bytes or path) on the same random inputs and compares
    outputs by position (an optimizer keeps the outputs in order). ``precision`` is "auto"
    (float64 when ONNX Runtime can run both models in double, else float32), "float64" or
    "float32"; ``rtol``/``atol`` override the precision's tolerances (see the module
    docstring). ``input_shapes``: a list of assignments (input name -> dims) of the models'
    dynamic input dimensions; the comparison runs ``trials`` random inputs at every one of them
    (None or empty: once, at the declared shapes, which must then be static). Assignments after
    the first ``required`` (None: all required) are probes: one the original model fails at is
    left out and listed in ``skipped_shapes``, never counted as a pass."""
    # What the models take and give, read from the models; they run for the verdict one at a
    # time, and the original in a session of its own only to probe sizes.
    first, second = _Signature(original), _Signature(optimized)
    names_first = [o.name for o in first.get_outputs()]
    names_second = [o.name for o in second.get_outputs()]
    if len(names_first) != len(names_second):
        raise ValueError(f"the models have {len(names_first)} and {len(names_second)} outputs")
    inputs_first = sorted(i.name for i in first.get_inputs())
    inputs_second = sorted(i.name for i in second.get_inputs())
    if inputs_first != inputs_second:
        raise ValueError(f"the models take different inputs: {inputs_first} and {inputs_second}")
    rng = np.random.default_rng(seed)
    bounds = index_bounds(original)
    assignments = list(input_shapes) if input_shapes else [None]
    required = len(assignments) if required is None else int(required)
    shapes, feeds_list, skipped = [], [], []
    probe = None
    for index, assignment in enumerate(assignments):
        fed = common_feed_shapes(first, second, assignment)
        feeds = [random_feeds(second, rng, shapes=fed, bounds=bounds) for _ in range(trials)]
        if index >= required:
            probe = probe or _session(original)
            try:
                probe.run(None, feeds[0])
            except Exception as error:  # the original rejects these sizes: not a check
                skipped.append({"shapes": fed, "error": str(error).splitlines()[0][:300]})
                continue
        shapes.append(fed)
        feeds_list += feeds
    reduced = None if precision != "auto" or (rtol is not None or atol is not None) else (
        first.reduced or second.reduced)
    del first, second, probe
    results, unavailable = None, None
    reference, reference_outputs = None, None
    if reduced is not None:
        # Both models compute in 16 bits: each is measured against the original run widened,
        # and the optimized one may not be much less accurate (the module docstring).
        results = [_outputs_on(original, feeds_list), _outputs_on(optimized, feeds_list)]
        reference, reference_outputs, unavailable = _widened_reference(original, feeds_list)
    elif precision in ("auto", "float64"):
        results, unavailable = _in_float64(original, optimized, feeds_list)
        if results is None and precision == "float64":
            raise ValueError(f"cannot run the models in float64: {unavailable}")
    used = "float64" if results is not None and reduced is None else (reduced or "float32")
    if results is None:
        results = [_outputs_on(original, feeds_list), _outputs_on(optimized, feeds_list)]
    default_rtol, default_atol = TOLERANCES["float32" if reference else used]
    rtol = default_rtol if rtol is None else rtol
    atol = default_atol if atol is None else atol

    outputs = [OutputDifference(name, 0.0, 0.0) for name in names_first]
    if reference_outputs is not None:
        finite = _budget_outputs(outputs, reference_outputs, *results, rtol, atol)
    else:
        finite = _direct_outputs(outputs, *results, rtol, atol)
    for output in outputs:
        # An output that is all zeros in the original: its error is absolute (JSON has no inf).
        output.max_rel_error = (output.max_abs_error / output.range if output.range > 0
                                else output.max_abs_error)
    ok = all(output.ok for output in outputs)
    policy, segments, segments_unavailable = "outputs", None, None
    if reference is not None:
        policy = f"error budget against a {reference} reference"
    if not ok and reference is None:
        segments, segments_unavailable = _compare_quantized_segments(original, optimized,
                                                                     feeds_list)
        if segments is not None and segments.ok:
            ok, policy = True, "segments between quantizers"
    return CheckResult(
        ok=ok,
        policy=policy,
        quantized_segments=asdict(segments) if segments is not None else None,
        quantized_segments_unavailable=segments_unavailable,
        max_abs_error=max((o.max_abs_error for o in outputs), default=0.0),
        max_rel_error=max((o.max_rel_error for o in outputs), default=0.0),
        rtol=rtol,
        atol=atol,
        trials=trials,
        outputs_finite=finite,
        outputs=outputs,
        precision=used,
        float64_unavailable=unavailable,
        reference=reference,
        error_budget_factor=ERROR_BUDGET_FACTOR if reference else None,
        shapes=shapes,
        skipped_shapes=skipped,
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
    parser.add_argument("--rtol", type=float, default=None,
                        help="relative to each output's range (default: by precision)")
    parser.add_argument("--atol", type=float, default=None)
    parser.add_argument("--precision", choices=["auto", "float64", "float32"], default="auto")
    parser.add_argument("--input-shape", action="append", default=[], metavar="NAME=D1,D2,...",
                        help="the shape fed to an input with dynamic dimensions (repeatable)")
    parser.add_argument("--json", action="store_true", help="print the result as one JSON object")
    args = parser.parse_args(argv)
    try:
        pins = dict(parse_input_shape(text) for text in args.input_shape)
        result = compare_models(
            args.original,
            args.optimized,
            seed=args.seed,
            trials=args.trials,
            rtol=args.rtol,
            atol=args.atol,
            precision=args.precision,
            input_shapes=[pins] if pins else None,
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
        print(f"{verdict} ({result.precision}): max abs error {result.max_abs_error:.3g}, "
              f"{result.max_rel_error:.3g} of the output range over {result.trials} trials"
              + ("" if result.outputs_finite else "; outputs not finite on random inputs"))
        for output in result.outputs:
            print(f"  {output.name}: max abs error {output.max_abs_error:.3g}, range "
                  f"{output.range:.3g}, allowed {output.tolerance:.3g}"
                  + ("" if output.ok else "  MISMATCH"))
    return 0 if result.ok else 1


if __name__ == "__main__":
    sys.exit(main())
