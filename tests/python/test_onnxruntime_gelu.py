"""The GELU family in the ONNX Runtime fusion library (rules/pypm/onnxruntime.py): gelu(x + b)
becomes BiasGelu, GPT-2's tanh approximation FastGelu, x * sigmoid(a * x) (SiLU for a = 1)
QuickGelu; chosen in the e-graph and verified in ONNX Runtime against the unfused model, and
greedily with `pm apply`, verified in the reference interpreter."""
import pathlib

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

REPO = pathlib.Path(__file__).resolve().parents[2]
FIXTURES = REPO / "tests" / "fixtures" / "exporters"
SHAPE = [2, 5, 8]


def scalar(name, value):
    return numpy_helper.from_array(np.array(value, np.float32), name)


def activation_model(spelling, shape=SHAPE, bias_shape=None, half=0.5):
    """One activation as an exporter spells it, on x (default (2, 5, 8)), then a Tanh (so the
    activation is not the graph output)."""
    rng = np.random.default_rng(5)
    bias_shape = bias_shape or [shape[-1]]
    init = [numpy_helper.from_array(rng.normal(size=bias_shape).astype(np.float32), "b"),
            scalar("sqrt2", np.sqrt(2.0)), scalar("inv_sqrt2", 1 / np.sqrt(2.0)),
            scalar("one", 1.0), scalar("half", half), scalar("three", 3.0),
            scalar("c", 0.044715), scalar("k", np.sqrt(2 / np.pi)), scalar("alpha", 1.702)]
    opset, n = 17, helper.make_node
    if spelling in ("torchscript", "half_first", "half_inside", "inv_sqrt2", "dynamo"):
        nodes = [n("Add", ["b", "x"] if spelling == "torchscript" else ["x", "b"], ["s"])]
        if spelling == "dynamo":
            nodes.append(n("Gelu", ["s"], ["g"]))
            opset = 20
        else:
            if spelling == "inv_sqrt2":
                nodes.append(n("Mul", ["s", "inv_sqrt2"], ["d"]))
            else:
                nodes.append(n("Div", ["s", "sqrt2"], ["d"]))
            nodes += [n("Erf", ["d"], ["e"]),
                      n("Add", ["one", "e"] if spelling == "half_first" else ["e", "one"], ["a"])]
            if spelling == "half_first":
                nodes += [n("Mul", ["s", "half"], ["h"]), n("Mul", ["h", "a"], ["g"])]
            elif spelling == "half_inside":
                nodes += [n("Mul", ["a", "half"], ["h"]), n("Mul", ["s", "h"], ["g"])]
            else:
                nodes += [n("Mul", ["s", "a"], ["p"]), n("Mul", ["p", "half"], ["g"])]
    elif spelling == "dynamo_tanh":  # opset 20's Gelu(approximate="tanh"), Gemma's MLP
        nodes, opset = [n("Gelu", ["x"], ["g"], approximate="tanh")], 20
    elif spelling in ("gelu_no_bias",):
        nodes = [n("Div", ["x", "sqrt2"], ["d"]), n("Erf", ["d"], ["e"]),
                 n("Add", ["e", "one"], ["a"]), n("Mul", ["x", "a"], ["p"]),
                 n("Mul", ["p", "half"], ["g"])]
    elif spelling in ("tanh_pow", "tanh_cube"):  # GPT-2, both exporters (x * 0.5) * (1 + tanh)
        if spelling == "tanh_pow":
            cube = [n("Pow", ["x", "three"], ["x3"])]
        else:
            cube = [n("Mul", ["x", "x"], ["x2"]), n("Mul", ["x2", "x"], ["x3"])]
        nodes = [n("Mul", ["x", "half"], ["h"]), *cube, n("Mul", ["x3", "c"], ["m"]),
                 n("Add", ["x", "m"], ["inner"]), n("Mul", ["inner", "k"], ["scaled"]),
                 n("Tanh", ["scaled"], ["t"]), n("Add", ["t", "one"], ["a"]),
                 n("Mul", ["h", "a"], ["g"])]
    elif spelling == "tanh_symbolic":
        # torch.onnx's TorchScript symbolic for F.gelu(approximate="tanh") at opset < 20:
        # 0.5 * (x * (1 + tanh(k * (x + c * (x * (x * x)))))), constants first.
        nodes = [n("Mul", ["x", "x"], ["x2"]), n("Mul", ["x", "x2"], ["x3"]),
                 n("Mul", ["c", "x3"], ["m"]), n("Add", ["x", "m"], ["inner"]),
                 n("Mul", ["k", "inner"], ["scaled"]), n("Tanh", ["scaled"], ["t"]),
                 n("Add", ["one", "t"], ["a"]), n("Mul", ["x", "a"], ["p"]),
                 n("Mul", ["half", "p"], ["g"])]
    elif spelling in ("silu", "silu_swapped"):  # Llama's MLP gate
        nodes = [n("Sigmoid", ["x"], ["sg"]),
                 n("Mul", ["x", "sg"] if spelling == "silu" else ["sg", "x"], ["g"])]
    elif spelling == "quick_gelu":
        nodes = [n("Mul", ["x", "alpha"], ["ax"]), n("Sigmoid", ["ax"], ["sg"]),
                 n("Mul", ["x", "sg"], ["g"])]
    else:
        raise ValueError(spelling)
    nodes.append(n("Tanh", ["g"], ["y"]))
    graph = helper.make_graph(
        nodes, f"act_{spelling}", [helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, shape)], init)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def op_types(model):
    return [node.op_type for node in model.graph.node]


def attributes(node):
    return {a.name: helper.get_attribute_value(a) for a in node.attribute}


FUSED = {"torchscript": ("bias_gelu", "BiasGelu"), "half_first": ("bias_gelu", "BiasGelu"),
         "half_inside": ("bias_gelu", "BiasGelu"), "inv_sqrt2": ("bias_gelu", "BiasGelu"),
         "dynamo": ("bias_gelu", "BiasGelu"), "tanh_pow": ("fast_gelu", "FastGelu"),
         "tanh_cube": ("fast_gelu", "FastGelu"), "tanh_symbolic": ("fast_gelu", "FastGelu"),
         "silu": ("quick_gelu", "QuickGelu"), "silu_swapped": ("quick_gelu", "QuickGelu"),
         "quick_gelu": ("quick_gelu", "QuickGelu")}


@pytest.mark.parametrize("spelling", sorted(FUSED))
def test_every_spelling_fuses_in_the_egraph_and_verifies(optimize_verified, tmp_path, spelling):
    source = tmp_path / "act.onnx"
    onnx.save(activation_model(spelling), str(source))
    report, model = optimize_verified(source, tmp_path)
    ir_name, onnx_name = FUSED[spelling]
    assert report["fused_operators"] == {ir_name: 1}
    fused = [node for node in model.graph.node if node.op_type == onnx_name]
    assert len(fused) == 1 and fused[0].domain == "com.microsoft"
    assert op_types(model) == [onnx_name, "Tanh"]  # nothing of the unfused form is left
    if onnx_name == "QuickGelu":
        expected = 1.702 if spelling == "quick_gelu" else 1.0
        assert attributes(fused[0])["alpha"] == pytest.approx(expected, rel=1e-6)
    assert any(o.domain == "com.microsoft" for o in model.opset_import)


@pytest.mark.parametrize("shape", [[6, 16], [1, 3, 4, 32], [64]])
@pytest.mark.parametrize("spelling", ["torchscript", "tanh_pow", "silu"])
def test_other_ranks_fuse_and_verify(optimize_verified, tmp_path, spelling, shape):
    source = tmp_path / "act.onnx"
    onnx.save(activation_model(spelling, shape=shape), str(source))
    report, _ = optimize_verified(source, tmp_path)
    assert report["fused_operators"] == {FUSED[spelling][0]: 1}


@pytest.mark.parametrize("case", ["bias_along_another_axis", "wrong_half", "gelu_no_bias"])
def test_what_is_not_the_fused_kernel_stays(optimize_verified, tmp_path, case):
    """A bias that broadcasts along the positions is not BiasGelu's; 0.6 * x * (1 + erf) is not
    a GELU; a GELU without a bias add is left to ONNX Runtime, which fuses it itself."""
    model = {"bias_along_another_axis": lambda: activation_model("torchscript", bias_shape=[5, 1]),
             "wrong_half": lambda: activation_model("torchscript", half=0.6),
             "gelu_no_bias": lambda: activation_model("gelu_no_bias")}[case]()
    source = tmp_path / "act.onnx"
    onnx.save(model, str(source))
    report, out = optimize_verified(source, tmp_path)
    assert report["fused_operators"] == {}
    assert "Erf" in op_types(out)


def test_target_onnx_keeps_the_unfused_activations(optimize_verified, tmp_path):
    source = tmp_path / "act.onnx"
    onnx.save(activation_model("torchscript"), str(source))
    report, model = optimize_verified(source, tmp_path, "--target", "onnx")
    assert report["fused_operators"] == {}
    assert all(node.domain == "" for node in model.graph.node)


@pytest.mark.parametrize("target", ["onnxruntime", "onnx"])
def test_opset_20_tanh_gelu_is_imported_and_written_back_standard(optimize_verified, tmp_path,
                                                                  target):
    """The dynamo exporter writes nn.GELU(approximate="tanh") as opset 20's Gelu, which import
    reads as the IR's fast_gelu (no longer an opaque node) and export writes back as the same
    standard operator (ONNX Runtime runs it as fast as com.microsoft.FastGelu): nothing is
    counted as fused, and `--target onnx` output stays standard."""
    source = tmp_path / "act.onnx"
    onnx.save(activation_model("dynamo_tanh"), str(source))
    report, model = optimize_verified(source, tmp_path, "--target", target)
    assert report["opaque_nodes"] == 0
    assert report["fused_operators"] == {}
    assert op_types(model) == ["Gelu", "Tanh"]
    assert attributes(model.graph.node[0]) == {"approximate": b"tanh"}
    assert all(node.domain == "" for node in model.graph.node)


def count(source, op_type):
    return sum(node.op_type == op_type for node in onnx.load(str(source)).graph.node)


# Each transformer fixture of both exporters: the activation of every feed-forward layer.
FIXTURE_ACTIVATIONS = [
    ("bert_eager.torchscript.onnx", "Erf", "bias_gelu"),
    ("bert_sdpa.torchscript.onnx", "Erf", "bias_gelu"),
    ("bert.dynamo.onnx", "Gelu", "bias_gelu"),
    ("distilbert.torchscript.onnx", "Erf", "bias_gelu"),
    ("distilbert.dynamo.onnx", "Gelu", "bias_gelu"),
    ("vit.torchscript.onnx", "Erf", "bias_gelu"),
    ("vit.dynamo.onnx", "Gelu", "bias_gelu"),
    ("gpt2.torchscript.onnx", "Tanh", "fast_gelu"),
    ("gpt2.dynamo.onnx", "Tanh", "fast_gelu"),
    ("llama.torchscript.onnx", "Sigmoid", "quick_gelu"),
    ("llama.dynamo.onnx", "Sigmoid", "quick_gelu"),
]


@pytest.mark.parametrize("name,marker,fused", FIXTURE_ACTIVATIONS)
def test_every_activation_of_the_exported_transformers_fuses(optimize_verified, tmp_path, name,
                                                              marker, fused):
    source = FIXTURES / name
    layers = count(source, marker)
    assert layers == 2
    report, model = optimize_verified(source, tmp_path, "--fusions", fused)
    assert report["fused_operators"] == {fused: layers}
    assert marker not in op_types(model)


GREEDY = """(graph bias_gelu
  (node x (input :shape [3 4 6]))
  (node b (weight :shape [6]))
  (node sqrt2 (constant :shape [] :value 1.4142135623730951))
  (node one (constant :shape [] :value 1.0))
  (node half (constant :shape [] :value 0.5))
  (node s (add b x))
  (node d (div s sqrt2))
  (node e (erf d))
  (node a (add e one))
  (node p (mul s a))
  (node g (mul p half))
  (node y (tanh g))
  (output out y)
)
"""


def test_pm_apply_fuses_greedily_and_computes_the_same(pm_apply_histogram):
    assert pm_apply_histogram(GREEDY) == {"bias_gelu": 1, "tanh": 1}


def test_the_python_api_takes_the_gelu_fusions(saturate_api):
    fused, report = saturate_api.optimize(str(FIXTURES / "gpt2.dynamo.onnx"), cost="analytic",
                                          fusions=["fast_gelu"])
    assert report["fused_operators"] == {"fast_gelu": 2}
    # At opset 20 and later the kernel is ONNX's own Gelu(approximate="tanh").
    assert next(o.version for o in fused.opset_import if o.domain in ("", "ai.onnx")) >= 20
    tanh_gelus = [node for node in fused.graph.node
                  if node.op_type == "Gelu" and attributes(node) == {"approximate": b"tanh"}]
    assert len(tanh_gelus) == 2 and "FastGelu" not in op_types(fused)
