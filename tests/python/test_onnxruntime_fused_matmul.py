"""Matrix products in the ONNX Runtime fusion library (rules/pypm/onnxruntime.py): a transpose of
either operand's last two axes and a scalar scale (on the product, Mul or Div, or on either
operand) fold into one FusedMatMul (com.microsoft) in the e-graph, each verified in ONNX Runtime
against the unfused model; what is not such a transpose or scale stays."""
import json
import pathlib

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper

REPO = pathlib.Path(__file__).resolve().parents[2]
SWAP = {2: [1, 0], 3: [0, 2, 1], 4: [0, 1, 3, 2]}


def product_model(a_shape, b_shape, trans_a=False, trans_b=False, scale=None, perm_a=None):
    """Erf(scale(Transpose?(a) @ Transpose?(b))): a and b are stored as the model's inputs,
    transposed where the product transposes them. `scale`: None, ("mul", c), ("mul_first", c),
    ("div", c), ("a", c) or ("b", c) (the operand multiplied by c before the product)."""
    node = helper.make_node
    nodes, init = [], []
    a, b = "a", "b"
    if trans_a or perm_a:
        nodes.append(node("Transpose", ["a"], ["at"], perm=perm_a or SWAP[len(a_shape)]))
        a = "at"
    if trans_b:
        nodes.append(node("Transpose", ["b"], ["bt"], perm=SWAP[len(b_shape)]))
        b = "bt"
    kind = scale[0] if scale else None
    if scale:
        init.append(numpy_helper.from_array(np.array(scale[1], np.float32), "c"))
    if kind in ("a", "b"):
        operand = a if kind == "a" else b
        nodes.append(node("Mul", [operand, "c"], [f"{operand}_scaled"]))
        a, b = (f"{a}_scaled", b) if kind == "a" else (a, f"{b}_scaled")
    nodes.append(node("MatMul", [a, b], ["p"]))
    last = "p"
    if kind == "mul":
        nodes.append(node("Mul", ["p", "c"], ["ps"]))
        last = "ps"
    elif kind == "mul_first":
        nodes.append(node("Mul", ["c", "p"], ["ps"]))
        last = "ps"
    elif kind == "div":
        nodes.append(node("Div", ["p", "c"], ["ps"]))
        last = "ps"
    nodes.append(node("Erf", [last], ["y"]))  # no rule fuses it into the product
    inputs = [helper.make_tensor_value_info("a", TensorProto.FLOAT, list(a_shape)),
              helper.make_tensor_value_info("b", TensorProto.FLOAT, list(b_shape))]
    graph = helper.make_graph(nodes, "product", inputs,
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], init)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def swapped(shape):
    return (*shape[:-2], shape[-1], shape[-2])


def op_types(model):
    return [node.op_type for node in model.graph.node]


def attributes(node):
    return {a.name: helper.get_attribute_value(a) for a in node.attribute}


def run(model, feeds):
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    return session.run(None, feeds)[0]


def feeds_for(model, seed=11):
    rng = np.random.default_rng(seed)
    return {value.name: rng.normal(size=[d.dim_value for d in value.type.tensor_type.shape.dim])
            .astype(np.float32) for value in model.graph.input}


# (a, b) as the product reads them; the stored operand is transposed where the product swaps it.
SHAPES = {"rank2": ((6, 8), (8, 5)), "batch3": ((3, 6, 8), (3, 8, 5)),
          "heads4_broadcast": ((2, 4, 6, 8), (1, 4, 8, 6))}
SCALES = {None: 1.0, ("mul", 0.125): 0.125, ("mul_first", 0.125): 0.125, ("div", 8.0): 0.125,
          ("a", 0.5): 0.5, ("b", -2.0): -2.0}


# Every transpose combination with every scale, but not the plain product (no fusion).
FUSIONS = [(transposes, scale) for transposes in ((True, False), (False, True), (True, True),
                                                  (False, False))
           for scale in SCALES if transposes != (False, False) or scale is not None]


@pytest.mark.parametrize("transposes,scale", FUSIONS,
                         ids=[f"{int(t[0])}{int(t[1])}-{'none' if s is None else s[0]}"
                              for t, s in FUSIONS])
@pytest.mark.parametrize("shapes", sorted(SHAPES))
def test_transposes_and_scales_fold_into_one_kernel(optimize_verified, tmp_path, transposes,
                                                   scale, shapes):
    trans_a, trans_b = transposes
    a_shape, b_shape = SHAPES[shapes]
    stored_a = swapped(a_shape) if trans_a else a_shape
    stored_b = swapped(b_shape) if trans_b else b_shape
    source = tmp_path / "product.onnx"
    original = product_model(stored_a, stored_b, trans_a, trans_b, scale)
    onnx.save(original, str(source))
    report, model = optimize_verified(source, tmp_path)
    assert report["fused_operators"] == {"fused_matmul": 1}
    assert op_types(model) == ["FusedMatMul", "Erf"]
    fused = model.graph.node[0]
    assert fused.domain == "com.microsoft" and list(fused.input) == ["a", "b"]
    attrs = attributes(fused)
    assert (attrs["transA"], attrs["transB"]) == (int(trans_a), int(trans_b))
    assert attrs["alpha"] == pytest.approx(SCALES[scale], rel=1e-6)
    feeds = feeds_for(original)
    np.testing.assert_allclose(run(model, feeds), run(original, feeds), rtol=1e-5, atol=1e-6)


def test_a_transpose_of_other_axes_stays(optimize_verified, tmp_path):
    """Transpose (1, 0, 2) swaps the batch axis with the rows: not FusedMatMul's transpose."""
    source = tmp_path / "product.onnx"
    original = product_model((6, 3, 8), (3, 8, 5), perm_a=[1, 0, 2])
    onnx.save(original, str(source))
    report, model = optimize_verified(source, tmp_path)
    assert report["fused_operators"] == {}
    assert op_types(model) == ["Transpose", "MatMul", "Erf"]


def test_a_scale_per_column_is_not_alpha(optimize_verified, tmp_path):
    source = tmp_path / "product.onnx"
    original = product_model((6, 8), (8, 5))
    scale = numpy_helper.from_array(np.linspace(0.5, 2.0, 5).astype(np.float32), "c")
    original.graph.initializer.append(scale)
    original.graph.node.insert(1, helper.make_node("Mul", ["p", "c"], ["ps"]))
    original.graph.node[2].input[0] = "ps"
    onnx.save(original, str(source))
    report, model = optimize_verified(source, tmp_path)
    assert report["fused_operators"] == {}
    assert "FusedMatMul" not in op_types(model)


def test_a_scalar_of_higher_rank_is_not_folded(optimize_verified, tmp_path):
    """A (1, 1, 1) scale raises a rank-2 product to rank 3: folding it would change the shape."""
    source = tmp_path / "product.onnx"
    original = product_model((6, 8), (8, 5), scale=("mul", 0.5))
    original.graph.initializer[0].CopyFrom(
        numpy_helper.from_array(np.full((1, 1, 1), 0.5, np.float32), "c"))
    onnx.save(original, str(source))
    report, model = optimize_verified(source, tmp_path)
    assert report["fused_operators"] == {}
    assert op_types(model) == ["MatMul", "Mul", "Erf"]


@pytest.mark.parametrize("options", [("--target", "onnx"), ("--fusions", "none")])
def test_target_onnx_and_no_fusions_write_no_fused_matmul(optimize_verified, tmp_path, options):
    source = tmp_path / "product.onnx"
    onnx.save(product_model((3, 6, 8), (3, 5, 8), trans_b=True, scale=("div", 8.0)),
              str(source))
    report, model = optimize_verified(source, tmp_path, *options)
    assert report["fused_operators"] == {}
    assert "FusedMatMul" not in op_types(model)


GREEDY = """(graph fused_matmul
  (node q (input :shape [2 4 8 16]))
  (node k (input :shape [2 4 8 16]))
  (node c1 (constant :shape [] :value 0.5))
  (node c2 (constant :shape [] :value 0.5))
  (node qs (mul q c1))
  (node kt (transpose k :perm [0 1 3 2]))
  (node ks (mul kt c2))
  (node s (matmul qs ks))
  (node y (tanh s))
  (output out y)
)
"""


def test_pm_apply_folds_both_scales_and_the_transpose_greedily(saturate, tmp_path):
    """SDPA's spelling: sqrt of the scale on both operands, the key transposed. The library is
    its own file (greedy rewriting of one library with attention would fold the scores first)."""
    library, graph, out = tmp_path / "matmul.pmb", tmp_path / "graph.sxp", tmp_path / "out.sxp"
    compiled = saturate("pm", "compile", REPO / "rules" / "pypm" / "onnxruntime_matmul.py", "-o",
                        library)
    assert compiled.returncode == 0, compiled.stderr
    graph.write_text(GREEDY)
    result = saturate("pm", "apply", library, graph, "--verify", "-o", out)
    assert result.returncode == 0, result.stderr
    assert "verify: ok" in result.stdout
    histogram = json.loads(saturate("show", out, "--json").stdout)["op_histogram"]
    assert histogram == {"fused_matmul": 1, "tanh": 1}

