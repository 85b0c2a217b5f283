"""LayerNormalization from its decomposed form in the ONNX Runtime fusion library
(rules/pypm/onnxruntime.py): what the TorchScript exporter writes for nn.LayerNorm before opset 17,
and hand-written layer norms, become the standard LayerNormalization in the e-graph, verified in
ONNX Runtime; the residual-norm fusion and the session fusion guards then see the norm too."""
import json

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper


def decomposed_layer_norm(opset=14, spelling="torchscript", residual=False, shape=(2, 5, 8),
                          axes=(-1,)):
    """(x - mean(x)) / sqrt(mean((x - mean(x))^2) + eps) * g + b, then a Tanh. "torchscript" is
    the exporter's opset < 17 spelling (Pow(d, 2), normalized * g + b); "hand_written" is an old
    BERT layer norm's: (x - u) written twice, squared by a product, g * normalized + b. With
    residual, x is the sum of two inputs."""
    rng = np.random.default_rng(1)
    d = shape[-1]
    init = [numpy_helper.from_array(rng.normal(size=d).astype(np.float32), "g"),
            numpy_helper.from_array(rng.normal(size=d).astype(np.float32), "b"),
            numpy_helper.from_array(np.array(2.0, np.float32), "two"),
            numpy_helper.from_array(np.array(1e-5, np.float32), "eps")]
    nodes, x = [], "x"
    if residual:
        nodes.append(helper.make_node("Add", ["x", "skip"], ["s"]))
        x = "s"

    def mean(source, out):
        if opset >= 18:
            return helper.make_node("ReduceMean", [source, "axes"], [out])
        return helper.make_node("ReduceMean", [source], [out], axes=list(axes))

    if opset >= 18:
        init.append(numpy_helper.from_array(np.array(axes, np.int64), "axes"))
    nodes += [mean(x, "m"), helper.make_node("Sub", [x, "m"], ["d"])]
    if spelling == "hand_written":
        nodes += [helper.make_node("Sub", [x, "m"], ["d2"]),
                  helper.make_node("Mul", ["d2", "d2"], ["sq"])]
    else:
        nodes.append(helper.make_node("Pow", ["d", "two"], ["sq"]))
    nodes += [mean("sq", "v"), helper.make_node("Add", ["v", "eps"], ["ve"]),
              helper.make_node("Sqrt", ["ve"], ["sd"]), helper.make_node("Div", ["d", "sd"], ["n"]),
              helper.make_node("Mul", ["g", "n"] if spelling == "hand_written" else ["n", "g"],
                               ["t"]),
              helper.make_node("Add", ["t", "b"], ["normed"]),
              helper.make_node("Tanh", ["normed"], ["y"])]
    inputs = [helper.make_tensor_value_info("x", TensorProto.FLOAT, list(shape))]
    if residual:
        inputs.append(helper.make_tensor_value_info("skip", TensorProto.FLOAT, list(shape)))
    graph = helper.make_graph(nodes, "layer_norm", inputs,
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, list(shape))],
                              init)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 8
    return model


def op_types(model):
    return [node.op_type for node in model.graph.node]


@pytest.mark.parametrize("opset", [14, 17, 18])
@pytest.mark.parametrize("spelling", ["torchscript", "hand_written"])
def test_every_spelling_fuses_and_verifies(optimize_verified, tmp_path, opset, spelling):
    source = tmp_path / "ln.onnx"
    onnx.save(decomposed_layer_norm(opset, spelling), str(source))
    report, model = optimize_verified(source, tmp_path)
    # Nothing else in the graph reads an older opset's schema, so export writes opset 17 or later
    # and the norm is one LayerNormalization.
    assert op_types(model) == ["LayerNormalization", "Tanh"]
    assert report["optimized_ops"] == 2


@pytest.mark.parametrize("case", ["mean over two axes", "two-dimensional scale"])
def test_what_layer_normalization_cannot_compute_does_not_fuse(optimize_verified, tmp_path, case):
    if case == "mean over two axes":
        model = decomposed_layer_norm(17, axes=(-2, -1))
    else:  # a (5, 8) scale: not one parameter per feature
        model = decomposed_layer_norm(17)
        model.graph.initializer[0].CopyFrom(numpy_helper.from_array(
            np.ones((5, 8), np.float32), "g"))
    source = tmp_path / "ln.onnx"
    onnx.save(model, str(source))
    _, written = optimize_verified(source, tmp_path)
    assert "LayerNormalization" not in op_types(written)


def test_a_decomposed_residual_norm_fuses_on(optimize_verified, tmp_path):
    source = tmp_path / "ln.onnx"
    onnx.save(decomposed_layer_norm(14, residual=True), str(source))
    report, model = optimize_verified(source, tmp_path)
    assert report["fused_operators"] == {"skip_layer_norm": 1}
    assert op_types(model) == ["SkipLayerNormalization", "Tanh"]


def test_the_session_fusion_guard_sees_a_decomposed_residual_norm(saturate, tmp_path):
    """ONNX Runtime fuses the decomposed norm itself and then the residual add into it; with the
    norm fused in the e-graph the guard finds it (whether it respells it depends on the timings)."""
    source, out = tmp_path / "ln.onnx", tmp_path / "out.onnx"
    onnx.save(decomposed_layer_norm(14, residual=True, shape=(1, 16, 64)), str(source))
    report_path = tmp_path / "report.json"
    result = saturate("optimize", source, "-o", out, "--json", report_path, "--fusions", "none",
                      "--latency-runs", "0", "--cost-cache", tmp_path / "costs.sqlite",
                      "--threads", "1", "--verify", timeout=600)
    assert result.returncode == 0, result.stderr
    report = json.loads(report_path.read_text())
    assert report["verified"] is True
    assert report["session_fusion_guards"]["candidates"] == 1
