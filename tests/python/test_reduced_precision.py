"""Models in float16 and bfloat16. Exports converted by ONNX Runtime's own float16 converter
(`keep_io_types=True`, as its documentation suggests) fuse as their float32 twins do, keep their
weights in 16 bits, and verify under the error budget (python/saturate/onnx_check.py); the
budget fails a wrong model; bfloat16 weights survive import and export bit for bit."""
import json
import pathlib

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper
from onnxruntime.transformers.float16 import convert_float_to_float16

from saturate import onnx_check

REPO = pathlib.Path(__file__).resolve().parents[2]
FIXTURES = REPO / "tests" / "fixtures" / "exporters"
# Attention, both GELUs, norms, rotary embedding and convolutions, from both exporters.
CASES = ["bert_eager.torchscript.onnx", "gpt2.dynamo.onnx", "llama.torchscript.onnx",
         "vit.dynamo.onnx", "resnet.dynamo.onnx"]


def to_float16(source, target):
    # The converter appends each graph input's Cast after every other node: import sorts them.
    onnx.save(convert_float_to_float16(onnx.load(str(source)), keep_io_types=True), str(target))
    return target


def float_weight_types(model):
    """Floating-point element types of the initializers with more than one element (scalars,
    int64 shapes and boolean masks aside)."""
    floats = {TensorProto.FLOAT, TensorProto.FLOAT16, TensorProto.BFLOAT16, TensorProto.DOUBLE}
    return {t.data_type for t in model.graph.initializer
            if int(np.prod(t.dims)) > 1 and t.data_type in floats}


@pytest.mark.parametrize("name", CASES)
def test_a_float16_model_gets_the_float32_fusions_and_verifies(saturate, tmp_path, name):
    half = to_float16(FIXTURES / name, tmp_path / "model.fp16.onnx")
    reports = {}
    for kind, source in (("f32", FIXTURES / name), ("f16", half)):
        report = tmp_path / f"{kind}.json"
        result = saturate("optimize", source, "-o", tmp_path / f"{kind}.opt.onnx", "--cost",
                          "analytic", "--verify", "--json", report, timeout=600)
        assert result.returncode == 0, result.stderr
        reports[kind] = json.loads(report.read_text())
    f16 = reports["f16"]
    assert f16["fused_operators"], "nothing fused"
    assert f16["fused_operators"] == reports["f32"]["fused_operators"]
    assert f16["verified"] is True
    assert f16["verify_precision"] == "float16"
    assert f16["verify_policy"] in ("error budget against a float64 reference",
                                    "error budget against a float32 reference")
    for output in f16["verify_outputs"]:
        assert 0 <= output["max_abs_error"] <= output["tolerance"]
        # ONNX Runtime's CPU runs operators without a float16 kernel in float32, so the
        # original's own error may be 0 (all of ResNet); the budget then is the float32 one.
        assert output["original_error"] >= 0
    optimized = onnx.load(str(tmp_path / "f16.opt.onnx"))
    assert float_weight_types(optimized) == {TensorProto.FLOAT16}  # no weight widened to float32
    check = onnx_check.compare_models(str(half), str(tmp_path / "f16.opt.onnx"), seed=11,
                                      trials=1)
    assert check.ok, check
    assert check.reference in ("float64", "float32")


def scaled_weight(model, factor):
    """The model with its first float16 weight matrix multiplied by `factor`."""
    for tensor in model.graph.initializer:
        if tensor.data_type == TensorProto.FLOAT16 and len(tensor.dims) == 2:
            array = numpy_helper.to_array(tensor).astype(np.float32) * factor
            tensor.CopyFrom(numpy_helper.from_array(array.astype(np.float16), tensor.name))
            return model
    raise AssertionError("no float16 weight matrix")


def test_the_error_budget_fails_a_wrong_float16_model(tmp_path):
    half = to_float16(FIXTURES / "bert_eager.torchscript.onnx", tmp_path / "bert.fp16.onnx")
    same = onnx_check.compare_models(str(half), str(half), trials=1)
    assert same.ok and same.reference is not None
    assert same.outputs[0].max_abs_error == same.outputs[0].original_error
    # One weight matrix off by 3%: less than any wrong rewrite, more than float16 rounding.
    wrong = tmp_path / "wrong.onnx"
    onnx.save(scaled_weight(onnx.load(str(half)), 1.03), str(wrong))
    check = onnx_check.compare_models(str(half), str(wrong), trials=1)
    assert not check.ok, check
    assert check.outputs[0].max_abs_error > check.outputs[0].tolerance
    # Asking for a precision compares the outputs directly, without the budget.
    direct = onnx_check.compare_models(str(half), str(half), trials=1, precision="float32")
    assert direct.ok and direct.reference is None and direct.policy == "outputs"


def bfloat16_model():
    """x (float32) -> Cast to bfloat16 -> MatMul W -> Add b -> Relu -> Cast to float32; W in raw
    data, b as ONNX stores 16-bit values outside raw data (one per int32_data entry)."""
    rng = np.random.default_rng(0)
    w_bits = (rng.standard_normal((8, 4)).astype(np.float32).view(np.uint32) >> 16).astype(
        np.uint16)
    w = helper.make_tensor("W", TensorProto.BFLOAT16, [8, 4], w_bits.tobytes(), raw=True)
    b_bits = (rng.standard_normal(4).astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)
    b = TensorProto(name="b", data_type=TensorProto.BFLOAT16, dims=[4])
    b.int32_data.extend(int(v) for v in b_bits)
    nodes = [helper.make_node("Cast", ["x"], ["xb"], to=TensorProto.BFLOAT16),
             helper.make_node("MatMul", ["xb", "W"], ["m"]),
             helper.make_node("Add", ["m", "b"], ["a"]),
             helper.make_node("Relu", ["a"], ["r"]),
             helper.make_node("Cast", ["r"], ["y"], to=TensorProto.FLOAT)]
    graph = helper.make_graph(nodes, "bf16", [helper.make_tensor_value_info(
        "x", TensorProto.FLOAT, [2, 8])], [helper.make_tensor_value_info(
            "y", TensorProto.FLOAT, [2, 4])], [w, b])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    return model, w_bits, b_bits


def bits_of(tensor):
    if tensor.raw_data:
        return np.frombuffer(tensor.raw_data, np.uint16)
    return np.array(tensor.int32_data, np.uint16)


def test_bfloat16_weights_are_carried_bit_for_bit(saturate, tmp_path):
    model, w_bits, b_bits = bfloat16_model()
    onnx.checker.check_model(model)
    source = tmp_path / "bf16.onnx"
    onnx.save(model, str(source))
    shown = saturate("show", source, "--json")
    assert shown.returncode == 0, shown.stderr
    # MatMul, Add and Relu are IR operators on bfloat16 values: only the two Casts stay opaque.
    assert json.loads(shown.stdout).get("opaque_op_types", {}) == {"Cast": 2}
    out = tmp_path / "out.onnx"
    result = saturate("optimize", source, "-o", out, "--cost", "analytic", "--latency-runs",
                      "0", "--target", "onnx")
    assert result.returncode == 0, result.stderr
    written = onnx.load(str(out))
    onnx.checker.check_model(written)
    weights = {t.name: t for t in written.graph.initializer}
    matrices = [t for t in weights.values() if list(t.dims) == [8, 4]]
    assert len(matrices) == 1 and matrices[0].data_type == TensorProto.BFLOAT16
    assert np.array_equal(bits_of(matrices[0]), w_bits.reshape(-1))
    biases = [t for t in weights.values() if list(t.dims) in ([4], [1, 4])]
    assert len(biases) == 1 and biases[0].data_type == TensorProto.BFLOAT16
    assert np.array_equal(bits_of(biases[0]), b_bits)


def test_a_graph_whose_nodes_are_out_of_order_is_imported_in_order(saturate, tmp_path):
    """ONNX Runtime runs graphs whose nodes are not in topological order; so does Saturate."""
    nodes = [helper.make_node("Relu", ["t"], ["y"]), helper.make_node("Neg", ["x"], ["t"])]
    graph = helper.make_graph(nodes, "unsorted", [helper.make_tensor_value_info(
        "x", TensorProto.FLOAT, [2, 3])], [helper.make_tensor_value_info(
            "y", TensorProto.FLOAT, [2, 3])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    source = tmp_path / "unsorted.onnx"
    onnx.save(model, str(source))
    out = tmp_path / "out.onnx"
    result = saturate("optimize", source, "-o", out, "--cost", "analytic", "--verify")
    assert result.returncode == 0, result.stderr
    onnx.checker.check_model(onnx.load(str(out)))


DYNAMIC = REPO / "tests" / "fixtures" / "dynamic"


@pytest.mark.parametrize("name", ["vit.torchscript.onnx", "bert_eager.torchscript.onnx"])
def test_a_model_that_went_through_shape_inference_fuses_as_before(saturate, tmp_path, name):
    """ONNX's shape inference (which ONNX Runtime's float16 converter runs) writes value_info
    with dims it invents (`unk__4`) and values of unknown rank; import must not take them for
    sizes unrelated to `batch`. Both the inferred float32 file and its float16 conversion fuse
    what the exporter's file fuses, and keep the dynamic axes."""
    inferred = onnx.shape_inference.infer_shapes(onnx.load(str(DYNAMIC / name)))
    names = {d.dim_param for v in inferred.graph.value_info
             for d in v.type.tensor_type.shape.dim}
    assert any(n.startswith("unk__") for n in names)  # what the test is about
    files = {"exported": DYNAMIC / name, "inferred": tmp_path / "inferred.onnx",
             "float16": tmp_path / "float16.onnx"}
    onnx.save(inferred, str(files["inferred"]))
    to_float16(DYNAMIC / name, files["float16"])
    fused = {}
    for kind, source in files.items():
        report = tmp_path / f"{kind}.json"
        out = tmp_path / f"{kind}.opt.onnx"
        result = saturate("optimize", source, "-o", out, "--cost", "analytic", "--verify",
                          "--json", report, timeout=600)
        assert result.returncode == 0, (kind, result.stderr)
        fused[kind] = json.loads(report.read_text())["fused_operators"]
        dims = onnx.load(str(out)).graph.input[0].type.tensor_type.shape.dim
        assert dims[0].dim_param, kind  # the batch axis is still dynamic
    assert fused["exported"]
    assert fused["inferred"] == fused["exported"]
    assert fused["float16"] == fused["exported"]


def test_a_bfloat16_model_is_not_timed_or_verified_in_onnx_runtime(saturate, tmp_path):
    """ONNX Runtime's CPU provider has no bfloat16 MatMul or Add: the latency check and --verify
    are refused up front with one clear line; without them the onnxruntime cost model prices the
    bfloat16 operators by its analytic fallback and the model is written."""
    model, _, _ = bfloat16_model()
    source, out = tmp_path / "bf16.onnx", tmp_path / "out.onnx"
    onnx.save(model, str(source))
    for extra in ([], ["--latency-runs", "0", "--verify"]):
        result = saturate("optimize", source, "-o", out, *extra)
        lines = [line for line in result.stderr.splitlines() if line.strip()]
        assert result.returncode == 1, result.stderr
        assert lines[-1].startswith("saturate: error:") and "bfloat16" in lines[-1]
        assert "--latency-runs 0" in lines[-1]
        assert not out.exists()
    report = tmp_path / "report.json"
    result = saturate("optimize", source, "-o", out, "--latency-runs", "0", "--json", report)
    assert result.returncode == 0, result.stderr
    costs = json.loads(report.read_text())
    assert costs["cost_model"] == "onnxruntime" and costs["cost_fallbacks"] >= 3
    assert out.exists()


DECODER_PROFILES = ["batch_size=1,sequence_length=8,past_sequence_length=16,"
                    "total_sequence_length=24",
                    "batch_size=2,sequence_length=1,past_sequence_length=5,"
                    "total_sequence_length=6"]


@pytest.mark.parametrize("name", ["llama_past.torchscript.onnx", "gpt2_past.dynamo.onnx"])
def test_a_float16_decoder_with_a_cache_fuses_as_its_float32_file(saturate, tmp_path, name):
    """The converter puts a Cast before every output: the relation the outputs declare
    (total_sequence_length = past_sequence_length + sequence_length) is still learned through
    it, so attention fuses in float16 as in float32."""
    half = to_float16(DYNAMIC / name, tmp_path / "half.onnx")
    profiles = [arg for profile in DECODER_PROFILES for arg in ("--profile", profile)]
    fused = {}
    for kind, source in (("f32", DYNAMIC / name), ("f16", half)):
        report = tmp_path / f"{kind}.json"
        result = saturate("optimize", source, "-o", tmp_path / f"{kind}.opt.onnx", "--cost",
                          "analytic", "--verify", "--json", report, *profiles, timeout=600)
        assert result.returncode == 0, (kind, result.stderr)
        fused[kind] = json.loads(report.read_text())["fused_operators"]
    assert "multi_head_attention" in fused["f32"]
    assert fused["f16"] == fused["f32"]


def test_the_widened_copy_limit_counts_sixteen_bit_weights(tmp_path, monkeypatch):
    """A float16 model's reference widens its float16 weights; past the copy limit neither the
    float64 nor the float32 reference is made, and the outputs are compared directly at the
    float16 tolerance."""
    half = to_float16(FIXTURES / "bert_eager.torchscript.onnx", tmp_path / "bert.fp16.onnx")
    monkeypatch.setattr(onnx_check, "FLOAT64_WEIGHT_LIMIT_BYTES", 1024)
    check = onnx_check.compare_models(str(half), str(half), trials=1)
    assert check.reference is None and check.policy == "outputs"
    assert check.precision == "float16" and check.ok
    assert "too large" in check.float64_unavailable
