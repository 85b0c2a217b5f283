"""RMSNorm in the ONNX Runtime fusion library (rules/pypm/onnxruntime.py): the exporters'
x * rsqrt(mean(x^2) + eps) * w becomes ONNX Runtime's SimplifiedLayerNormalization, chosen in
the e-graph and verified in ONNX Runtime against the unfused model; greedily with `pm apply`,
verified in the reference interpreter."""
import json
import os
import pathlib
import subprocess
import sys

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

REPO = pathlib.Path(__file__).resolve().parents[2]
FIXTURES = REPO / "tests" / "fixtures" / "exporters"
SHAPE = [2, 5, 8]


def rms_norm_model(spelling, axes=(-1,), opset=18, shape=SHAPE):
    """One RMSNorm over x (default (2, 5, 8)) as an exporter spells it, then a Tanh (so the norm
    is not the graph output)."""
    rng = np.random.default_rng(3)
    init = [numpy_helper.from_array(rng.normal(size=shape[-1]).astype(np.float32), "w"),
            numpy_helper.from_array(np.array(2.0, np.float32), "two"),
            numpy_helper.from_array(np.array(1e-6, np.float32), "eps"),
            numpy_helper.from_array(np.array(1.0, np.float32), "one"),
            numpy_helper.from_array(np.array(-0.5, np.float32), "minus_half"),
            numpy_helper.from_array(np.array(axes, np.int64), "axes")]
    nodes, x = [], "x"
    if spelling == "torchscript":  # .to(float32) casts around the norm
        nodes.append(helper.make_node("Cast", ["x"], ["xc"], to=TensorProto.FLOAT))
        x = "xc"
    if spelling == "square_by_mul":
        nodes.append(helper.make_node("Mul", [x, x], ["sq"]))
    else:
        nodes.append(helper.make_node("Pow", [x, "two"], ["sq"]))
    if opset >= 18:
        nodes.append(helper.make_node("ReduceMean", ["sq", "axes"], ["ms"], keepdims=1))
    else:
        nodes.append(helper.make_node("ReduceMean", ["sq"], ["ms"], axes=list(axes), keepdims=1))
    if spelling == "square_by_mul":
        nodes.append(helper.make_node("Add", ["eps", "ms"], ["v"]))
    else:
        nodes.append(helper.make_node("Add", ["ms", "eps"], ["v"]))
    if spelling == "dynamo":
        nodes += [helper.make_node("Sqrt", ["v"], ["s"]),
                  helper.make_node("Reciprocal", ["s"], ["r"]),
                  helper.make_node("Mul", [x, "r"], ["n"])]
    elif spelling == "torchscript":
        nodes += [helper.make_node("Sqrt", ["v"], ["s"]),
                  helper.make_node("Div", ["one", "s"], ["r"]),
                  helper.make_node("Mul", [x, "r"], ["nc"]),
                  helper.make_node("Cast", ["nc"], ["n"], to=TensorProto.FLOAT)]
    elif spelling in ("pow", "square_by_mul"):
        nodes += [helper.make_node("Pow", ["v", "minus_half"], ["r"]),
                  helper.make_node("Mul", ["r", x], ["n"])]
    elif spelling == "div":
        nodes += [helper.make_node("Sqrt", ["v"], ["s"]), helper.make_node("Div", [x, "s"], ["n"])]
    first, second = ("w", "n") if spelling in ("dynamo", "torchscript") else ("n", "w")
    nodes += [helper.make_node("Mul", [first, second], ["normed"]),
              helper.make_node("Tanh", ["normed"], ["y"])]
    graph = helper.make_graph(
        nodes, f"rms_{spelling}", [helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, shape)], init)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def op_types(model):
    return [node.op_type for node in model.graph.node]


@pytest.mark.parametrize("spelling,opset", [("dynamo", 18), ("torchscript", 17), ("pow", 18),
                                            ("square_by_mul", 17), ("div", 18)])
def test_every_spelling_fuses_in_the_egraph_and_verifies(optimize_verified, tmp_path, spelling,
                                                         opset):
    source = tmp_path / "rms.onnx"
    onnx.save(rms_norm_model(spelling, opset=opset), str(source))
    report, model = optimize_verified(source, tmp_path)
    assert report["fused_operators"] == {"rms_norm": 1}
    fused = [n for n in model.graph.node if n.op_type == "SimplifiedLayerNormalization"]
    assert len(fused) == 1 and fused[0].domain == ""  # ONNX Runtime declares it there
    assert {a.name: helper.get_attribute_value(a) for a in fused[0].attribute}["axis"] == 2
    assert not {"ReduceMean", "Sqrt", "Reciprocal", "Pow", "Div"} & set(op_types(model))


CHECK = """
import sys, onnx
if sys.argv[2] == "register":
    from saturate import onnxruntime_schemas
    onnxruntime_schemas.register()
    onnxruntime_schemas.register()  # twice is harmless
onnx.checker.check_model(onnx.load(sys.argv[1]), full_check=True)
"""


def test_the_output_passes_the_checker_once_onnxruntime_schemas_are_registered(optimize_verified,
                                                                              tmp_path):
    """onnx.checker does not know ONNX Runtime's default-domain RMSNorm until it is told (each
    check in a fresh process: registration lasts for the process)."""
    source = tmp_path / "rms.onnx"
    onnx.save(rms_norm_model("dynamo"), str(source))
    optimize_verified(source, tmp_path)
    out = str(tmp_path / "out.onnx")
    import saturate

    # The package this test imports (the build's or the installed one).
    env = {**os.environ, "PYTHONPATH": str(pathlib.Path(saturate.__file__).parents[1])}
    plain = subprocess.run([sys.executable, "-c", CHECK, out, "plain"], capture_output=True,
                           text=True, env=env)
    assert plain.returncode != 0 and "SimplifiedLayerNormalization" in plain.stderr
    registered = subprocess.run([sys.executable, "-c", CHECK, out, "register"],
                                capture_output=True, text=True, env=env)
    assert registered.returncode == 0, registered.stderr


@pytest.mark.parametrize("shape", [[6, 16], [1, 3, 4, 32], [64]])
def test_other_ranks_fuse_and_verify(optimize_verified, tmp_path, shape):
    source = tmp_path / "rms.onnx"
    onnx.save(rms_norm_model("dynamo", shape=shape), str(source))
    report, model = optimize_verified(source, tmp_path)
    assert report["fused_operators"] == {"rms_norm": 1}
    assert op_types(model).count("SimplifiedLayerNormalization") == 1


@pytest.mark.parametrize("axes", [(1,), (-2,)])
def test_a_mean_over_another_axis_does_not_fuse(optimize_verified, tmp_path, axes):
    """mean(x^2) over the sequence axis is not an RMSNorm over the features."""
    source = tmp_path / "rms.onnx"
    onnx.save(rms_norm_model("dynamo", axes=axes), str(source))
    report, model = optimize_verified(source, tmp_path)
    assert report["fused_operators"] == {}
    assert "SimplifiedLayerNormalization" not in op_types(model)


def test_the_last_axis_written_as_a_positive_number_fuses(optimize_verified, tmp_path):
    source = tmp_path / "rms.onnx"
    onnx.save(rms_norm_model("dynamo", axes=(2,)), str(source))
    report, _ = optimize_verified(source, tmp_path)
    assert report["fused_operators"] == {"rms_norm": 1}


def test_target_onnx_keeps_the_unfused_norm(optimize_verified, tmp_path):
    source = tmp_path / "rms.onnx"
    onnx.save(rms_norm_model("dynamo"), str(source))
    report, model = optimize_verified(source, tmp_path, "--target", "onnx")
    assert report["fused_operators"] == {}
    assert "SimplifiedLayerNormalization" not in op_types(model)


@pytest.mark.parametrize("name", ["llama.torchscript.onnx", "llama.dynamo.onnx"])
def test_every_norm_of_the_exported_decoder_fuses(optimize_verified, tmp_path, name):
    """The Llama-style decoder: two norms per layer and the final one, both exporters (the
    residual fusion off: tests/python/test_onnxruntime_skip_norm.py has it)."""
    source = FIXTURES / name
    norms = sum(node.op_type == "ReduceMean" for node in onnx.load(str(source)).graph.node)
    assert norms == 5
    report, model = optimize_verified(source, tmp_path, "--fusions", "rms_norm")
    assert report["fused_operators"]["rms_norm"] == norms
    assert op_types(model).count("SimplifiedLayerNormalization") == norms
    assert "ReduceMean" not in op_types(model)


GREEDY = """(graph rms
  (node x (input :shape [3 4 6]))
  (node w (weight :shape [6]))
  (node two (constant :shape [] :value 2.0))
  (node eps (constant :shape [] :value 0.001))
  (node half (constant :shape [] :value -0.5))
  (node sq (pow x two))
  (node ms (reduce_mean sq :axes [-1] :keepdims 1))
  (node v (add ms eps))
  (node r (pow v half))
  (node n (mul x r))
  (node y (mul n w))
  (output out y)
)
"""


def test_pm_apply_fuses_greedily_and_computes_the_same(pm_apply_histogram):
    histogram = pm_apply_histogram(GREEDY)
    assert histogram.get("rms_norm") == 1
    assert "reduce_mean" not in histogram


@pytest.mark.parametrize("fusions,expected", [
    ("rms_norm", {"rms_norm": 5}),
    ("multi_head_attention", {"multi_head_attention": 2}),
    ("none", {}),
    ("rms_norm,multi_head_attention", {"multi_head_attention": 2, "rms_norm": 5}),
])
def test_fusions_selects_the_kernels(optimize_verified, tmp_path, fusions, expected):
    """--fusions turns single fusions on and off (to measure each alone, or to avoid one)."""
    report, model = optimize_verified(FIXTURES / "llama.dynamo.onnx", tmp_path,
                             "--fusions", fusions)
    assert report["fused_operators"] == expected
    assert report["fusions"] == fusions.split(",")
    assert ("SimplifiedLayerNormalization" in op_types(model)) == ("rms_norm" in expected)


def test_an_unknown_fusion_is_refused(saturate):
    result = saturate("optimize", FIXTURES / "llama.dynamo.onnx", "--fusions", "fused_everything")
    assert result.returncode != 0
    assert "unknown fusion 'fused_everything'" in result.stderr


def test_the_python_api_takes_the_fusions(saturate_api):
    fused, report = saturate_api.optimize(str(FIXTURES / "llama.dynamo.onnx"), cost="analytic",
                                          fusions=["rms_norm"])
    assert report["fused_operators"] == {"rms_norm": 5}
    assert op_types(fused).count("SimplifiedLayerNormalization") == 5


def test_a_cast_to_the_same_type_imports_as_the_identity(saturate, tmp_path):
    """What lets the TorchScript spelling match: its .to(float32) casts vanish on import; a cast
    to another type stays."""
    nodes = [helper.make_node("Cast", ["x"], ["same"], to=TensorProto.FLOAT),
             helper.make_node("Relu", ["same"], ["r"]),
             helper.make_node("Cast", ["r"], ["y"], to=TensorProto.DOUBLE)]
    graph = helper.make_graph(nodes, "casts",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4])],
                              [helper.make_tensor_value_info("y", TensorProto.DOUBLE, [4])])
    source = tmp_path / "casts.onnx"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), str(source))
    shown = saturate("show", source, "--json")
    assert shown.returncode == 0, shown.stderr
    histogram = json.loads(shown.stdout)["op_histogram"]
    assert histogram == {"relu": 1, "opaque": 1}  # the cast to double


def test_the_fused_model_imports_its_norms_back(saturate, optimize_verified, tmp_path):
    """SimplifiedLayerNormalization reads back as rms_norm (not an opaque node), so an optimized
    model can be optimized, shown and interpreted again."""
    source = tmp_path / "rms.onnx"
    onnx.save(rms_norm_model("dynamo"), str(source))
    optimize_verified(source, tmp_path)
    shown = saturate("show", tmp_path / "out.onnx", "--json")
    assert shown.returncode == 0, shown.stderr
    assert json.loads(shown.stdout)["op_histogram"] == {"rms_norm": 1, "tanh": 1}
