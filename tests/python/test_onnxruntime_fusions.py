"""The ONNX Runtime fusion library (rules/pypm/onnxruntime.py): attention as the exporters write
it becomes com.microsoft.MultiHeadAttention, checked numerically in the reference interpreter
(greedy, every spelling) and in ONNX Runtime (in the e-graph, on PyTorch's exports)."""
import json
import pathlib

import onnx
import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
FIXTURES = REPO / "tests" / "fixtures" / "exporters"


@pytest.fixture(scope="module")
def library(onnxruntime_library):
    return onnxruntime_library


def head_split(name, source, batch, length, heads, size, perm="[0 2 1 3]"):
    return (f"  (node {name}_r (reshape {source} :shape [{batch} {length} {heads} {size}]))\n"
            f"  (node {name} (transpose {name}_r :perm {perm}))\n")


def attention_graph(spelling, batch=2, queries=6, keys=6, heads=3, size=4, mask=None):
    """A .sxp graph of one attention as an exporter spells it (see the library's docstring)."""
    hidden = heads * size
    text = (f"(graph attention_{spelling}\n"
            f"  (node q (input :shape [{batch} {queries} {hidden}]))\n"
            f"  (node k (input :shape [{batch} {keys} {hidden}]))\n"
            f"  (node v (input :shape [{batch} {keys} {hidden}]))\n")
    if mask is not None:
        text += f"  (node m (input :shape [{' '.join(map(str, mask))}]))\n"
    if spelling == "noscale":  # the query scaled before its head split (OPT, dynamo)
        text += (f"  (node c (constant :shape [] :value {size ** -0.5!r}))\n"
                 "  (node qp (mul q c))\n")
        text += head_split("qh", "qp", batch, queries, heads, size)
    else:
        text += head_split("qh", "q", batch, queries, heads, size)
    text += head_split("vh", "v", batch, keys, heads, size)
    if spelling == "dynamo":  # K through (B*N, L, H), then its transpose, back to 4-d
        text += head_split("kh", "k", batch, keys, heads, size)
        text += (f"  (node kf (reshape kh :shape [{batch * heads} {keys} {size}]))\n"
                 f"  (node kft (transpose kf :perm [0 2 1]))\n"
                 f"  (node kt (reshape kft :shape [{batch} {heads} {size} {keys}]))\n")
    elif spelling == "swap":  # split heads, then swap the last two axes
        text += head_split("kh", "k", batch, keys, heads, size)
        text += "  (node kt (transpose kh :perm [0 1 3 2]))\n"
    else:
        text += head_split("kt", "k", batch, keys, heads, size, perm="[0 2 3 1]")
    if spelling in ("sdpa", "dynamo"):  # sqrt(scale) on each side
        root = size ** -0.25
        text += (f"  (node c1 (constant :shape [] :value {root!r}))\n"
                 f"  (node c2 (constant :shape [] :value {root!r}))\n"
                 "  (node qs (mul qh c1))\n  (node ks (mul kt c2))\n"
                 "  (node s (matmul qs ks))\n")
    elif spelling == "noscale":
        text += "  (node s (matmul qh kt))\n"
    elif spelling == "div":
        text += (f"  (node c (constant :shape [] :value {size ** 0.5!r}))\n"
                 "  (node p (matmul qh kt))\n  (node s (div p c))\n")
    else:
        text += (f"  (node c (constant :shape [] :value {size ** -0.5!r}))\n"
                 "  (node p (matmul qh kt))\n  (node s (mul p c))\n")
    scores = "s"
    if mask is not None:
        text += "  (node sm (add m s))\n" if spelling == "div" else "  (node sm (add s m))\n"
        scores = "sm"
    text += (f"  (node w (softmax {scores} :axis -1))\n"
             "  (node o (matmul w vh))\n"
             "  (node ot (transpose o :perm [0 2 1 3]))\n"
             f"  (node y (reshape ot :shape [{batch} {queries} {hidden}]))\n"
             "  (output out y)\n)\n")
    return text


SPELLINGS = [
    ("eager", None),
    ("eager", (2, 1, 1, 6)),
    ("div", (1, 1, 6, 6)),
    ("swap", (2, 3, 6, 6)),
    ("sdpa", None),
    ("sdpa", (2, 1, 1, 6)),
    ("dynamo", (2, 1, 1, 6)),
    ("noscale", None),
    ("noscale", (2, 1, 1, 6)),
]


@pytest.mark.parametrize("spelling,mask", SPELLINGS)
def test_every_spelling_fuses_and_computes_the_same(saturate, library, tmp_path, spelling, mask):
    graph = tmp_path / "graph.sxp"
    graph.write_text(attention_graph(spelling, mask=mask))
    report_path, out = tmp_path / "report.json", tmp_path / "out.sxp"
    result = saturate("pm", "apply", library, graph, "--verify", "--json", report_path,
                      "-o", out)
    assert result.returncode == 0, result.stderr
    report = json.loads(report_path.read_text())
    assert report["verified"] is True  # the reference interpreter, float64
    assert sum(rule["applications"] for rule in report["rules"]) == 1
    shown = json.loads(saturate("show", out, "--json").stdout)
    assert shown["op_histogram"].get("multi_head_attention") == 1
    assert "softmax" not in shown["op_histogram"]


def assert_fuses_once_and_verifies(saturate, library, graph, tmp_path):
    """pm apply --verify (the reference interpreter, float64) leaves one fused attention."""
    out = tmp_path / "out.sxp"
    result = saturate("pm", "apply", library, graph, "--verify", "-o", out)
    assert result.returncode == 0, result.stderr
    assert "verify: ok" in result.stdout
    shown = json.loads(saturate("show", out, "--json").stdout)
    assert shown["op_histogram"].get("multi_head_attention") == 1


def greedy_applications(saturate, library, graph, tmp_path):
    """How many rewrites pm apply made on the graph."""
    report_path = tmp_path / "report.json"
    result = saturate("pm", "apply", library, graph, "--json", report_path)
    assert result.returncode == 0, result.stderr
    report = json.loads(report_path.read_text())
    return sum(rule["applications"] for rule in report["rules"])


def test_cross_attention_with_other_key_length_fuses(saturate, library, tmp_path):
    graph = tmp_path / "graph.sxp"
    graph.write_text(attention_graph("eager", queries=5, keys=7, mask=(1, 1, 1, 7)))
    assert_fuses_once_and_verifies(saturate, library, graph, tmp_path)


HEADS = """(graph heads
  (node a (input :shape [2 3 6 4]))
  (node b (input :shape [2 3 4 6]))
  (node c (input :shape [2 3 6 4]))
  (node m (input :shape [1 1 6 6]))
  (node qh (tanh a))
  (node kt (tanh b))
  (node vh (tanh c))
  (node c1 (constant :shape [] :value 0.7071))
  (node c2 (constant :shape [] :value 0.7071))
  (node qs (mul qh c1))
  (node ks (mul kt c2))
  (node s (matmul qs ks))
  (node sm (add s m))
  (node w (softmax sm :axis 3))
  (node o (matmul w vh))
  (node ot (transpose o :perm [0 2 1 3]))
  (node y (reshape ot :shape [2 6 12]))
  (output out y)
)
"""


def test_attention_on_computed_head_tensors_fuses(saturate, library, tmp_path):
    """Heads computed in 4-d (a decoder's rotary embedding, expanded grouped keys): merged back
    into (B, S, D) for the fused kernel."""
    graph = tmp_path / "graph.sxp"
    graph.write_text(HEADS)
    assert_fuses_once_and_verifies(saturate, library, graph, tmp_path)


# The scale spellings of attention on computed heads, with and without a mask: (scores' text,
# whether the mask is added). "qscale" is torchvision's Swin: q = q * scale before the product.
HEAD_SCALES = {
    "split": "  (node qs (mul qh c1))\n  (node ks (mul kt c2))\n  (node s (matmul qs ks))\n",
    "mul": "  (node p (matmul qh kt))\n  (node s (mul p c1))\n",
    "qscale": "  (node qs (mul qh c1))\n  (node s (matmul qs kt))\n",
    "none": "  (node s (matmul qh kt))\n",
}


@pytest.mark.parametrize("scale", HEAD_SCALES)
@pytest.mark.parametrize("masked", [True, False])
def test_every_scale_of_attention_on_computed_heads_fuses(saturate, library, tmp_path, scale,
                                                         masked):
    scores = HEAD_SCALES[scale]
    if not masked:
        scores = scores.replace("(node s ", "(node sm ")
    text = HEADS.replace(
        "  (node qs (mul qh c1))\n  (node ks (mul kt c2))\n  (node s (matmul qs ks))\n", scores)
    if not masked:
        text = text.replace("  (node sm (add s m))\n", "").replace(
            "  (node m (input :shape [1 1 6 6]))\n", "")
    graph = tmp_path / "graph.sxp"
    graph.write_text(text)
    assert_fuses_once_and_verifies(saturate, library, graph, tmp_path)


def test_computed_heads_merged_to_another_layout_do_not_fuse(saturate, library, tmp_path):
    """(B, N, S, H) merged into an (S, B, D)-shaped value is not the fused kernel's (B, S, D)
    layout with batch and sequence renamed: the rule must refuse it."""
    graph = tmp_path / "graph.sxp"
    graph.write_text(HEADS.replace("(reshape ot :shape [2 6 12])", "(reshape ot :shape [6 2 12])"))
    assert greedy_applications(saturate, library, graph, tmp_path) == 0


def test_a_reshape_that_is_not_a_head_split_fuses_only_as_computed_heads(saturate, library,
                                                                          tmp_path):
    """(B, S, D) viewed as (B, N, S, H) mixes positions into heads: not the head split the
    kernel makes of q. Only the computed-heads rule may fuse it, merging those heads back into
    (B, S, D) with an explicit transpose and reshape, so the kernel's own split gives them back
    (verified in float64)."""
    text = attention_graph("eager").replace(
        "(node qh_r (reshape q :shape [2 6 3 4]))", "(node qh_r (reshape q :shape [2 3 6 4]))")
    text = text.replace("(node qh (transpose qh_r :perm [0 2 1 3]))",
                        "(node qh (transpose qh_r :perm [0 1 2 3]))")
    graph = tmp_path / "graph.sxp"
    graph.write_text(text)
    report_path = tmp_path / "report.json"
    result = saturate("pm", "apply", library, graph, "--verify", "--json", report_path)
    assert result.returncode == 0, result.stderr
    report = json.loads(report_path.read_text())
    assert report["verified"] is True
    applied = {rule["rule"]: rule["applications"] for rule in report["rules"]
               if rule["applications"]}
    assert applied == {"fuse_unmasked_head_attention_mul_scale": 1}


def seq_first_graph(key_spelling, batch=2, length=5, heads=3, size=4, mask=None, merge="flat"):
    """nn.MultiheadAttention's attention on (S, B, D) as the exporters write it (ViT)."""
    hidden, flat = heads * size, batch * heads
    text = "(graph seq_first\n"
    for name in "qkv":
        text += f"  (node {name} (input :shape [{length} {batch} {hidden}]))\n"
        text += (f"  (node {name}r (reshape {name} :shape [{length} {flat} {size}]))\n"
                 f"  (node {name}f (transpose {name}r :perm [1 0 2]))\n")
    if mask is not None:
        text += f"  (node m (input :shape [{' '.join(map(str, mask))}]))\n"
    text += (f"  (node qh (reshape qf :shape [{batch} {heads} {length} {size}]))\n"
             f"  (node vh (reshape vf :shape [{batch} {heads} {length} {size}]))\n")
    if key_spelling == "dynamo":
        text += ("  (node kft (transpose kf :perm [0 2 1]))\n"
                 f"  (node kt (reshape kft :shape [{batch} {heads} {size} {length}]))\n")
    else:
        text += (f"  (node kh (reshape kf :shape [{batch} {heads} {length} {size}]))\n"
                 "  (node kt (transpose kh :perm [0 1 3 2]))\n")
    root = size ** -0.25
    text += (f"  (node c1 (constant :shape [1] :value {root!r}))\n"
             f"  (node c2 (constant :shape [1] :value {root!r}))\n"
             "  (node qs (mul qh c1))\n  (node ks (mul kt c2))\n  (node s (matmul qs ks))\n")
    scores = "s"
    if mask is not None:
        text += "  (node sm (add s m))\n"
        scores = "sm"
    shape = f"[{length * batch} {hidden}]" if merge == "flat" else f"[{length} {batch} {hidden}]"
    text += (f"  (node w (softmax {scores} :axis 3))\n  (node o (matmul w vh))\n"
             "  (node ot (transpose o :perm [2 0 1 3]))\n"
             f"  (node y (reshape ot :shape {shape}))\n  (output out y)\n)\n")
    return text


@pytest.mark.parametrize("key_spelling,mask,merge", [
    ("torchscript", None, "flat"), ("dynamo", None, "flat"), ("torchscript", (2, 1, 1, 5), "3d"),
    ("dynamo", (1, 3, 5, 5), "flat")])
def test_sequence_first_attention_fuses_and_computes_the_same(saturate, library, tmp_path,
                                                              key_spelling, mask, merge):
    """ViT's nn.MultiheadAttention, batch 2 so that a batch/sequence mix-up would show."""
    graph = tmp_path / "graph.sxp"
    graph.write_text(seq_first_graph(key_spelling, mask=mask, merge=merge))
    assert_fuses_once_and_verifies(saturate, library, graph, tmp_path)


def test_sequence_first_heads_merged_batch_first_fuse_as_head_attention(saturate, library,
                                                                       tmp_path):
    """Heads split from (S, B, D) but merged batch first into (B*S, D) rows: the heads are
    well-formed (B, N, S, H) tensors, so this is attention over them with a flattened output,
    which the head rules fuse (and the reference interpreter agrees, in float64)."""
    text = seq_first_graph("torchscript").replace("(transpose o :perm [2 0 1 3])",
                                                  "(transpose o :perm [0 2 1 3])")
    graph = tmp_path / "graph.sxp"
    graph.write_text(text)
    assert_fuses_once_and_verifies(saturate, library, graph, tmp_path)


def softmax_count(path):
    return sum(node.op_type == "Softmax" for node in onnx.load(str(path)).graph.node)


# The transformer exports whose attention the library fuses, every layer (see the table in
# docs/ONNX_RUNTIME.md for the others and why).
FUSED = ["bert_eager.torchscript.onnx", "bert_sdpa.torchscript.onnx", "bert.dynamo.onnx",
         "distilbert.torchscript.onnx", "distilbert.dynamo.onnx", "gpt2.torchscript.onnx",
         "gpt2.dynamo.onnx", "llama.torchscript.onnx", "llama.dynamo.onnx",
         "vit.torchscript.onnx", "vit.dynamo.onnx"]


@pytest.mark.parametrize("name", FUSED)
def test_exported_attention_fuses_in_the_egraph_and_verifies(saturate, tmp_path, name):
    source = FIXTURES / name
    out, report_path = tmp_path / "out.onnx", tmp_path / "report.json"
    result = saturate("optimize", source, "-o", out, "--verify", "--cost", "analytic",
                      "--json", report_path, timeout=600)
    assert result.returncode == 0, result.stderr
    report = json.loads(report_path.read_text())
    assert report["target"] == "onnxruntime"
    assert report["verified"] is True and report["verify_runtime"] == "onnxruntime"
    layers = softmax_count(source)
    assert layers > 0
    # MultiHeadAttention, or Attention where q, k and v are biased projections of one input
    # (tests/python/test_onnxruntime_qkv_attention.py).
    kernels = report["fused_operators"]
    assert kernels.get("multi_head_attention", 0) + kernels.get("qkv_attention", 0) == layers
    model = onnx.load(str(out))
    fused = [n for n in model.graph.node if n.op_type in ("MultiHeadAttention", "Attention")]
    assert len(fused) == layers and all(n.domain == "com.microsoft" for n in fused)
    assert {"com.microsoft"} <= {o.domain for o in model.opset_import}
    assert softmax_count(out) == 0


def test_target_onnx_writes_standard_operators_only(saturate, tmp_path):
    source = FIXTURES / "bert_eager.torchscript.onnx"
    out, report_path = tmp_path / "out.onnx", tmp_path / "report.json"
    result = saturate("optimize", source, "-o", out, "--cost", "analytic", "--target", "onnx",
                      "--json", report_path, timeout=600)
    assert result.returncode == 0, result.stderr
    report = json.loads(report_path.read_text())
    assert report["target"] == "onnx" and report["fused_operators"] == {}
    model = onnx.load(str(out))
    assert all(node.domain in ("", "ai.onnx") for node in model.graph.node)
    assert softmax_count(out) == softmax_count(source)


def test_an_unknown_target_is_refused(saturate):
    result = saturate("optimize", FIXTURES / "bert_eager.torchscript.onnx", "--target", "tensorrt")
    assert result.returncode != 0
    assert "--target" in result.stderr


def test_the_python_api_takes_the_target(saturate_api):
    source = FIXTURES / "distilbert.torchscript.onnx"
    fused, report = saturate_api.optimize(str(source), cost="analytic", target="onnxruntime")
    assert report["fused_operators"] == {"bias_gelu": 2, "qkv_attention": 2,
                                         "skip_layer_norm": 5}
    assert sum(n.op_type == "Attention" for n in fused.graph.node) == 2
    plain, report = saturate_api.optimize(str(source), cost="analytic", target="onnx")
    assert report["fused_operators"] == {}
    assert not any(n.domain == "com.microsoft" for n in plain.graph.node)
