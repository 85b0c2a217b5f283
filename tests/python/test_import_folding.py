"""Every fold that import does is checked against ONNX Runtime: a model computes an operator on
constants, casts the result to float and adds a graph input; Saturate folds the operator into an
initializer, and --verify runs the original (unfolded) and the written (folded) model in ONNX
Runtime on the same inputs."""
import json

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

I64 = np.int64
BIG = np.iinfo(np.int64).max
SMALL = np.iinfo(np.int64).min

# (name, op, constant inputs (None: absent optional input), attributes, opset)
CASES = [
    ("slice_negative_to_end", "Slice",
     [np.arange(12, dtype=I64).reshape(3, 4), np.array([-3], I64), np.array([BIG], I64),
      np.array([1], I64)], {}, 17),
    ("slice_reversed_step", "Slice",
     [np.arange(10, dtype=I64), np.array([-1], I64), np.array([SMALL], I64), np.array([0], I64),
      np.array([-3], I64)], {}, 17),
    ("slice_clamped", "Slice",
     [np.arange(24, dtype=np.float32).reshape(2, 3, 4), np.array([1, -100], I64),
      np.array([100, -1], I64), np.array([2, 0], I64)], {}, 17),
    ("range_int", "Range", [np.array(2, I64), np.array(17, I64), np.array(3, I64)], {}, 17),
    ("range_float", "Range", [np.array(0.5, np.float32), np.array(3.0, np.float32),
                              np.array(0.25, np.float32)], {}, 17),
    ("gather_negative", "Gather", [np.arange(20, dtype=np.float32).reshape(4, 5),
                                   np.array([[-1, 0], [2, -4]], I64)], {"axis": 0}, 17),
    ("gather_axis1", "Gather", [np.arange(20, dtype=I64).reshape(4, 5), np.array([4, 1], I64)],
     {"axis": 1}, 17),
    ("div_int", "Div", [np.array([7, -7, 7, -7, 9], I64), np.array([2, 2, -2, -2, 3], I64)], {},
     17),
    ("mod_int", "Mod", [np.array([7, -7, 7, -7], I64), np.array([3, 3, -3, -3], I64)], {}, 17),
    ("mod_fmod", "Mod", [np.array([7, -7, 7, -7], I64), np.array([3, 3, -3, -3], I64)],
     {"fmod": 1}, 17),
    ("mod_float", "Mod", [np.array([5.5, -5.5], np.float32), np.array([2.0, 2.0], np.float32)],
     {"fmod": 1}, 17),
    ("cast_truncates", "Cast", [np.array([-2.7, -0.5, 0.5, 2.7], np.float32)],
     {"to": TensorProto.INT64}, 17),
    ("cast_to_bool", "Cast", [np.array([0.0, 0.1, -3.0], np.float32)],
     {"to": TensorProto.BOOL}, 17),
    ("where_broadcast", "Where", [np.array([[True], [False]]), np.array([1.0, 2.0, 3.0],
                                 np.float32), np.array(-1.0, np.float32)], {}, 17),
    ("expand", "Expand", [np.array([[1], [2]], I64), np.array([2, 3], I64)], {}, 17),
    ("tile", "Tile", [np.array([[1, 2], [3, 4]], I64), np.array([2, 3], I64)], {}, 17),
    ("trilu_upper_k", "Trilu", [np.ones((4, 5), np.float32), np.array(1, I64)], {}, 17),
    ("trilu_lower", "Trilu", [np.arange(16, dtype=I64).reshape(4, 4)], {"upper": 0}, 17),
    ("cumsum_reverse_exclusive", "CumSum", [np.array([1, 2, 3, 4], I64), np.array(0, I64)],
     {"reverse": 1, "exclusive": 1}, 17),
    ("reduce_sum_input_axes", "ReduceSum",
     [np.arange(24, dtype=np.float32).reshape(2, 3, 4), np.array([0, 2], I64)],
     {"keepdims": 0}, 17),
    ("reduce_max_opset18", "ReduceMax",
     [np.arange(12, dtype=I64).reshape(3, 4), np.array([-1], I64)], {}, 18),
    ("reduce_mean_attr", "ReduceMean", [np.arange(12, dtype=np.float32).reshape(3, 4)],
     {"axes": [0]}, 17),
    ("scatter_nd", "ScatterND", [np.zeros((4, 3), np.float32), np.array([[1], [3]], I64),
                                 np.ones((2, 3), np.float32)], {}, 17),
    ("equal_int", "Equal", [np.array([1, 2, 3], I64), np.array(2, I64)], {}, 17),
    ("less_float", "Less", [np.array([1.0, 2.0, 3.0], np.float32), np.array(2.5, np.float32)],
     {}, 17),
    ("not", "Not", [np.array([True, False])], {}, 17),
    ("isnan", "IsNaN", [np.array([np.nan, 0.0, np.inf], np.float32)], {}, 17),
    ("isinf_positive", "IsInf", [np.array([-np.inf, 0.0, np.inf], np.float32)],
     {"detect_negative": 0}, 17),
    ("pow_int", "Pow", [np.array([2, 3, -2], I64), np.array([3, 2, 3], I64)], {}, 17),
    ("reshape_zero_minus_one", "Reshape",
     [np.arange(24, dtype=I64).reshape(2, 3, 4), np.array([0, -1], I64)], {}, 17),
    ("unsqueeze_input_axes", "Unsqueeze", [np.arange(6, dtype=I64).reshape(2, 3),
                                           np.array([0, -1], I64)], {}, 17),
    ("squeeze", "Squeeze", [np.arange(6, dtype=I64).reshape(1, 6, 1), np.array([0], I64)], {},
     17),
    ("transpose", "Transpose", [np.arange(24, dtype=I64).reshape(2, 3, 4)], {"perm": [2, 0, 1]},
     17),
    ("constant_of_shape", "ConstantOfShape", [np.array([2, 3], I64)],
     {"value": numpy_helper.from_array(np.array([7], I64))}, 17),
    ("min_max_variadic", "Max", [np.array([1, 5, 3], I64), np.array([[4], [2]], I64)], {}, 17),
    ("neg_abs_sign", "Sign", [np.array([-3.0, 0.0, 2.0], np.float32)], {}, 17),
    ("sqrt_reciprocal", "Reciprocal", [np.array([0.5, 2.0, 3.0], np.float32)], {}, 17),
    ("concat_ints", "Concat", [np.array([[1, 2]], I64), np.array([[3, 4], [5, 6]], I64)],
     {"axis": 0}, 17),
    ("split_num_outputs", "Split", [np.arange(10, dtype=I64)], {"num_outputs": 3}, 18),
]


def build(op, inputs, attrs, opset, tmp_path):
    initializers, names = [], []
    for k, value in enumerate(inputs):
        if value is None:
            names.append("")
            continue
        names.append(f"c{k}")
        initializers.append(numpy_helper.from_array(np.asarray(value), f"c{k}"))
    outputs = ["y0", "y1", "y2"] if op == "Split" else ["y0"]
    node = helper.make_node(op, names, outputs, name="folded_node", **attrs)
    probe = helper.make_graph([node], "probe", [], [onnx.ValueInfoProto(name=o) for o in outputs],
                              initializers)
    probe_model = helper.make_model(probe, opset_imports=[helper.make_opsetid("", opset)])
    probe_model.ir_version = 8
    results = ort.InferenceSession(probe_model.SerializeToString(),
                                   providers=["CPUExecutionProvider"]).run(None, {})
    nodes = [node]
    graph_inputs, graph_outputs = [], []
    for name, result in zip(outputs, results):
        shape = list(result.shape) or [1]
        nodes.append(helper.make_node("Cast", [name], [name + "_f"], to=TensorProto.FLOAT))
        graph_inputs.append(helper.make_tensor_value_info("x_" + name, TensorProto.FLOAT, shape))
        nodes.append(helper.make_node("Add", ["x_" + name, name + "_f"], ["out_" + name]))
        graph_outputs.append(helper.make_tensor_value_info("out_" + name, TensorProto.FLOAT,
                                                           shape))
    graph = helper.make_graph(nodes, "fold", graph_inputs, graph_outputs, initializers)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 8
    path = tmp_path / "fold.onnx"
    onnx.save(model, path)
    return path


@pytest.mark.parametrize("name,op,inputs,attrs,opset", CASES, ids=[c[0] for c in CASES])
def test_fold_matches_onnx_runtime(saturate, tmp_path, name, op, inputs, attrs, opset):
    source = build(op, inputs, attrs, opset, tmp_path)
    out = tmp_path / "folded.onnx"
    report_path = tmp_path / "report.json"
    result = saturate("optimize", source, "-o", out, "--cost", "analytic", "--verify",
                      "--json", report_path)
    assert result.returncode == 0, result.stderr
    report = json.loads(report_path.read_text())
    assert report["folded_nodes"] >= 1, "the operator was not folded"
    written = onnx.load(str(out))
    assert op not in {n.op_type for n in written.graph.node}
    assert report["verified"] is True
    # The check compares in float32 with a tolerance: exact integers must match exactly.
    rng = np.random.default_rng(3)
    feeds = {i.name: rng.standard_normal([d.dim_value for d in i.type.tensor_type.shape.dim])
             .astype(np.float32) for i in written.graph.input}
    want = ort.InferenceSession(str(source), providers=["CPUExecutionProvider"]).run(None, feeds)
    got = ort.InferenceSession(str(out), providers=["CPUExecutionProvider"]).run(None, feeds)
    for a, b in zip(want, got):
        np.testing.assert_array_equal(a, b)
