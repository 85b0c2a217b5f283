"""Verification of quantized models across rounding flips at their quantizers.

A quantizer (``DynamicQuantizeLinear``, or ``QuantizeLinear`` of a computed tensor) rounds its
float input to an integer grid. Two float computations that agree to the last few bits (a fused
kernel, reassociated arithmetic) can land on different sides of a rounding boundary, and one grid
step, multiplied through the next integer product, moves the outputs by about the quantization
error itself: BERT-base quantized dynamically differed by 0.1 after a sound rewrite. Comparing
outputs alone then cannot tell a flip from a wrong rewrite.

So when the outputs differ and the original computes quantizers, both models are compared segment
by segment: the original runs once with every quantizer's float input and integer outputs
exposed; the optimized model runs with its quantizers cut out, fed the original's integer outputs,
and exposes its own quantizers' float inputs. Every segment between quantizers then starts from
the same integers, and must end at the same floats: at each quantizer's input and at the model's
outputs, within the float32 tolerance scaled by the tensor's range (onnx_check's verdict). A wrong
rewrite anywhere moves some segment's end and fails; a rounding flip moves nothing, since the
segments after it are fed the original's integers.

Quantizers are paired by what they touch that the optimizer keeps by name: their own scale and
zero-point initializers, and the initializers their consumers read with them (the weights of the
``MatMulInteger`` or ``ConvInteger`` they feed). When that does not pair them one to one the
segment check is unavailable and the output verdict stands.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import numpy as np

QUANTIZERS = {"DynamicQuantizeLinear", "QuantizeLinear"}


@dataclass
class Quantizer:
    input: str  # the float tensor it quantizes
    outputs: list[str]  # its integer output, then (DynamicQuantizeLinear) scale and zero point


@dataclass
class SegmentComparison:
    ok: bool
    quantizers: int
    # The largest difference at a quantizer's input and at the outputs, relative to the tensor's
    # range, with the tensor that had it.
    max_rel_error_at_quantizers: float = 0.0
    worst_quantizer_input: str = ""
    max_rel_error_at_outputs: float = 0.0


def _constant_names(graph) -> set[str]:
    names = {tensor.name for tensor in graph.initializer}
    for node in graph.node:
        if node.op_type == "Constant":
            names.update(node.output)
    return names


def computed_quantizers(model) -> dict[tuple, Quantizer]:
    """The model's quantizers of computed tensors, keyed by the initializers they and their
    consumers read; raises ValueError when two share a key (they cannot be told apart)."""
    graph = model.graph
    constants = _constant_names(graph)
    consumers: dict[str, list] = {}
    for node in graph.node:
        for name in node.input:
            consumers.setdefault(name, []).append(node)
    found: dict[tuple, Quantizer] = {}
    for node in graph.node:
        if node.op_type not in QUANTIZERS or not node.input or node.input[0] in constants:
            continue
        own = sorted(name for name in node.input[1:] if name in constants)
        fed = sorted({name for output in node.output for consumer in consumers.get(output, [])
                      for name in consumer.input if name in constants and name not in own})
        key = (node.op_type, tuple(own), tuple(fed))
        if not own and not fed:
            raise ValueError(f"quantizer {node.name or node.output[0]} reads no initializer to "
                             "pair it by")
        if key in found:
            raise ValueError(f"two quantizers read the same initializers ({', '.join(own + fed)})")
        found[key] = Quantizer(node.input[0], [name for name in node.output if name])
    return found


def pair_quantizers(original, optimized) -> list[tuple[Quantizer, Quantizer]]:
    """(original's, optimized's) quantizers, one to one; raises ValueError when they differ."""
    first, second = computed_quantizers(original), computed_quantizers(optimized)
    if set(first) != set(second):
        raise ValueError(f"the models quantize different tensors ({len(first)} and "
                         f"{len(second)} quantizers, {len(set(first) ^ set(second))} unpaired)")
    return [(first[key], second[key]) for key in first]


def _with_outputs(model, names):
    """A copy of `model` that also outputs the tensors `names` (types left to ONNX Runtime)."""
    import onnx

    copy = type(model)()
    copy.CopyFrom(model)
    present = {output.name for output in copy.graph.output}
    for name in names:
        if name not in present:
            copy.graph.output.append(onnx.ValueInfoProto(name=name))
            present.add(name)
    return copy


def _cut_at_quantizers(model, pairs, values):
    """A copy of the optimized `model` whose paired quantizers are removed, their outputs fed as
    graph inputs (typed like the original's `values`) and their inputs exposed as outputs."""
    from onnx import helper

    copy = _with_outputs(model, [ours.input for _, ours in pairs])
    cut = {name for _, ours in pairs for name in ours.outputs}
    kept = [node for node in copy.graph.node if not set(node.output) & cut]
    del copy.graph.node[:]
    copy.graph.node.extend(kept)
    for theirs, ours in pairs:
        for their_name, our_name in zip(theirs.outputs, ours.outputs):
            value = values[their_name]
            copy.graph.input.append(helper.make_tensor_value_info(
                our_name, helper.np_dtype_to_tensor_dtype(value.dtype), list(value.shape)))
    return copy


def _relative_error(want: np.ndarray, got: np.ndarray, rtol: float, atol: float):
    """(within tolerance, max |want - got| / max |want|) over finite elements, NaN where both."""
    want64, got64 = want.astype(np.float64), got.astype(np.float64)
    if want64.shape != got64.shape:
        return False, float("inf")
    if not np.array_equal(np.isnan(want64), np.isnan(got64)):
        return False, float("inf")
    both = np.isfinite(want64) & np.isfinite(got64)
    if not both.any():
        return bool(np.array_equal(want64[~both], got64[~both], equal_nan=True)), 0.0
    difference = float(np.max(np.abs(want64[both] - got64[both])))
    scale = float(np.max(np.abs(want64[both])))
    ok = difference <= atol + rtol * scale
    return ok, difference / scale if scale > 0 else difference


def compare_segments(original, optimized, feeds_list, rtol: float, atol: float,
                     session) -> Optional[SegmentComparison]:
    """The segment comparison (module docstring) on every feed, or None when the original has
    no quantizer of a computed tensor. `original`/`optimized` are ModelProtos; `session` makes
    an ONNX Runtime session from one. Raises ValueError when the quantizers cannot be paired."""
    if not computed_quantizers(original):
        return None
    pairs = pair_quantizers(original, optimized)
    watched = [theirs.input for theirs, _ in pairs] + \
        [name for theirs, _ in pairs for name in theirs.outputs]
    first = session(_with_outputs(original, watched))
    first_names = [output.name for output in first.get_outputs()]
    outputs = [output.name for output in original.graph.output]
    result = SegmentComparison(ok=True, quantizers=len(pairs))
    second = None
    for feeds in feeds_list:
        values = dict(zip(first_names, first.run(None, feeds)))
        if second is None:
            second = session(_cut_at_quantizers(optimized, pairs, values))
            second_outputs = [output.name for output in second.get_outputs()]
            second_inputs = {value.name for value in second.get_inputs()}
        fed = {name: value for name, value in feeds.items() if name in second_inputs}
        for theirs, ours in pairs:
            for their_name, our_name in zip(theirs.outputs, ours.outputs):
                fed[our_name] = values[their_name]
        got = dict(zip(second_outputs, second.run(None, fed)))
        our_outputs = [output.name for output in optimized.graph.output]
        for their_name, our_name in zip(outputs, our_outputs):
            ok, error = _relative_error(values[their_name], got[our_name], rtol, atol)
            result.ok = result.ok and ok
            result.max_rel_error_at_outputs = max(result.max_rel_error_at_outputs, error)
        for theirs, ours in pairs:
            ok, error = _relative_error(values[theirs.input], got[ours.input], rtol, atol)
            result.ok = result.ok and ok
            if error >= result.max_rel_error_at_quantizers:
                result.max_rel_error_at_quantizers = error
                result.worst_quantizer_input = theirs.input
    return result
