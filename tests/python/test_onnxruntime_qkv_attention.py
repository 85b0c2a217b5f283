"""Self-attention with its three projections fused into ONNX Runtime's Attention (the IR's
qkv_attention, rules/pypm/onnxruntime.py): the query, key and value weights and biases packed
into one initializer each at export, chosen in the e-graph next to MultiHeadAttention and
verified in ONNX Runtime against the original, on the exporter fixtures and on small synthetic
models (packed only where the weights are the model's own)."""
import pathlib

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper

REPO = pathlib.Path(__file__).resolve().parents[2]
FIXTURES = REPO / "tests" / "fixtures" / "exporters"

# The fixtures whose attention reads three biased projections of one input: every layer fuses.
PROJECTED = ["bert_eager.torchscript.onnx", "bert_sdpa.torchscript.onnx", "bert.dynamo.onnx",
             "distilbert.torchscript.onnx", "distilbert.dynamo.onnx"]


def op_types(model):
    return [node.op_type for node in model.graph.node]


def attribute(node, name):
    return next((helper.get_attribute_value(a) for a in node.attribute if a.name == name), None)


@pytest.mark.parametrize("name", PROJECTED)
def test_every_layer_of_the_encoders_packs_its_projections(optimize_verified, tmp_path, name):
    original = onnx.load(str(FIXTURES / name))
    layers = op_types(original).count("Softmax")
    assert layers == 2
    report, model = optimize_verified(FIXTURES / name, tmp_path, "--fusions",
                                      "multi_head_attention,qkv_attention")
    assert report["fused_operators"] == {"qkv_attention": layers}
    attention = [node for node in model.graph.node if node.op_type == "Attention"]
    assert len(attention) == layers and "MultiHeadAttention" not in op_types(model)
    initializers = {t.name: t for t in model.graph.initializer}
    for node in attention:
        assert node.domain == "com.microsoft"
        weight, bias = initializers[node.input[1]], initializers[node.input[2]]
        assert len(weight.dims) == 2 and weight.dims[1] == 3 * weight.dims[0]
        assert list(bias.dims) == [weight.dims[1]]
        assert attribute(node, "num_heads") == 4
    # The three projections' products are gone: one MatMul per layer left for the output
    # projection and two for the feed-forward block.
    assert op_types(model).count("MatMul") == 3 * layers
    assert "Concat" not in op_types(model)  # packed at export, not at run time


def test_without_qkv_attention_the_projections_stay_for_multi_head_attention(optimize_verified,
                                                                             tmp_path):
    report, model = optimize_verified(FIXTURES / "bert.dynamo.onnx", tmp_path, "--fusions",
                                      "multi_head_attention")
    assert report["fused_operators"] == {"multi_head_attention": 2}
    assert "Attention" not in op_types(model)


def attention_of_heads(init, s, masked):
    """The nodes from the heads q_h, k_h (keys transposed) and v_h to y: scaled scores, an
    optional causal mask (added to `init`), softmax, heads merged by "merge_shape", Tanh."""
    node = helper.make_node
    nodes = [node("MatMul", ["q_h", "k_h"], ["scores"]),
             node("Mul", ["scores", "scale"], ["scaled"])]
    last = "scaled"
    if masked:
        mask = np.where(np.tril(np.ones((s, s))) > 0, 0, -1e4).astype(np.float32)
        init.append(numpy_helper.from_array(mask.reshape(1, 1, s, s), "mask"))
        nodes.append(node("Add", ["scaled", "mask"], ["masked"]))
        last = "masked"
    return nodes + [node("Softmax", [last], ["probs"], axis=-1),
                    node("MatMul", ["probs", "v_h"], ["heads"]),
                    node("Transpose", ["heads"], ["merged_t"], perm=[0, 2, 1, 3]),
                    node("Reshape", ["merged_t", "merge_shape"], ["attended"]),
                    node("Tanh", ["attended"], ["y"])]


def self_attention_model(weights_are_inputs=False, masked=True, seed=3):
    """x (1, S, D) projected three times (MatMul + Add), split into heads, scaled scores with an
    additive mask, softmax, merged: what the TorchScript exporter writes for eager BERT."""
    rng = np.random.default_rng(seed)
    s, d, n = 6, 8, 2
    h = d // n
    node = helper.make_node
    init = [numpy_helper.from_array(np.array(h ** -0.5, np.float32), "scale"),
            numpy_helper.from_array(np.array([1, s, n, h], np.int64), "split_shape"),
            numpy_helper.from_array(np.array([1, s, d], np.int64), "merge_shape")]
    inputs = [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, s, d])]
    nodes = []
    for name in "qkv":
        weight = rng.normal(size=(d, d)).astype(np.float32)
        if weights_are_inputs:
            inputs.append(helper.make_tensor_value_info("w" + name, TensorProto.FLOAT, [d, d]))
        else:
            init.append(numpy_helper.from_array(weight, "w" + name))
        init.append(numpy_helper.from_array(rng.normal(size=(d,)).astype(np.float32), "b" + name))
        perm = [0, 2, 3, 1] if name == "k" else [0, 2, 1, 3]
        nodes += [node("MatMul", ["x", "w" + name], [name + "_p"]),
                  node("Add", [name + "_p", "b" + name], [name]),
                  node("Reshape", [name, "split_shape"], [name + "_r"]),
                  node("Transpose", [name + "_r"], [name + "_h"], perm=perm)]
    nodes += attention_of_heads(init, s, masked)
    graph = helper.make_graph(nodes, "self_attention", inputs,
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, s, d])],
                              init)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


@pytest.mark.parametrize("masked", [False, True])
def test_a_synthetic_self_attention_fuses_and_computes_the_same(optimize_verified, tmp_path,
                                                                masked):
    original = self_attention_model(masked=masked)
    source = tmp_path / "attention.onnx"
    onnx.save(original, str(source))
    report, model = optimize_verified(source, tmp_path)
    assert report["fused_operators"] == {"qkv_attention": 1}
    assert op_types(model) == ["Attention", "Tanh"]
    feeds = {"x": np.random.default_rng(9).normal(size=(1, 6, 8)).astype(np.float32)}
    run = [ort.InferenceSession(m.SerializeToString(), providers=["CPUExecutionProvider"])
           .run(None, feeds)[0] for m in (original, model)]
    np.testing.assert_allclose(run[1], run[0], rtol=1e-5, atol=1e-5)


def test_projections_whose_weights_are_model_inputs_are_not_packed(optimize_verified, tmp_path):
    """Packing weights given at run time would need a Concat on every run: the rule asks for
    the model's own weights, and MultiHeadAttention fuses the rest."""
    source = tmp_path / "attention.onnx"
    onnx.save(self_attention_model(weights_are_inputs=True), str(source))
    report, model = optimize_verified(source, tmp_path)
    assert report["fused_operators"] == {"multi_head_attention": 1}
    assert "Attention" not in op_types(model) and "Concat" not in op_types(model)


def test_target_onnx_writes_no_attention_kernel(optimize_verified, tmp_path):
    source = tmp_path / "attention.onnx"
    onnx.save(self_attention_model(), str(source))
    report, model = optimize_verified(source, tmp_path, "--target", "onnx")
    assert report["fused_operators"] == {}
    assert all(node.domain == "" for node in model.graph.node)


# ---- projections the model packed itself (GPT-2's c_attn) -----------------------------------
PACKED = ["gpt2.torchscript.onnx", "gpt2.dynamo.onnx"]


@pytest.mark.parametrize("name", PACKED)
def test_every_layer_of_gpt2_takes_its_packed_projection_as_it_is(optimize_verified, tmp_path,
                                                                 name):
    """GPT-2's Conv1D already packs q, k and v into one weight: the three thirds of its product
    are split parts (slices in the e-graph), and Attention takes the weight and bias unchanged."""
    original = onnx.load(str(FIXTURES / name))
    layers = op_types(original).count("Softmax")
    assert layers == 2
    report, model = optimize_verified(FIXTURES / name, tmp_path, "--fusions",
                                      "multi_head_attention,qkv_attention")
    assert report["fused_operators"] == {"qkv_attention": layers}
    attention = [node for node in model.graph.node if node.op_type == "Attention"]
    assert len(attention) == layers
    assert "MultiHeadAttention" not in op_types(model) and "Split" not in op_types(model)
    original_weights = {t.name for t in original.graph.initializer}
    for node in attention:
        assert node.input[1].endswith("attn.c_attn.weight") and node.input[1] in original_weights
        assert node.input[2].endswith("attn.c_attn.bias") and node.input[2] in original_weights
        assert len(node.input) == 6 and node.input[5]  # GPT-2's causal mask as attention bias
    assert "Concat" not in op_types(model)


@pytest.mark.parametrize("name", PACKED)
def test_pm_apply_packs_gpt2_greedily_through_the_split(saturate, onnxruntime_library, tmp_path,
                                                       name):
    out, report_path = tmp_path / "out.onnx", tmp_path / "report.json"
    result = saturate("pm", "apply", onnxruntime_library, FIXTURES / name, "--verify", "-o", out,
                      "--json", report_path)
    assert result.returncode == 0, result.stderr
    assert "verify: ok" in result.stdout
    import json
    applied = {rule["rule"]: rule["applications"]
               for rule in json.loads(report_path.read_text())["rules"]}
    assert applied["fuse_masked_packed_qkv_attention"] == 2
    model = onnx.load(str(out))
    assert op_types(model).count("Attention") == 2 and "Split" not in op_types(model)


def packed_attention_model(order="qkv", flat=True, masked=True, parts=3, seed=5):
    """x (1, S, D) -> one x W + b of width `parts` D (on the (S, D) rows viewed back, as GPT-2's
    Conv1D, or in 3-d) -> Split in `parts` along the last axis -> q, k, v the first three taken
    in `order` (a fourth part is a second output) -> heads, scaled scores, an optional causal
    mask, softmax, merged."""
    rng = np.random.default_rng(seed)
    s, d, n = 6, 8, 2
    h = d // n
    node = helper.make_node
    init = [numpy_helper.from_array(rng.normal(size=(d, parts * d)).astype(np.float32), "w"),
            numpy_helper.from_array(rng.normal(size=(parts * d,)).astype(np.float32), "b"),
            numpy_helper.from_array(np.array([d] * parts, np.int64), "sizes"),
            numpy_helper.from_array(np.array(h ** -0.5, np.float32), "scale"),
            numpy_helper.from_array(np.array([1, s, n, h], np.int64), "split_shape"),
            numpy_helper.from_array(np.array([1, s, d], np.int64), "merge_shape")]
    if flat:
        init += [numpy_helper.from_array(np.array([s, d], np.int64), "rows_shape"),
                 numpy_helper.from_array(np.array([1, s, parts * d], np.int64), "packed_shape")]
        nodes = [node("Reshape", ["x", "rows_shape"], ["rows"]),
                 node("MatMul", ["rows", "w"], ["product"]),
                 node("Add", ["b", "product"], ["biased"]),
                 node("Reshape", ["biased", "packed_shape"], ["packed"])]
    else:
        nodes = [node("MatMul", ["x", "w"], ["product"]), node("Add", ["product", "b"], ["packed"])]
    nodes.append(node("Split", ["packed", "sizes"], [f"part{i}" for i in range(parts)], axis=2))
    for name, part in zip("qkv", order):
        perm = [0, 2, 3, 1] if name == "k" else [0, 2, 1, 3]
        nodes += [node("Reshape", ["part" + str("qkv".index(part)), "split_shape"],
                       [name + "_r"]),
                  node("Transpose", [name + "_r"], [name + "_h"], perm=perm)]
    nodes += attention_of_heads(init, s, masked)
    outputs = [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, s, d])]
    if parts == 4:
        outputs.append(helper.make_tensor_value_info("part3", TensorProto.FLOAT, [1, s, d]))
    graph = helper.make_graph(nodes, "packed_attention",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, s, d])],
                              outputs, init)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def run_both(original, model):
    """Output y of both models on one random input."""
    feeds = {"x": np.random.default_rng(11).normal(size=(1, 6, 8)).astype(np.float32)}
    return [ort.InferenceSession(m.SerializeToString(), providers=["CPUExecutionProvider"])
            .run(["y"], feeds)[0] for m in (original, model)]


@pytest.mark.parametrize("flat", [True, False])
@pytest.mark.parametrize("masked", [False, True])
def test_a_packed_projection_fuses_and_computes_the_same(optimize_verified, tmp_path, flat,
                                                         masked):
    original = packed_attention_model(flat=flat, masked=masked)
    source = tmp_path / "packed.onnx"
    onnx.save(original, str(source))
    report, model = optimize_verified(source, tmp_path)
    assert report["fused_operators"] == {"qkv_attention": 1}
    assert op_types(model) == ["Attention", "Tanh"]
    attention = model.graph.node[0]
    assert list(attention.input[1:3]) == ["w", "b"]  # the model's own weight, not a copy
    reference, fused = run_both(original, model)
    np.testing.assert_allclose(fused, reference, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("order", ["kqv", "qvk", "vkq"])
def test_thirds_taken_in_another_order_are_not_packed(optimize_verified, tmp_path, order):
    """The kernel reads q, k, v from the thirds in that order: a model that takes its query from
    another third computes something else, so only MultiHeadAttention fuses."""
    original = packed_attention_model(order=order)
    source = tmp_path / "packed.onnx"
    onnx.save(original, str(source))
    report, model = optimize_verified(source, tmp_path)
    assert report["fused_operators"] == {"multi_head_attention": 1}
    assert "Attention" not in op_types(model)
    reference, fused = run_both(original, model)
    np.testing.assert_allclose(fused, reference, rtol=1e-5, atol=1e-5)


def test_a_projection_wider_than_the_three_parts_is_not_packed(optimize_verified, saturate,
                                                               onnxruntime_library, tmp_path):
    """W (D, 4 D) split in four, the fourth part another output: q, k, v are the first three
    quarters, not thirds, so the weight is not the kernel's packed weight."""
    original = packed_attention_model(parts=4)
    source, out = tmp_path / "packed.onnx", tmp_path / "out.onnx"
    onnx.save(original, str(source))
    report, model = optimize_verified(source, tmp_path)
    assert report["fused_operators"] == {"multi_head_attention": 1}
    assert "Attention" not in op_types(model)
    result = saturate("pm", "apply", onnxruntime_library, source, "--verify", "-o", out)
    assert result.returncode == 0, result.stderr
    assert "Attention" not in op_types(onnx.load(str(out)))


@pytest.mark.parametrize("order", ["qkv", "kqv"])
def test_pm_apply_packs_only_the_thirds_in_order(saturate, onnxruntime_library, tmp_path, order):
    source, out = tmp_path / "packed.onnx", tmp_path / "out.onnx"
    onnx.save(packed_attention_model(order=order), str(source))
    result = saturate("pm", "apply", onnxruntime_library, source, "--verify", "-o", out)
    assert result.returncode == 0, result.stderr
    assert "verify: ok" in result.stdout
    types = op_types(onnx.load(str(out)))
    assert ("Attention" in types) == (order == "qkv")
    assert "MultiHeadAttention" in types or order == "qkv"
