"""Models with dynamic input dimensions pinned by --input-shape: the latency check and the
verification run the original (which still declares the dynamic dims) in ONNX Runtime at the
pinned shapes, and the checks' input shapes travel as a list of assignments (input name ->
dims), every one of which verification compares at."""
import json

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

from saturate import onnx_check, ort_check  # noqa: E402

OPSET = 17
PINS = {"x": [2, 5, 16], "mask": [2, 5]}
PIN_ARGS = ["--input-shape", "x=2,5,16", "--input-shape", "mask=2,5"]


def dynamic_model():
    """x: float[batch, sequence, 16], mask: int64[batch, sequence] ->
    softmax(relu(x @ W + b) * mask[..., None])."""
    rng = np.random.default_rng(3)
    initializers = [
        numpy_helper.from_array((rng.standard_normal((16, 16)) * 0.3).astype(np.float32), "w"),
        numpy_helper.from_array((rng.standard_normal(16) * 0.1).astype(np.float32), "b"),
        numpy_helper.from_array(np.array([-1], dtype=np.int64), "last_axis"),
    ]
    nodes = [
        helper.make_node("MatMul", ["x", "w"], ["product"]),
        helper.make_node("Add", ["product", "b"], ["biased"]),
        helper.make_node("Relu", ["biased"], ["active"]),
        helper.make_node("Cast", ["mask"], ["mask_float"], to=TensorProto.FLOAT),
        helper.make_node("Unsqueeze", ["mask_float", "last_axis"], ["mask_column"]),
        helper.make_node("Mul", ["active", "mask_column"], ["masked"]),
        helper.make_node("Softmax", ["masked"], ["y"], axis=-1),
    ]
    graph = helper.make_graph(
        nodes, "pinned",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", "sequence", 16]),
         helper.make_tensor_value_info("mask", TensorProto.INT64, ["batch", "sequence"])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", "sequence", 16])],
        initializers)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)],
                              producer_name="pytest")
    model.ir_version = 8
    onnx.checker.check_model(model, full_check=True)
    return model


def save(model, path):
    onnx.save(model, path)
    return path


def input_dims(model):
    return {value.name: [d.dim_value if d.HasField("dim_value") else d.dim_param
                         for d in value.type.tensor_type.shape.dim]
            for value in model.graph.input}


def test_pinned_dynamic_model_passes_latency_check_and_verification(saturate, tmp_path):
    """The regression: with the latency check on, the original's dynamic declaration made
    `onnxruntime timing failed: input x has a dynamic shape`."""
    source = save(dynamic_model(), tmp_path / "model.onnx")
    before = source.read_bytes()
    output, report_path = tmp_path / "out.onnx", tmp_path / "report.json"
    result = saturate("optimize", source, *PIN_ARGS, "-o", output, "--verify",
                      "--latency-runs", "3", "--json", report_path)
    assert result.returncode == 0, result.stderr
    assert "dynamic shape" not in result.stderr
    assert source.read_bytes() == before
    report = json.loads(report_path.read_text())
    latency = report["latency_check"]
    assert latency["runs"] == 3
    assert latency["input_shapes"] == PINS
    assert report["verified"] is True
    written = onnx.load(str(output))
    if latency["kept"] == "optimized":
        assert input_dims(written) == PINS
        assert report["verify_runtime"] == "onnxruntime"
        assert report["verify_input_shapes"] == [PINS]
    else:  # the original is kept: the input's own file is written
        assert output.read_bytes() == before


def test_pinned_dynamic_model_is_written_static_and_verified_at_the_pins(saturate, tmp_path):
    source = save(dynamic_model(), tmp_path / "model.onnx")
    output, report_path = tmp_path / "out.onnx", tmp_path / "report.json"
    result = saturate("optimize", source, *PIN_ARGS, "-o", output, "--verify",
                      "--latency-runs", "0", "--json", report_path)
    assert result.returncode == 0, result.stderr
    written = onnx.load(str(output))
    assert input_dims(written) == PINS
    report = json.loads(report_path.read_text())
    assert report["verified"] is True and report["verify_runtime"] == "onnxruntime"
    assert report["verify_input_shapes"] == [PINS]
    # The written model runs at the pins and agrees with the original there.
    check = onnx_check.compare_models(str(source), str(output), input_shapes=[PINS])
    assert check.ok and check.shapes == [PINS]


def test_pin_contradicting_a_fixed_dimension_is_one_error_line(saturate, tmp_path):
    source = save(dynamic_model(), tmp_path / "model.onnx")
    output = tmp_path / "never.onnx"
    result = saturate("optimize", source, "--input-shape", "x=2,5,8", "--input-shape",
                      "mask=2,5", "-o", output, "--verify", "--latency-runs", "3")
    assert result.returncode != 0
    lines = [line for line in result.stderr.splitlines() if line.startswith("saturate:")]
    assert len(lines) == 1, result.stderr
    assert "--input-shape x sets dimension 2 to 8" in lines[0]
    assert "fixes it at 16" in lines[0]
    assert not output.exists() and not list(tmp_path.glob("never.onnx*"))


def test_pm_apply_verifies_at_the_pins(saturate, onnxruntime_library, tmp_path):
    source = save(dynamic_model(), tmp_path / "model.onnx")
    output, report_path = tmp_path / "out.onnx", tmp_path / "report.json"
    result = saturate("pm", "apply", onnxruntime_library, source, *PIN_ARGS, "--verify",
                      "-o", output, "--json", report_path)
    assert result.returncode == 0, result.stderr
    report = json.loads(report_path.read_text())
    assert report["verified"] is True and report["verify_runtime"] == "onnxruntime"
    assert report["verify_input_shapes"] == [PINS]
    assert input_dims(onnx.load(str(output))) == PINS


# --- The Python side: random_feeds, compare_models and run_checks with input shapes.

def session(model):
    return ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])


def test_random_feeds_uses_the_given_shapes():
    feeds = onnx_check.random_feeds(session(dynamic_model()), np.random.default_rng(0),
                                    shapes=PINS)
    assert feeds["x"].shape == (2, 5, 16) and feeds["x"].dtype == np.float32
    assert feeds["mask"].shape == (2, 5) and feeds["mask"].dtype == np.int64
    assert np.all(feeds["mask"] == 1)


def test_random_feeds_refuses_a_dynamic_input_without_a_shape():
    with pytest.raises(ValueError, match="input mask has a dynamic shape"):
        onnx_check.random_feeds(session(dynamic_model()), np.random.default_rng(0),
                                shapes={"x": [2, 5, 16]})


@pytest.mark.parametrize("shapes, message", [
    ({"x": [2, 5], "mask": [2, 5]}, r"input x: the shape \[2, 5\] has 2 dimensions, the model "
                                     r"declares 3"),
    ({"x": [2, 5, 8], "mask": [2, 5]}, "input x: .* sets dimension 2 to 8, but the model fixes "
                                        "it at 16"),
    ({"x": [2, 5, 16], "mask": [2, 5], "nope": [1]}, "given for nope, which the model does not "
                                                     "take"),
])
def test_random_feeds_refuses_shapes_that_do_not_suit_the_model(shapes, message):
    with pytest.raises(ValueError, match=message):
        onnx_check.random_feeds(session(dynamic_model()), np.random.default_rng(0),
                                shapes=shapes)


def test_random_feeds_without_shapes_keeps_the_declared_static_shapes():
    model = dynamic_model()
    for value in model.graph.input:
        for dim, size in zip(value.type.tensor_type.shape.dim, PINS[value.name]):
            dim.dim_value = size
    feeds = onnx_check.random_feeds(session(model), np.random.default_rng(0))
    assert {name: list(feed.shape) for name, feed in feeds.items()} == PINS


def batch_scaled_model(scaled):
    """y = x, or (scaled) y = x + x * (batch - 2): equal at batch 2 only."""
    nodes = [helper.make_node("Identity", ["x"], ["y"])]
    initializers = []
    if scaled:
        initializers = [numpy_helper.from_array(np.array([0], dtype=np.int64), "zero"),
                        numpy_helper.from_array(np.array(2.0, dtype=np.float32), "two")]
        nodes = [
            helper.make_node("Shape", ["x"], ["shape"]),
            helper.make_node("Gather", ["shape", "zero"], ["batch"], axis=0),
            helper.make_node("Cast", ["batch"], ["batch_float"], to=TensorProto.FLOAT),
            helper.make_node("Sub", ["batch_float", "two"], ["factor"]),
            helper.make_node("Mul", ["x", "factor"], ["extra"]),
            helper.make_node("Add", ["x", "extra"], ["y"]),
        ]
    graph = helper.make_graph(
        nodes, "scaled",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 3])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 3])], initializers)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)])
    model.ir_version = 8
    return model


def test_verification_runs_at_every_assignment():
    original, optimized = batch_scaled_model(False), batch_scaled_model(True)
    at_two = onnx_check.compare_models(original, optimized, input_shapes=[{"x": [2, 3]}])
    assert at_two.ok and at_two.shapes == [{"x": [2, 3]}]
    both = onnx_check.compare_models(original, optimized,
                                     input_shapes=[{"x": [2, 3]}, {"x": [3, 3]}])
    assert not both.ok
    assert both.shapes == [{"x": [2, 3]}, {"x": [3, 3]}]


def test_run_checks_times_the_first_assignment_and_verifies_all(tmp_path):
    path = str(save(dynamic_model(), tmp_path / "model.onnx"))
    other = {"x": [1, 7, 16], "mask": [1, 7]}
    answer = ort_check.run_checks(path, path, latency_runs=2, threads=1, verify=True,
                                  input_shapes=[PINS, other])
    assert answer["latency"]["input_shapes"] == PINS
    assert answer["latency"]["original"]["runs"] == 2
    assert answer["verification"]["ok"] is True
    assert answer["verification"]["shapes"] == [PINS, other]


def test_run_checks_without_shapes_on_a_dynamic_model_names_the_input(tmp_path):
    path = str(save(dynamic_model(), tmp_path / "model.onnx"))
    with pytest.raises(ValueError, match="input x has a dynamic shape"):
        ort_check.run_checks(path, path, latency_runs=1, threads=1, verify=False)
