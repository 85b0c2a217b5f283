"""ONNX files written by PyTorch's own exporters (TorchScript and dynamo) for small BERT,
DistilBERT, GPT-2, Llama-style, ViT, ResNet, MobileNetV3 and ShuffleNet models (made by
tests/fixtures/exporters/export_models.py): every one imports, optimizes, exports, passes
onnx.checker (with ONNX Runtime's default-domain schemas registered: the output may use its
SimplifiedLayerNormalization), runs in ONNX Runtime and computes the original's outputs."""
import json
import pathlib

import numpy as np
import onnx
import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]

from saturate import onnx_check, onnxruntime_schemas  # noqa: E402

onnxruntime_schemas.register()

FIXTURES = REPO / "tests" / "fixtures" / "exporters"
MANIFEST = json.loads((FIXTURES / "manifest.json").read_text())
FILES = [entry["file"] for entry in MANIFEST["files"]]


def test_the_fixture_set_covers_both_exporters():
    exporters = {entry["exporter"] for entry in MANIFEST["files"]}
    assert exporters == {"torchscript", "dynamo"}
    assert len(FILES) >= 16
    assert sum((FIXTURES / f).stat().st_size for f in FILES) < 10 * 1024 * 1024


@pytest.mark.parametrize("name", FILES)
def test_exported_model_optimizes_and_verifies(saturate, tmp_path, name):
    source = FIXTURES / name
    before = source.read_bytes()
    out = tmp_path / "out.onnx"
    report_path = tmp_path / "report.json"
    result = saturate("optimize", source, "-o", out, "--verify", "--cost", "analytic",
                      "--json", report_path, timeout=600)
    assert result.returncode == 0, result.stderr
    assert source.read_bytes() == before  # the input is never modified
    report = json.loads(report_path.read_text())
    assert report["verified"] is True
    assert report["verify_runtime"] == "onnxruntime"
    model = onnx.load(str(out))
    onnx.checker.check_model(model)
    # An independent run of both files on fresh random inputs.
    check = onnx_check.compare_models(str(source), str(out), seed=7, trials=1)
    assert check.ok, check


@pytest.mark.parametrize("name", [f for f in FILES if "torchscript" in f and
                                  ("vit" in f or "shufflenet" in f or "bert" in f)])
def test_shape_arithmetic_is_folded(saturate, tmp_path, name):
    """The Shape -> Gather -> Unsqueeze -> Concat -> Reshape chains that the TorchScript exporter
    writes are gone after import, as onnxsim would leave them."""
    result = saturate("show", FIXTURES / name, "--json")
    assert result.returncode == 0, result.stderr
    shown = json.loads(result.stdout)
    assert shown["folded_nodes"] > 0
    opaque_types = shown.get("opaque_op_types", {})
    assert "Shape" not in opaque_types
    assert "ConstantOfShape" not in opaque_types


def test_int64_token_ids_are_fed_in_range():
    """Random token ids stay below the embedding table's size (a Gather out of range would make
    ONNX Runtime fail, not compare)."""
    import onnxruntime as ort

    path = FIXTURES / "gpt2.torchscript.onnx"
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    feeds = onnx_check.random_feeds(session, np.random.default_rng(0), str(path))
    ids = feeds["input_ids"]
    assert ids.dtype == np.int64
    bounds = onnx_check.index_bounds(str(path))
    assert 0 <= ids.min() and ids.max() < bounds["input_ids"]
