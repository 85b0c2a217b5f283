"""Exports of architectures the rules were not written for (tests/fixtures/architectures: OPT,
Phi-3, torchvision's Swin, a Llama-style decoder step with a key-value cache, both exporters),
each of which Saturate failed on (or did not fuse) before: import, the fusions that must fire,
and the output verified in ONNX Runtime."""
import json
import pathlib

import numpy as np
import onnx
import onnxruntime as ort
import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
FIXTURES = REPO / "tests" / "fixtures" / "architectures"
EXPORTERS = ["torchscript", "dynamo"]


def optimize(saturate, tmp_path, name, *extra):
    """saturate optimize with analytic costs (deterministic) and --verify; returns the report."""
    report = tmp_path / "report.json"
    result = saturate("optimize", FIXTURES / name, "-o", tmp_path / "out.onnx", "--cost",
                      "analytic", "--latency-runs", "0", "--verify", "--json", report, *extra)
    assert result.returncode == 0, result.stderr
    data = json.loads(report.read_text())
    assert data["verified"] is True  # in ONNX Runtime, against the original
    return data


@pytest.mark.parametrize("exporter", EXPORTERS)
def test_opt_attention_fuses_with_the_query_scaled_before_the_head_split(saturate, tmp_path,
                                                                        exporter):
    """OPT scales q_proj's output and calls SDPA with scale 1: the dynamo export writes no
    scale on the scores at all. Both layers fuse, their padding mask kept."""
    report = optimize(saturate, tmp_path, f"opt.{exporter}.onnx")
    assert report["fused_operators"].get("multi_head_attention") == 2
    written = onnx.load(str(tmp_path / "out.onnx"))
    attention = [n for n in written.graph.node if n.op_type == "MultiHeadAttention"]
    assert len(attention) == 2
    assert all(len([i for i in n.input if i]) == 4 for n in attention)  # q, k, v and the mask
    assert not any(n.op_type == "Softmax" for n in written.graph.node)


def empty_values(path):
    """Values ONNX shape inference types with a zero dimension."""
    inferred = onnx.shape_inference.infer_shapes(onnx.load(str(path)))
    return [v.name for v in inferred.graph.value_info
            if any(d.HasField("dim_value") and d.dim_value == 0
                   for d in v.type.tensor_type.shape.dim)]


def test_phi3_torchscript_export_with_an_empty_rotary_half_imports(saturate, tmp_path):
    """The fixture does hold empty tensors (one Slice per layer and projection), folded away on
    import; then the decoder fuses as a Llama does."""
    assert empty_values(FIXTURES / "phi3.torchscript.onnx")
    report = optimize(saturate, tmp_path, "phi3.torchscript.onnx")
    fused = report["fused_operators"]
    assert fused.get("multi_head_attention") == 2
    assert fused.get("rotary_embedding") == 4
    assert fused.get("rms_norm", 0) + fused.get("skip_rms_norm", 0) == 5


def test_phi3_dynamo_export_fuses(saturate, tmp_path):
    report = optimize(saturate, tmp_path, "phi3.dynamo.onnx")
    assert report["fused_operators"].get("multi_head_attention") == 2
    assert report["fused_operators"].get("rotary_embedding") == 4


@pytest.mark.parametrize("exporter", EXPORTERS)
def test_swin_imports_optimizes_and_verifies(saturate, tmp_path, exporter):
    """Shifted windows: chains of shape-dependent Reshapes, all folded to static shapes."""
    report = optimize(saturate, tmp_path, f"swin_small.{exporter}.onnx")
    assert report["fused_operators"].get("bias_gelu") == 4


@pytest.mark.parametrize("exporter", EXPORTERS)
def test_swin_window_attention_fuses_as_computed_heads(saturate, onnxruntime_library, tmp_path,
                                                       exporter):
    """The three window attentions without a shift (the second stage's windows cover the whole
    map, so its shift is off) fuse greedily: packed QKV heads, the query scaled, the relative
    position bias as the mask. The shifted one adds its mask through a 5-d view and stays.
    pm apply verifies an ONNX input's rewrite in ONNX Runtime (the reference interpreter has
    no Gather) and writes it as ONNX."""
    source, out = FIXTURES / f"swin_small.{exporter}.onnx", tmp_path / "out.onnx"
    report_path = tmp_path / "report.json"
    result = saturate("pm", "apply", onnxruntime_library, source, "--verify", "--json",
                      report_path, "-o", out)
    assert result.returncode == 0, result.stderr
    report = json.loads(report_path.read_text())
    assert report["verified"] is True and report["verify_runtime"] == "onnxruntime"
    written = onnx.load(str(out))
    assert sum(n.op_type == "MultiHeadAttention" for n in written.graph.node) == 3
    applied = {r["rule"]: r["applications"] for r in report["rules"] if r["applications"]}
    assert applied.get("fuse_head_attention_no_scale") == 3


# A Llama-style decoder step with a key-value cache (export_kv_cache.py): the new tokens attend
# to 16 cached positions plus themselves, so the keys are longer than the queries.
KV_CACHE = [("chunk", "torchscript"), ("chunk", "dynamo"), ("decode", "dynamo")]


@pytest.mark.parametrize("step,exporter", KV_CACHE)
def test_attention_over_a_key_value_cache_fuses_with_the_keys_as_heads(saturate, tmp_path, step,
                                                                       exporter):
    """Keys and values concatenated to the cache (and expanded from 2 to 4 heads) stay split
    into heads, (B, N, L, H): MultiHeadAttention reads them so, only the query is merged."""
    report = optimize(saturate, tmp_path, f"llama_kv_{step}.{exporter}.onnx")
    fused = report["fused_operators"]
    assert fused.get("multi_head_attention") == 2 and fused.get("rotary_embedding") == 4
    written = onnx.load(str(tmp_path / "out.onnx"))
    attention = [n for n in written.graph.node if n.op_type == "MultiHeadAttention"]
    assert all(n.input[5] for n in attention)  # the mask from attention_mask and causality
    assert not any(n.op_type == "Softmax" for n in written.graph.node)
    # The shapes of the kernels' inputs, from a run with them as extra outputs (ONNX's shape
    # inference does not type com.microsoft operators).
    probed = [name for n in attention for name in n.input[:3]]
    written.graph.output.extend(onnx.helper.make_empty_tensor_value_info(name)
                                for name in dict.fromkeys(probed))
    session = ort.InferenceSession(written.SerializeToString(),
                                   providers=["CPUExecutionProvider"])
    feeds = {}
    for value in session.get_inputs():
        shape = [d if isinstance(d, int) else 1 for d in value.shape]
        feeds[value.name] = (np.ones(shape, np.int64) if "int64" in value.type
                             else np.zeros(shape, np.float32))
    shapes = dict(zip([o.name for o in session.get_outputs()],
                      [list(v.shape) for v in session.run(None, feeds)]))
    new_tokens = 1 if step == "decode" else 4
    for node in attention:
        assert shapes[node.input[0]] == [1, new_tokens, 64]          # the query, merged
        assert shapes[node.input[1]] == [1, 4, 16 + new_tokens, 16]  # keys: (B, N, L, H)
        assert shapes[node.input[2]] == [1, 4, 16 + new_tokens, 16]


@pytest.mark.parametrize("step,exporter", KV_CACHE)
def test_pm_apply_fuses_attention_over_a_key_value_cache(saturate, onnxruntime_library,
                                                         tmp_path, step, exporter):
    out = tmp_path / "out.onnx"
    result = saturate("pm", "apply", onnxruntime_library,
                      FIXTURES / f"llama_kv_{step}.{exporter}.onnx", "--verify", "-o", out)
    assert result.returncode == 0, result.stderr
    assert "verify: ok" in result.stdout
    types = [n.op_type for n in onnx.load(str(out)).graph.node]
    assert types.count("MultiHeadAttention") == 2 and "Softmax" not in types


def test_a_decode_step_whose_query_folds_the_head_groups_verifies(saturate, tmp_path):
    """The TorchScript export of a one-token step reads grouped keys unexpanded: the query is
    reshaped to (B, 2 key heads, 2 groups x 1 token, H). Not a pattern of the library (see
    docs/ONNX_RUNTIME.md); the rest fuses and the output verifies."""
    report = optimize(saturate, tmp_path, "llama_kv_decode.torchscript.onnx")
    assert report["fused_operators"].get("rotary_embedding") == 4
    assert report["fused_operators"].get("rms_norm", 0) + \
        report["fused_operators"].get("skip_rms_norm", 0) == 5
