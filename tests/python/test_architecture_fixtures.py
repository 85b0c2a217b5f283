"""Exports of architectures the rules were not written for (tests/fixtures/architectures: OPT,
Phi-3, torchvision's Swin, both exporters), each of which Saturate failed on before: import,
the fusions that must fire, and the output verified in ONNX Runtime."""
import json
import pathlib

import onnx
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
