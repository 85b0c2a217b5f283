"""Exports with dynamic axes (tests/fixtures/dynamic, both PyTorch exporters): each optimizes,
keeps every dynamic axis under its own name, fuses what its static twin fuses (the table below
says where and why they differ) and verifies in ONNX Runtime at three or more shape
assignments."""
import json
import pathlib

import onnx
import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
DYNAMIC = REPO / "tests" / "fixtures" / "dynamic"
FIXTURES = REPO / "tests" / "fixtures"

# Decoders at two profiles of their own (a prefill and a decode step); the tests below show that
# the defaults work too.
DECODER_PROFILES = ["batch_size=1,sequence_length=8,past_sequence_length=16,"
                    "total_sequence_length=24",
                    "batch_size=2,sequence_length=1,past_sequence_length=5,"
                    "total_sequence_length=6"]

# dynamic fixture -> (static twin, fusions the dynamic export must have: the twin's). The
# embeddings' norm of BERT-like models and ViT's first norm read (B, S, H) + (1, S, H) (position
# embeddings): SkipLayerNormalization takes the shared (1, S, H) skip, so they fuse at every
# batch as in the twin (batch 1).
ENCODERS = {
    "bert_eager.torchscript": ("exporters/bert_eager.torchscript",
                               {"bias_gelu": 2, "qkv_attention": 2, "skip_layer_norm": 5}),
    "bert.dynamo": ("exporters/bert.dynamo",
                    {"bias_gelu": 2, "qkv_attention": 2, "skip_layer_norm": 5}),
    "distilbert.torchscript": ("exporters/distilbert.torchscript",
                               {"bias_gelu": 2, "qkv_attention": 2, "skip_layer_norm": 5}),
    "distilbert.dynamo": ("exporters/distilbert.dynamo",
                          {"bias_gelu": 2, "qkv_attention": 2, "skip_layer_norm": 5}),
    "vit.torchscript": ("exporters/vit.torchscript",
                        {"bias_gelu": 2, "fused_conv": 1, "multi_head_attention": 2,
                         "skip_layer_norm": 5}),
    "vit.dynamo": ("exporters/vit.dynamo",
                   {"bias_gelu": 2, "fused_conv": 1, "multi_head_attention": 2,
                    "skip_layer_norm": 5}),
    "resnet.torchscript": ("exporters/resnet.torchscript", {"fused_conv": 12}),
    "resnet.dynamo": ("exporters/resnet.dynamo", {"fused_conv": 12}),
}


def optimize(saturate, tmp_path, model, *extra):
    out, report = tmp_path / "out.onnx", tmp_path / "report.json"
    result = saturate("optimize", model, "-o", out, "--cost", "analytic", "--latency-runs", "0",
                      "--verify", "--json", report, *extra)
    assert result.returncode == 0, result.stderr
    return onnx.load(str(out)), json.loads(report.read_text())


def declared_dims(infos):
    return {info.name: [d.dim_param or d.dim_value for d in info.type.tensor_type.shape.dim]
            for info in infos}


def check_axes_and_verification(original_path, written, report):
    original = onnx.load(str(original_path))
    # Every dynamic input axis is kept under its original name (the inputs are what a caller
    # feeds; outputs are checked below).
    assert declared_dims(written.graph.input) == declared_dims(original.graph.input)
    written_outputs = declared_dims(written.graph.output)
    for name, dims in declared_dims(original.graph.output).items():
        for axis, dim in enumerate(dims):
            if isinstance(dim, str) and dim in {d for ds in declared_dims(
                    original.graph.input).values() for d in ds}:
                assert written_outputs[name][axis] == dim, (name, axis)
    assert report["verified"] is True
    assert len(report["verify_input_shapes"]) >= 3, report.get("verify_skipped_shapes")
    # ONNX's checker knows standard operators only: with ONNX Runtime's kernels in the model,
    # ONNX Runtime itself (verification above) is the check.
    standard = all(onnx.defs.has(node.op_type, node.domain) for node in written.graph.node)
    if standard:
        onnx.checker.check_model(written, full_check=True)


@pytest.mark.parametrize("name", sorted(ENCODERS))
def test_encoder_keeps_its_axes_fuses_like_its_static_twin_and_verifies(saturate, tmp_path,
                                                                        name):
    twin, expected = ENCODERS[name]
    written, report = optimize(saturate, tmp_path, DYNAMIC / f"{name}.onnx")
    assert report["fused_operators"] == expected
    check_axes_and_verification(DYNAMIC / f"{name}.onnx", written, report)
    # The static twin fuses the same kernels, up to the differences ENCODERS names.
    static_dir = tmp_path / "static"
    static_dir.mkdir()
    _, static_report = optimize(saturate, static_dir, FIXTURES / f"{twin}.onnx")
    assert static_report["fused_operators"] == expected


def test_a_length_that_must_fit_a_table_is_reported_and_bounds_the_default_profile(saturate,
                                                                                  tmp_path):
    """BERT's position ids are a 64-row buffer sliced to the sequence: the model accepts
    sequence <= 64, which the report states and the default profile respects."""
    _, report = optimize(saturate, tmp_path, DYNAMIC / "bert_eager.torchscript.onnx")
    assert [(a["dimension"], a["at_most"]) for a in report["assumptions"]] == [("sequence", 64)]
    assert report["shape_profiles"][0]["sizes"] == {"batch": 1, "sequence": 64}
    batches = {tuple(shapes["input_ids"]) for shapes in report["verify_input_shapes"]}
    assert {(1, 64), (7, 7), (3, 37)} <= batches


@pytest.mark.parametrize("name", ["gpt2_past.torchscript", "gpt2_past.dynamo"])
def test_positions_read_from_a_table_bound_the_cache_and_the_default_profile(saturate,
                                                                            tmp_path, name):
    """GPT-2 reads wpe[arange(past, past + sequence)] from a 64-row table: the model accepts
    past + sequence <= 64, which import records, and the default profile (lengths 128) and the
    adversarial sizes keep to it, so no --profile is needed."""
    _, report = optimize(saturate, tmp_path, DYNAMIC / f"{name}.onnx")
    expected = [("past_sequence_length + sequence_length", 64)]
    if name.endswith("dynamo"):  # it also reads the mask at arange(past + sequence)
        expected.append(("past_sequence_length + sequence_length", "total_sequence_length"))
    assert sorted((a["dimension"], str(a["at_most"])) for a in report["assumptions"]) == sorted(
        (dim, str(bound)) for dim, bound in expected)
    sizes = report["shape_profiles"][0]["sizes"]
    assert sizes["past_sequence_length"] + sizes["sequence_length"] <= 64
    assert report["fused_operators"].get("multi_head_attention") == 2
    pasts = [shapes["past_key_0"][2] for shapes in report["verify_input_shapes"]]
    assert 0 in pasts and all(p <= 64 for p in pasts)


@pytest.mark.parametrize("name", ["gpt2_past.torchscript", "gpt2_past.dynamo",
                                  "llama_past.torchscript", "llama_past.dynamo"])
def test_decoder_with_past_keeps_its_axes_and_verifies(saturate, tmp_path, name):
    extra = [arg for profile in DECODER_PROFILES for arg in ("--profile", profile)]
    written, report = optimize(saturate, tmp_path, DYNAMIC / f"{name}.onnx", *extra)
    check_axes_and_verification(DYNAMIC / f"{name}.onnx", written, report)
    fused = report["fused_operators"]
    # The norms and activations fuse as in the pinned export, and attention over the cache
    # (keys of past + sequence positions, not proven equal to the queries') into
    # MultiHeadAttention with the keys and values as heads, one per layer (GPT-2's dynamo
    # export reshapes the attention output straight to (B*S, D) for its Gemm: fused too).
    if name.startswith("gpt2"):
        # The embeddings' sum (B, S, H) + (1, S, H) fuses too, as in the static export.
        assert fused.get("fast_gelu") == 2 and fused.get("skip_layer_norm") == 5
    else:
        assert fused.get("quick_gelu") == 2 and fused.get("skip_rms_norm") == 4
    assert fused.get("multi_head_attention") == 2
    # An empty cache is among the sizes checked.
    assert any(shapes["past_key_0"][2] == 0 for shapes in report["verify_input_shapes"])


def test_pinned_decoder_is_static_and_fuses_attention(saturate, tmp_path):
    """--input-shape gives a static model, checked at the pins (the latency check and the
    verification feed them)."""
    pins = ["input_ids=1,8", "attention_mask=1,24"] + [
        f"past_{kind}_{layer}=1,4,16,16" for kind in ("key", "value") for layer in (0, 1)]
    extra = [arg for pin in pins for arg in ("--input-shape", pin)]
    written, report = optimize(saturate, tmp_path, DYNAMIC / "gpt2_past.torchscript.onnx",
                               *extra)
    assert report["verified"] is True
    assert all(d.HasField("dim_value") for i in written.graph.input
               for d in i.type.tensor_type.shape.dim)
    assert report["fused_operators"].get("multi_head_attention") == 2


@pytest.mark.parametrize("name", ["bert.dynamo", "gpt2_past.torchscript"])
def test_standard_operators_only_pass_onnx_checker_with_full_shape_inference(saturate, tmp_path,
                                                                           name):
    extra = ["--target", "onnx"]
    if name.startswith("gpt2"):
        extra += [arg for profile in DECODER_PROFILES for arg in ("--profile", profile)]
    written, report = optimize(saturate, tmp_path, DYNAMIC / f"{name}.onnx", *extra)
    assert all(onnx.defs.has(node.op_type, node.domain) for node in written.graph.node)
    check_axes_and_verification(DYNAMIC / f"{name}.onnx", written, report)
    onnx.checker.check_model(written, full_check=True)


@pytest.mark.parametrize("name", ["bert_eager.torchscript", "bert.dynamo"])
def test_pinned_encoder_folds_the_shape_arithmetic_as_a_static_export(saturate, tmp_path, name):
    """Pinned, a dynamic export fuses exactly what the static twin does (attention included):
    the pins bind the exporter's dim_params in its intermediate types too."""
    twin, _ = ENCODERS[name]
    written, report = optimize(saturate, tmp_path, DYNAMIC / f"{name}.onnx", "--input-shape",
                               "input_ids=1,16", "--input-shape", "attention_mask=1,16")
    assert report["verified"] is True and report["shape_profiles"] is None
    static_dir = tmp_path / "static"
    static_dir.mkdir()
    _, static_report = optimize(saturate, static_dir, FIXTURES / f"{twin}.onnx")
    assert report["fused_operators"] == static_report["fused_operators"]


def test_positions_read_from_the_mask_bound_the_cache_by_the_mask_length(saturate, tmp_path):
    """The Llama-style dynamo export reads attention_mask[:, arange(past + sequence)] with
    GatherND: the model accepts past_sequence_length + sequence_length <= total_sequence_length
    only, which import records; the default profile and the verification's sizes keep to it, so
    the decoder optimizes and verifies with no --profile."""
    _, report = optimize(saturate, tmp_path, DYNAMIC / "llama_past.dynamo.onnx")
    assert [(a["dimension"], a["at_most"]) for a in report["assumptions"]] == [
        ("past_sequence_length + sequence_length", "total_sequence_length")]
    assert report["verified"] is True
    for sizes in [report["shape_profiles"][0]["sizes"]] + [
            profile["sizes"] for profile in report["verification_profiles"]]:
        assert (sizes["past_sequence_length"] + sizes["sequence_length"]
                <= sizes["total_sequence_length"]), sizes
    pasts = [shapes["past_key_0"][2] for shapes in report["verify_input_shapes"]]
    assert 0 in pasts


def test_a_profile_against_an_assumption_is_one_clear_error(saturate, tmp_path):
    """A --profile whose cache and new tokens exceed the mask the model reads them from is
    refused in one line that names the assumption; nothing is written."""
    output = tmp_path / "out.onnx"
    result = saturate("optimize", DYNAMIC / "llama_past.dynamo.onnx", "-o", output, "--cost",
                      "analytic", "--latency-runs", "0", "--profile",
                      "batch_size=1,sequence_length=8,past_sequence_length=16,"
                      "total_sequence_length=8")
    assert result.returncode == 1
    lines = [line for line in result.stderr.splitlines() if line.startswith("saturate:")]
    assert len(lines) == 1, result.stderr
    assert "past_sequence_length + sequence_length <= total_sequence_length" in lines[0]
    assert "24 > total_sequence_length = 8" in lines[0]
    assert not output.exists()


def test_a_profile_the_original_cannot_run_is_one_clear_error(saturate, tmp_path):
    """Positions read through an operator import does not follow (Abs) are not bounded: at the
    default profile (length 128) the original itself fails on its 8-row table, which the error
    says, naming the sizes; nothing is written."""
    from onnx import TensorProto, helper

    nodes = [
        helper.make_node("Shape", ["x"], ["n"]),
        helper.make_node("Squeeze", ["n"], ["n0"]),
        helper.make_node("Range", ["zero", "n0", "one"], ["positions"]),
        helper.make_node("Abs", ["positions"], ["hidden_positions"]),
        helper.make_node("Gather", ["table", "hidden_positions"], ["rows"]),
        helper.make_node("Add", ["rows", "x"], ["y"]),
    ]
    graph = helper.make_graph(
        nodes, "positions", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n"])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["n"])],
        [helper.make_tensor("table", TensorProto.FLOAT, [8], [float(k) for k in range(8)]),
         helper.make_tensor("zero", TensorProto.INT64, [], [0]),
         helper.make_tensor("one", TensorProto.INT64, [], [1])])
    model = tmp_path / "positions.onnx"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), str(model))
    output = tmp_path / "out.onnx"
    result = saturate("optimize", model, "-o", output, "--cost", "analytic", "--latency-runs",
                      "0", "--verify")
    assert result.returncode == 1
    lines = [line for line in result.stderr.splitlines() if line.startswith("saturate:")]
    assert len(lines) == 1 and "the original model fails at the input shapes" in lines[0], \
        result.stderr
    assert "--profile" in lines[0]
    assert not output.exists()


def test_show_prices_a_dynamic_model_at_its_profiles(saturate):
    """`show` keeps the symbolic shapes and estimates the cost at the default profile, or at the
    profiles given, as optimize prices them."""
    model = DYNAMIC / "bert.dynamo.onnx"
    default = saturate("show", model, "--json")
    assert default.returncode == 0, default.stderr
    report = json.loads(default.stdout)
    assert [profile["name"] for profile in report["profiles"]] == ["default"]
    assert report["cost_ms"] > 0
    assert any(not isinstance(dim, int) for value in report["inputs"] for dim in value["shape"])
    larger = saturate("show", model, "--json", "--profile", "batch=4,sequence=64")
    assert larger.returncode == 0, larger.stderr
    assert json.loads(larger.stdout)["cost_ms"] > report["cost_ms"]
    text = saturate("show", model, "--profile", "batch=4,sequence=64")
    assert "priced at profile batch=4,sequence=64" in text.stdout
    wrong = saturate("show", model, "--profile", "no_such_symbol=3")
    assert wrong.returncode == 1 and "no_such_symbol" in wrong.stderr


def test_the_latency_check_times_every_profile(saturate, tmp_path):
    """With several --profile, each paired run of the latency check runs both models at every
    profile and compares the weighted sums; the report names the profiles timed."""
    out, report_path = tmp_path / "out.onnx", tmp_path / "report.json"
    profiles = ["batch=1,sequence=8", "batch=2,sequence=32@3"]
    result = saturate("optimize", DYNAMIC / "bert.dynamo.onnx", "-o", out, "--json", report_path,
                      "--cost-cache", tmp_path / "costs.sqlite", "--latency-runs", "10",
                      *[arg for profile in profiles for arg in ("--profile", profile)])
    assert result.returncode == 0, result.stderr
    check = json.loads(report_path.read_text())["latency_check"]
    assert check["profiles"] == ["batch=1,sequence=8", "batch=2,sequence=32"]  # names
    assert check["runs"] == 10 and check["original_median_ms"] > 0
    assert "each run at 2 profiles weighted" in result.stdout
