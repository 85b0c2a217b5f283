"""Rotary position embedding in the ONNX Runtime fusion library (rules/pypm/onnxruntime.py):
x * cos + rotate_half(x) * sin, as both exporters write Llama's apply_rotary_pos_emb, becomes
RotaryEmbedding in the e-graph. Export writes ONNX Runtime's kernel where the tables repeat their
halves (every rotate-half table does) and the formula otherwise; both verified in ONNX Runtime
against the unfused model. Also the Slice import that the pattern reads the halves through."""
import json
import pathlib

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper

REPO = pathlib.Path(__file__).resolve().parents[2]
FIXTURES = REPO / "tests" / "fixtures" / "exporters"
INT64_MAX = np.iinfo(np.int64).max


def ints(name, values):
    return numpy_helper.from_array(np.array(values, np.int64), name)


def rope_tables(positions, head, base=10000.0, repeat_halves=True):
    """Llama's cos and sin tables (S, H): the angles of each pair, concatenated twice."""
    inverse = 1.0 / base ** (np.arange(0, head, 2) / head)
    angles = np.outer(np.arange(positions), inverse)
    if repeat_halves:
        angles = np.concatenate([angles, angles], axis=-1)
    else:  # a table whose halves differ: not one angle per pair
        angles = np.concatenate([angles, 1.5 * angles + 0.25], axis=-1)
    return np.cos(angles).astype(np.float32), np.sin(angles).astype(np.float32)


def rotary_model(shape=(2, 4, 16, 32), table_rank=4, spelling="torchscript", repeat_halves=True,
                 halves=("second", "first")):
    """q * cos + rotate_half(q) * sin on x (B, N, S, H), then a Tanh. `spelling` picks the slice
    bounds as the exporters write them (TorchScript: [H/2, INT64_MAX); dynamo: the same with its
    own constants; "negative": [-H/2, H) and [0, -H/2)) and the operand orders."""
    b, n, s, h = shape
    cos, sin = rope_tables(s, h, repeat_halves=repeat_halves)
    table_shape = [1] * (table_rank - 2) + [s, h]
    init = [numpy_helper.from_array(cos.reshape(table_shape), "cos"),
            numpy_helper.from_array(sin.reshape(table_shape), "sin"),
            ints("axis", [3]), ints("zero", [0]), ints("half", [h // 2]), ints("end", [INT64_MAX]),
            ints("minus_half", [-h // 2]), ints("full", [h])]
    bounds = {"first": ["zero", "half"], "second": ["half", "end"]}
    if spelling == "negative":
        bounds = {"first": ["zero", "minus_half"], "second": ["minus_half", "full"]}
    node = helper.make_node
    nodes = [node("Slice", ["x", *bounds[halves[0]], "axis"], ["hi"]),
             node("Slice", ["x", *bounds[halves[1]], "axis"], ["lo"]),
             node("Neg", ["hi"], ["neg"]),
             node("Concat", ["neg", "lo"], ["rot"], axis=-1)]
    if spelling == "dynamo":  # products and the sum written the other way round
        nodes += [node("Mul", ["cos", "x"], ["a"]), node("Mul", ["sin", "rot"], ["c"]),
                  node("Add", ["c", "a"], ["r"])]
    else:
        nodes += [node("Mul", ["x", "cos"], ["a"]), node("Mul", ["rot", "sin"], ["c"]),
                  node("Add", ["a", "c"], ["r"])]
    nodes.append(node("Tanh", ["r"], ["y"]))
    graph = helper.make_graph(
        nodes, "rotary", [helper.make_tensor_value_info("x", TensorProto.FLOAT, list(shape))],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, list(shape))], init)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def op_types(model):
    return [node.op_type for node in model.graph.node]


def run(model, x):
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    return session.run(None, {"x": x})[0]


@pytest.mark.parametrize("spelling", ["torchscript", "dynamo", "negative"])
@pytest.mark.parametrize("shape,table_rank", [((2, 4, 16, 32), 4), ((1, 8, 7, 64), 2),
                                              ((3, 2, 5, 8), 3)])
def test_rotate_half_fuses_into_the_kernel_and_computes_the_same(optimize_verified, tmp_path,
                                                                 spelling, shape, table_rank):
    source = tmp_path / "rotary.onnx"
    original = rotary_model(shape, table_rank, spelling)
    onnx.save(original, str(source))
    report, model = optimize_verified(source, tmp_path)
    assert report["fused_operators"] == {"rotary_embedding": 1}
    assert report["rotary_embeddings_written_as_formula"] == 0
    assert op_types(model) == ["RotaryEmbedding", "Tanh"]
    rotary = model.graph.node[0]
    assert rotary.domain == "com.microsoft"
    caches = {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}
    assert caches[rotary.input[2]].shape == (shape[2], shape[3] // 2)
    assert caches[rotary.input[1]].tolist() == [0]
    # Beyond --verify's random inputs: inputs of several magnitudes, compared elementwise.
    rng = np.random.default_rng(7)
    for scale in (1e-3, 1.0, 30.0):
        x = (scale * rng.normal(size=shape)).astype(np.float32)
        np.testing.assert_allclose(run(model, x), run(original, x), rtol=1e-5, atol=1e-6)


def test_tables_that_do_not_repeat_their_halves_are_written_as_the_formula(optimize_verified,
                                                                            tmp_path):
    """The rewrite is exact for any tables; ONNX Runtime's kernel holds one angle per pair, so
    export writes it only where each table repeats its halves."""
    source = tmp_path / "rotary.onnx"
    original = rotary_model(repeat_halves=False)
    onnx.save(original, str(source))
    report, model = optimize_verified(source, tmp_path)
    # Extraction took the IR kernel; the report counts what was written.
    assert report["fused_operators"] == {}
    assert report["rotary_embeddings_written_as_formula"] == 1
    assert "RotaryEmbedding" not in op_types(model)
    assert all(node.domain == "" for node in model.graph.node)
    x = np.random.default_rng(3).normal(size=(2, 4, 16, 32)).astype(np.float32)
    np.testing.assert_allclose(run(model, x), run(original, x), rtol=1e-5, atol=1e-6)


def test_tables_computed_from_large_angle_constants_fuse(optimize_verified, tmp_path):
    """The TorchScript exporter writes the tables as Cos and Sin of a constant angle tensor, then
    scales, casts and unsqueezes them; import folds Cos and Sin at any size (here 2^17 elements,
    past the limit below which float weight arithmetic is left to the IR), so the tables are
    known and the kernel is written."""
    b, n, s, h = 1, 2, 1024, 128
    inverse = 1.0 / 10000.0 ** (np.arange(0, h, 2) / h)
    angles = np.outer(np.arange(s), inverse)
    angles = np.concatenate([angles, angles], axis=-1)[None].astype(np.float32)  # (1, S, H)
    original = rotary_model((b, n, s, h))
    graph = original.graph
    for node in graph.node:  # read the tables through Cos/Sin -> Mul 1 -> Cast -> Unsqueeze
        node.input[:] = [{"cos": "cos4", "sin": "sin4"}.get(i, i) for i in node.input]
    del graph.initializer[:2]
    graph.initializer.extend([numpy_helper.from_array(angles, "angles"),
                              numpy_helper.from_array(np.array(1.0, np.float32), "one"),
                              ints("unsqueeze_axes", [1])])
    for table, op in (("cos", "Cos"), ("sin", "Sin")):
        graph.node.insert(0, helper.make_node("Unsqueeze", [f"{table}3", "unsqueeze_axes"],
                                              [f"{table}4"]))
        graph.node.insert(0, helper.make_node("Cast", [f"{table}2"], [f"{table}3"], to=1))
        graph.node.insert(0, helper.make_node("Mul", [f"{table}1", "one"], [f"{table}2"]))
        graph.node.insert(0, helper.make_node(op, ["angles"], [f"{table}1"]))
    source = tmp_path / "rotary.onnx"
    onnx.save(original, str(source))
    report, model = optimize_verified(source, tmp_path)
    assert report["fused_operators"] == {"rotary_embedding": 1}
    assert report["rotary_embeddings_written_as_formula"] == 0
    assert op_types(model) == ["RotaryEmbedding", "Tanh"]


@pytest.mark.parametrize("halves", [("first", "second"), ("first", "first")])
def test_what_is_not_rotate_half_stays(optimize_verified, tmp_path, halves):
    """concat(-x1, x2) and concat(-x1, x1) are not rotate_half(x)."""
    source = tmp_path / "rotary.onnx"
    onnx.save(rotary_model(halves=halves), str(source))
    report, model = optimize_verified(source, tmp_path)
    assert report["fused_operators"] == {}
    assert "Neg" in op_types(model)


@pytest.mark.parametrize("options", [("--target", "onnx"), ("--fusions", "none")])
def test_target_onnx_and_no_fusions_keep_the_formula(optimize_verified, tmp_path, options):
    source = tmp_path / "rotary.onnx"
    onnx.save(rotary_model(), str(source))
    report, model = optimize_verified(source, tmp_path, *options)
    assert report["fused_operators"] == {}
    assert "RotaryEmbedding" not in op_types(model)


@pytest.mark.parametrize("name", ["llama.torchscript.onnx", "llama.dynamo.onnx"])
def test_the_exported_llamas_rotate_queries_and_keys_with_the_kernel(optimize_verified, tmp_path,
                                                                      name):
    source = FIXTURES / name
    negations = op_types(onnx.load(str(source))).count("Neg")
    assert negations == 4  # queries and keys of two layers
    report, model = optimize_verified(source, tmp_path, "--fusions", "rotary_embedding")
    assert report["fused_operators"] == {"rotary_embedding": negations}
    rotary = [node for node in model.graph.node if node.op_type == "RotaryEmbedding"]
    assert len(rotary) == negations and "Neg" not in op_types(model)


def test_every_fusion_together_on_the_llama(optimize_verified, tmp_path):
    report, model = optimize_verified(FIXTURES / "llama.dynamo.onnx", tmp_path)
    assert report["fused_operators"]["rotary_embedding"] == 4
    assert report["fused_operators"]["multi_head_attention"] == 2
    assert op_types(model).count("RotaryEmbedding") == 4


def slice_model(starts, ends, axes=None, steps=None, shape=(3, 6, 8)):
    init = [ints("starts", starts), ints("ends", ends)]
    inputs = ["x", "starts", "ends"]
    if axes is not None:
        init.append(ints("axes", axes))
        inputs.append("axes")
    if steps is not None:
        if axes is None:
            init.append(ints("axes", list(range(len(starts)))))
            inputs.append("axes")
        init.append(ints("steps", steps))
        inputs.append("steps")
    nodes = [helper.make_node("Slice", inputs, ["s"]), helper.make_node("Tanh", ["s"], ["y"])]
    graph = helper.make_graph(
        nodes, "slice", [helper.make_tensor_value_info("x", TensorProto.FLOAT, list(shape))],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], init)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


SLICES = {
    # name: (starts, ends, axes, steps, IR slices expected)
    "last_axis_half": ([4], [INT64_MAX], [-1], None, 1),
    "negative_start": ([-3], [8], [2], None, 1),
    "axes_omitted": ([1, 2], [3, 5], None, None, 2),
    "two_axes": ([0, 1], [2, 5], [1, 2], [1, 1], 2),
    "whole_tensor": ([0], [INT64_MAX], [1], None, 0),
    "clamped": ([-100], [100], [0], None, 0),
    "last_token": ([-1], [INT64_MAX], [1], None, 1),
}


@pytest.mark.parametrize("case", sorted(SLICES))
def test_constant_slices_import_as_ir_slices_and_export_equal(saturate, tmp_path, case):
    starts, ends, axes, steps, expected = SLICES[case]
    source, out = tmp_path / "slice.onnx", tmp_path / "out.onnx"
    original = slice_model(starts, ends, axes, steps)
    onnx.save(original, str(source))
    shown = saturate("show", source, "--json")
    assert shown.returncode == 0, shown.stderr

    histogram = json.loads(shown.stdout)["op_histogram"]
    assert histogram.get("slice", 0) == expected and "opaque" not in histogram
    result = saturate("optimize", source, "-o", out, "--verify", "--cost", "analytic")
    assert result.returncode == 0, result.stderr
    x = np.random.default_rng(1).normal(size=(3, 6, 8)).astype(np.float32)
    np.testing.assert_array_equal(run(onnx.load(str(out)), x), run(original, x))


@pytest.mark.parametrize("case", ["strided", "reversed"])
def test_slices_the_ir_does_not_express_stay_opaque(saturate, tmp_path, case):
    starts, ends, steps = {"strided": ([0], [8], [2]), "reversed": ([-1], [-9], [-1])}[case]
    source, out = tmp_path / "slice.onnx", tmp_path / "out.onnx"
    original = slice_model(starts, ends, [2], steps)
    onnx.save(original, str(source))

    histogram = json.loads(saturate("show", source, "--json").stdout)["op_histogram"]
    assert "slice" not in histogram and histogram.get("opaque") == 1
    result = saturate("optimize", source, "-o", out, "--verify", "--cost", "analytic")
    assert result.returncode == 0, result.stderr
    x = np.random.default_rng(1).normal(size=(3, 6, 8)).astype(np.float32)
    np.testing.assert_array_equal(run(onnx.load(str(out)), x), run(original, x))
