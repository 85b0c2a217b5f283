"""Verification of quantized models (saturate.quantized_check through onnx_check.compare_models):
a sound rewrite whose last-bit differences flip roundings at a quantizer passes, segment by
segment; a wrong rewrite before or after the quantizer fails; quantizers that cannot be paired
leave the output verdict as it was."""
import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from saturate import onnx_check, quantized_check

ROWS, DEPTH, WIDTH = 64, 128, 64


def quantized_model(before_quantizer, bias_shift=0.0, weight_name="W"):
    """x -> before_quantizer nodes -> DynamicQuantizeLinear -> MatMulInteger(W) -> scale -> + b.
    `before_quantizer` is a list of (op, [inputs], output) after x, ending in "q_in"."""
    rng = np.random.default_rng(7)
    weights = rng.integers(-127, 128, size=(DEPTH, WIDTH), dtype=np.int8)
    initializers = [
        numpy_helper.from_array(weights, weight_name),
        numpy_helper.from_array(np.array(0, np.int8), weight_name + "_zero_point"),
        numpy_helper.from_array(np.array(0.01, np.float32), "w_scale"),
        numpy_helper.from_array(np.array(1024, np.float32), "big"),
        numpy_helper.from_array(np.array(1.01, np.float32), "wrong"),
        numpy_helper.from_array(rng.normal(size=WIDTH).astype(np.float32) + bias_shift, "b"),
    ]
    nodes = [helper.make_node(op, inputs, [output]) for op, inputs, output in before_quantizer]
    nodes += [
        helper.make_node("DynamicQuantizeLinear", ["q_in"], ["q", "q_scale", "q_zp"]),
        helper.make_node("MatMulInteger", ["q", weight_name, "q_zp", weight_name + "_zero_point"],
                         ["acc"]),
        helper.make_node("Cast", ["acc"], ["acc_f"], to=TensorProto.FLOAT),
        helper.make_node("Mul", ["acc_f", "q_scale"], ["scaled"]),
        helper.make_node("Mul", ["scaled", "w_scale"], ["product"]),
        helper.make_node("Add", ["product", "b"], ["y"]),
    ]
    graph = helper.make_graph(
        nodes, "quantized",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [ROWS, DEPTH])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [ROWS, WIDTH])], initializers)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model


# (x + 1024) - 1024 rounds x to multiples of 2^-13: the same numbers to float32's tolerance,
# but about 30 of the 8,192 values then round to the other neighbour at the quantizer.
ORIGINAL = [("Add", ["x", "big"], "shifted"), ("Sub", ["shifted", "big"], "q_in")]
SOUND = [("Identity", ["x"], "q_in")]
WRONG_BEFORE = [("Mul", ["x", "wrong"], "q_in")]


def test_rounding_flips_at_a_quantizer_pass_segment_by_segment():
    result = onnx_check.compare_models(quantized_model(ORIGINAL), quantized_model(SOUND))
    assert result.ok, result
    # The outputs alone differ beyond the tolerance: this case needs the segment comparison.
    assert not result.outputs[0].ok
    assert result.policy == "segments between quantizers"
    segments = result.quantized_segments
    assert segments["quantizers"] == 1 and segments["worst_quantizer_input"] == "q_in"
    assert segments["max_rel_error_at_quantizers"] < 1e-4


def test_a_wrong_rewrite_before_the_quantizer_fails():
    result = onnx_check.compare_models(quantized_model(ORIGINAL), quantized_model(WRONG_BEFORE))
    assert not result.ok
    assert result.policy == "outputs"
    assert result.quantized_segments["max_rel_error_at_quantizers"] > 5e-3


def test_a_wrong_rewrite_after_the_quantizer_fails():
    result = onnx_check.compare_models(quantized_model(ORIGINAL),
                                       quantized_model(SOUND, bias_shift=0.05))
    assert not result.ok
    assert result.quantized_segments["max_rel_error_at_outputs"] > 1e-3


def test_quantizers_that_cannot_be_paired_leave_the_output_verdict():
    result = onnx_check.compare_models(quantized_model(ORIGINAL),
                                       quantized_model(SOUND, weight_name="W_renamed"))
    assert not result.ok
    assert result.quantized_segments is None
    assert "quantize different tensors" in result.quantized_segments_unavailable


def test_identical_models_pass_on_their_outputs():
    model = quantized_model(ORIGINAL)
    result = onnx_check.compare_models(model, model)
    assert result.ok and result.policy == "outputs" and result.quantized_segments is None


def test_two_quantizers_reading_the_same_initializers_cannot_be_told_apart():
    model = quantized_model(SOUND)
    twin = helper.make_node("DynamicQuantizeLinear", ["x"], ["q2", "q2_scale", "q2_zp"])
    product = helper.make_node("MatMulInteger", ["q2", "W", "q2_zp", "W_zero_point"], ["acc2"])
    model.graph.node.extend([twin, product])
    with pytest.raises(ValueError, match="same initializers"):
        quantized_check.computed_quantizers(model)
