"""Convolutions in the ONNX Runtime fusion library (rules/pypm/onnxruntime.py): a Conv with its
bias, an optional residual add and a Relu, Sigmoid, Tanh, Clip (ReLU6), LeakyRelu or HardSigmoid
become one FusedConv (com.microsoft) in
the e-graph, or a standard Conv with its bias where there is no activation and no residual; each
verified in ONNX Runtime against the unfused model, on synthetic models and on the CNN fixture
exports of both PyTorch exporters."""
import pathlib

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper

REPO = pathlib.Path(__file__).resolve().parents[2]
FIXTURES = REPO / "tests" / "fixtures" / "exporters"


# The activations FusedConv takes: ONNX attributes (Clip: its bounds as inputs) and the
# activation_params ONNX Runtime's kernel reads.
ACTIVATIONS = {"Relu": ({}, None), "Sigmoid": ({}, None), "Tanh": ({}, None),
               "Clip": ({"min": 0.0, "max": 6.0}, [0.0, 6.0]),
               "LeakyRelu": ({"alpha": 0.1}, [0.1]),
               "HardSigmoid": ({"alpha": 1 / 6, "beta": 0.5}, [1 / 6, 0.5])}


def conv_model(activation="Relu", residual=False, x_shape=(1, 8, 14, 14), out_channels=8,
               kernel=3, stride=1, pads=(1, 1, 1, 1), group=1, bias_add=None, seed=0):
    """Conv(x, w, b) [+ z] [-> activation] -> Erf: ONNX Conv with its bias, as exporters write
    a folded batch norm. `bias_add` adds a second tensor of that shape after the conv instead of
    a residual (a bias along another axis)."""
    rng = np.random.default_rng(seed)
    n, c, h, w = x_shape
    weight = rng.normal(size=(out_channels, c // group, kernel, kernel)).astype(np.float32)
    bias = rng.normal(size=(out_channels,)).astype(np.float32)
    init = [numpy_helper.from_array(weight, "w"), numpy_helper.from_array(bias, "b")]
    node = helper.make_node
    nodes = [node("Conv", ["x", "w", "b"], ["conv"], kernel_shape=[kernel, kernel],
                  strides=[stride, stride], pads=list(pads), group=group)]
    inputs = [helper.make_tensor_value_info("x", TensorProto.FLOAT, list(x_shape))]
    out_h = (h + pads[0] + pads[2] - kernel) // stride + 1
    out_w = (w + pads[1] + pads[3] - kernel) // stride + 1
    last = "conv"
    if residual:
        inputs.append(helper.make_tensor_value_info("z", TensorProto.FLOAT,
                                                    [n, out_channels, out_h, out_w]))
        nodes.append(node("Add", ["conv", "z"], ["sum"]))
        last = "sum"
    if bias_add is not None:
        init.append(numpy_helper.from_array(rng.normal(size=bias_add).astype(np.float32), "c"))
        nodes.append(node("Add", [last, "c"], ["biased"]))
        last = "biased"
    if activation == "Clip":
        bounds = ACTIVATIONS["Clip"][0]
        init += [numpy_helper.from_array(np.array(bounds["min"], np.float32), "lo"),
                 numpy_helper.from_array(np.array(bounds["max"], np.float32), "hi")]
        nodes.append(node("Clip", [last, "lo", "hi"], ["act"]))
        last = "act"
    elif activation:
        nodes.append(node(activation, [last], ["act"], **ACTIVATIONS.get(activation, ({},))[0]))
        last = "act"
    nodes.append(node("Erf", [last], ["y"]))  # an operator no rule fuses with the conv
    graph = helper.make_graph(nodes, "conv", inputs,
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], init)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def op_types(model):
    return [node.op_type for node in model.graph.node]


def run(model, feeds):
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    return session.run(None, feeds)[0]


def feeds_for(model, seed=5):
    rng = np.random.default_rng(seed)
    feeds = {}
    for value in model.graph.input:
        shape = [d.dim_value for d in value.type.tensor_type.shape.dim]
        feeds[value.name] = rng.normal(size=shape).astype(np.float32)
    return feeds


def attribute(node, name):
    return next((helper.get_attribute_value(a) for a in node.attribute if a.name == name), None)


CASES = {
    # name: conv_model arguments
    "same_3x3": {},
    "strided_explicit_pads": {"x_shape": (1, 3, 23, 23), "kernel": 7, "stride": 2,
                              "pads": (3, 3, 3, 3), "out_channels": 16},
    "asymmetric_pads": {"pads": (0, 1, 1, 0), "stride": 2},
    "depthwise": {"group": 8},
    "grouped_batch_2": {"x_shape": (2, 8, 9, 9), "group": 2, "out_channels": 6},
    "pointwise": {"kernel": 1, "pads": (0, 0, 0, 0), "out_channels": 12},
}


@pytest.mark.parametrize("activation", sorted(ACTIVATIONS))
@pytest.mark.parametrize("residual", [False, True])
@pytest.mark.parametrize("case", sorted(CASES))
def test_conv_bias_residual_and_activation_fuse_into_one_kernel(optimize_verified, tmp_path,
                                                               activation, residual, case):
    source = tmp_path / "conv.onnx"
    original = conv_model(activation, residual, **CASES[case])
    onnx.save(original, str(source))
    report, model = optimize_verified(source, tmp_path)
    assert report["fused_operators"] == {"fused_conv": 1}
    assert op_types(model) == ["FusedConv", "Erf"]
    fused = model.graph.node[0]
    assert fused.domain == "com.microsoft"
    assert attribute(fused, "activation").decode() == activation
    params = ACTIVATIONS[activation][1]
    if params is None:
        assert attribute(fused, "activation_params") is None
    else:
        assert attribute(fused, "activation_params") == pytest.approx(params, rel=1e-6)
    assert len(fused.input) == (4 if residual else 3)
    biases = {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}
    assert biases[fused.input[2]].shape == (original.graph.initializer[1].dims[0],)
    feeds = feeds_for(original)
    np.testing.assert_allclose(run(model, feeds), run(original, feeds), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("case", ["same_3x3", "strided_explicit_pads", "depthwise"])
def test_a_conv_without_activation_gets_its_bias_back(optimize_verified, tmp_path, case):
    """The IR's conv2d has no bias input: import writes ONNX Conv's bias as an add, and the
    fusion writes it back into a standard Conv."""
    source = tmp_path / "conv.onnx"
    original = conv_model(None, **CASES[case])
    onnx.save(original, str(source))
    report, model = optimize_verified(source, tmp_path)
    assert report["fused_operators"] == {"fused_conv": 1}
    assert op_types(model) == ["Conv", "Erf"]
    assert len(model.graph.node[0].input) == 3 and model.graph.node[0].domain == ""
    feeds = feeds_for(original)
    np.testing.assert_allclose(run(model, feeds), run(original, feeds), rtol=1e-5, atol=1e-5)


def test_a_residual_without_activation_fuses_as_the_sum_input(optimize_verified, tmp_path):
    """MobileNet's linear bottleneck: conv + bias + residual, no activation."""
    source = tmp_path / "conv.onnx"
    original = conv_model(None, residual=True)
    onnx.save(original, str(source))
    report, model = optimize_verified(source, tmp_path)
    assert op_types(model) == ["FusedConv", "Erf"]
    fused = model.graph.node[0]
    assert len(fused.input) == 4 and attribute(fused, "activation") is None


def test_an_add_along_the_columns_is_not_the_bias(optimize_verified, tmp_path):
    """A second add of one value per column (1, 1, 1, W) is neither a bias nor a residual the
    kernel takes: only the Conv's own bias fuses, the extra add stays before the activation and
    the activation stays a node."""
    source = tmp_path / "conv.onnx"
    original = conv_model("Relu", bias_add=(1, 1, 1, 14))
    onnx.save(original, str(source))
    report, model = optimize_verified(source, tmp_path)
    assert op_types(model) == ["Conv", "Add", "Relu", "Erf"]
    feeds = feeds_for(original)
    np.testing.assert_allclose(run(model, feeds), run(original, feeds), rtol=1e-5, atol=1e-5)


def test_a_constant_of_the_output_shape_is_a_residual_like_any_other(optimize_verified,
                                                                     tmp_path):
    source = tmp_path / "conv.onnx"
    original = conv_model("Relu", bias_add=(1, 8, 14, 14))
    onnx.save(original, str(source))
    report, model = optimize_verified(source, tmp_path)
    assert op_types(model) == ["FusedConv", "Erf"] and len(model.graph.node[0].input) == 4


def test_an_activation_the_kernel_lacks_is_left_as_a_node(optimize_verified, tmp_path):
    source = tmp_path / "conv.onnx"
    original = conv_model("HardSwish")  # MobileNetV3's; FusedConv has no HardSwish
    onnx.save(original, str(source))
    report, model = optimize_verified(source, tmp_path)
    assert op_types(model) == ["Conv", "HardSwish", "Erf"]


@pytest.mark.parametrize("activation", ["LeakyRelu", "HardSigmoid"])
def test_leaky_relu_and_hard_sigmoid_are_ir_operators_with_their_attributes(
        optimize_verified, tmp_path, activation):
    """Import reads them as the IR's leaky_relu and hard_sigmoid (they were opaque nodes);
    without a conv before them export writes them back with their attributes."""
    source = tmp_path / "act.onnx"
    attrs = ACTIVATIONS[activation][0]
    graph = helper.make_graph(
        [helper.make_node(activation, ["x"], ["a"], **attrs), helper.make_node("Erf", ["a"], ["y"])],
        "act", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 7])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 7])])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), str(source))
    report, model = optimize_verified(source, tmp_path, "--target", "onnx")
    assert report["opaque_nodes"] == 0
    assert op_types(model) == [activation, "Erf"]
    for name, value in attrs.items():
        assert attribute(model.graph.node[0], name) == pytest.approx(value, rel=1e-6)


@pytest.mark.parametrize("options", [("--target", "onnx"), ("--fusions", "none")])
def test_target_onnx_and_no_fusions_write_no_fused_conv(optimize_verified, tmp_path, options):
    source = tmp_path / "conv.onnx"
    onnx.save(conv_model("Relu", residual=True), str(source))
    report, model = optimize_verified(source, tmp_path, *options)
    assert report["fused_operators"] == {}
    assert "FusedConv" not in op_types(model)
    assert all(node.domain == "" for node in model.graph.node)


CNN_EXPORTS = {
    # fixture: its Convs (every one has a bias: the exporters fold batch norms into them)
    "resnet.torchscript.onnx": 12,
    "resnet.dynamo.onnx": 12,
    "mobilenet_v3.torchscript.onnx": 52,
    "mobilenet_v3.dynamo.onnx": 52,
    "shufflenet_v2.dynamo.onnx": 26,
    "shufflenet_v2.torchscript.onnx": 26,
}


@pytest.mark.parametrize("name", sorted(CNN_EXPORTS))
def test_every_conv_of_the_exported_cnns_fuses(optimize_verified, tmp_path, name):
    source = FIXTURES / name
    original = onnx.load(str(source))
    convs = op_types(original).count("Conv")
    assert convs == CNN_EXPORTS[name]
    report, model = optimize_verified(source, tmp_path, "--fusions", "fused_conv")
    assert report["fused_operators"] == {"fused_conv": convs}
    written = op_types(model)
    assert written.count("FusedConv") + written.count("Conv") == convs
    # Every Relu or HardSigmoid (MobileNetV3's squeeze-excitation gates) right after a conv,
    # and every residual add into one, went into the kernel.
    produced_by_conv = {out for node in model.graph.node if node.op_type in ("Conv", "FusedConv")
                        for out in node.output}
    assert not [node for node in model.graph.node
                if node.op_type in ("Relu", "HardSigmoid") and node.input[0] in produced_by_conv]


GREEDY = """(graph fused_conv
  (node x (input :shape [1 4 6 6]))
  (node w (weight :shape [8 4 3 3]))
  (node b (weight :shape [8]))
  (node z (input :shape [1 8 6 6]))
  (node bc (reshape b :shape [8 1 1]))
  (node c (conv2d x w :padding same))
  (node s (add c bc))
  (node r (ewadd s z))
  (node a ACTIVATION)
  (node y (tanh a))
  (output out y)
)
"""


@pytest.mark.parametrize("activation", ["(relu r)", "(clip r :min 0 :max 6)",
                                        "(leaky_relu r :alpha 0.2)",
                                        "(hard_sigmoid r :alpha 0.25 :beta 0.5)"])
def test_pm_apply_fuses_greedily_and_computes_the_same(pm_apply_histogram, activation):
    histogram = pm_apply_histogram(GREEDY.replace("ACTIVATION", activation))
    assert histogram.get("fused_conv") == 1 and "conv2d" not in histogram
    assert activation.split()[0][1:] not in histogram
