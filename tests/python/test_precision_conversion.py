"""`saturate optimize --precision fp16`: the written model computes in float16 (inputs and
outputs kept in float32 unless asked), is compared with the float32 original on random inputs,
and is written only within its error budget; the same from Python."""
import json
import pathlib

import numpy as np
import onnx
import pytest
from onnx import TensorProto

import saturate
from saturate import onnx_check, onnxruntime_schemas

onnxruntime_schemas.register()  # the output may use ONNX Runtime's SimplifiedLayerNormalization

REPO = pathlib.Path(__file__).resolve().parents[2]
FIXTURES = REPO / "tests" / "fixtures" / "exporters"


def float_weight_types(model):
    floats = {TensorProto.FLOAT, TensorProto.FLOAT16, TensorProto.BFLOAT16, TensorProto.DOUBLE}
    return {t.data_type for t in model.graph.initializer
            if int(np.prod(t.dims)) > 1 and t.data_type in floats}


def io_types(model):
    return ([i.type.tensor_type.elem_type for i in model.graph.input],
            [o.type.tensor_type.elem_type for o in model.graph.output])


@pytest.mark.parametrize("name", ["bert_eager.torchscript.onnx", "llama.dynamo.onnx",
                                  "resnet.dynamo.onnx"])
def test_fp16_output_is_converted_checked_and_keeps_its_io_types(saturate, tmp_path, name):
    source = FIXTURES / name
    out, report_path = tmp_path / "out.onnx", tmp_path / "report.json"
    result = saturate("optimize", source, "-o", out, "--cost", "analytic", "--verify",
                      "--precision", "fp16", "--json", report_path, timeout=600)
    assert result.returncode == 0, result.stderr
    assert "precision: converted, float16" in result.stdout
    report = json.loads(report_path.read_text())
    conversion = report["precision_conversion"]
    assert conversion["within_budget"] is True and conversion["budget"] == 0.01
    assert 0 < conversion["max_rel_error"] <= 0.01
    assert report["verified"] is True  # the float32 optimization was verified first
    model = onnx.load(str(out))
    onnx.checker.check_model(model)
    assert float_weight_types(model) == {TensorProto.FLOAT16}
    assert io_types(model) == io_types(onnx.load(str(source)))
    # An independent comparison with the float32 original, at the budget.
    check = onnx_check.compare_models(str(source), str(out), seed=5, trials=1, rtol=0.01,
                                      atol=1e-6, precision="float32")
    assert check.ok, check


def test_an_exceeded_budget_writes_nothing_but_the_report(saturate, tmp_path):
    out, report_path = tmp_path / "out.onnx", tmp_path / "report.json"
    result = saturate("optimize", FIXTURES / "bert_eager.torchscript.onnx", "-o", out, "--cost",
                      "analytic", "--precision", "fp16", "--precision-budget", "1e-7",
                      "--json", report_path)
    assert result.returncode == 3, result.stderr
    assert "over the budget of 1e-07" in result.stderr
    assert not out.exists()
    conversion = json.loads(report_path.read_text())["precision_conversion"]
    assert conversion["within_budget"] is False
    assert conversion["max_rel_error"] > 1e-7


def test_io_types_converted_on_request_and_operators_kept_in_float32(saturate, tmp_path):
    out, report_path = tmp_path / "out.onnx", tmp_path / "report.json"
    result = saturate("optimize", FIXTURES / "resnet.dynamo.onnx", "-o", out, "--cost",
                      "analytic", "--latency-runs", "0", "--precision", "fp16",
                      "--no-keep-io-types", "--keep-fp32", "ReduceMean,Reshape",
                      "--json", report_path, timeout=600)
    assert result.returncode == 0, result.stderr
    model = onnx.load(str(out))
    assert io_types(model) == ([TensorProto.FLOAT16], [TensorProto.FLOAT16])
    kept = [n for n in model.graph.node if n.op_type in ("ReduceMean", "Reshape")]
    assert kept
    producers = {name: node for node in model.graph.node for name in node.output}
    for node in kept:  # a kept operator computes in float32: a Cast to float32 feeds it
        cast = producers[node.input[0]]
        assert cast.op_type == "Cast", node
        assert cast.attribute[0].i == TensorProto.FLOAT, cast
    conversion = json.loads(report_path.read_text())["precision_conversion"]
    assert "ReduceMean" in conversion["kept_in_float32"]
    assert conversion["float32_nodes"] == len(kept)


def test_precision_is_refused_for_a_graph_and_an_unknown_precision(saturate, tmp_path):
    result = saturate("optimize", "squeezenet", "--reduced", "--precision", "fp16")
    assert result.returncode == 1
    assert "converts ONNX models" in result.stderr
    result = saturate("optimize", FIXTURES / "resnet.dynamo.onnx", "-o", tmp_path / "o.onnx",
                      "--precision", "bf16")
    assert result.returncode != 0 and not (tmp_path / "o.onnx").exists()


def test_python_api_converts_and_raises_past_the_budget():
    source = str(FIXTURES / "bert_eager.torchscript.onnx")
    model, report = saturate.optimize(source, cost="analytic", latency_runs=0,
                                      precision="fp16")
    assert report["precision_conversion"]["within_budget"] is True
    assert float_weight_types(model) == {TensorProto.FLOAT16}
    with pytest.raises(saturate.VerificationError, match="budget"):
        saturate.optimize(source, cost="analytic", latency_runs=0, precision="fp16",
                          precision_budget=1e-7)


def test_a_matmul_kept_in_float32_reads_its_weight_in_float32(saturate, tmp_path):
    # The fused kernels' outputs carry their types in the written model, so the converter knows
    # what flows into a kept operator (without them it left MatMul reading a float16 weight).
    out = tmp_path / "out.onnx"
    result = saturate("optimize", FIXTURES / "resnet.dynamo.onnx", "-o", out, "--cost",
                      "analytic", "--latency-runs", "0", "--precision", "fp16",
                      "--keep-fp32", "MatMul")
    assert result.returncode == 0, result.stderr
    model = onnx.load(str(out))
    weights = {t.name: t.data_type for t in model.graph.initializer}
    matmuls = [n for n in model.graph.node if n.op_type == "MatMul"]
    assert matmuls
    for node in matmuls:
        assert weights.get(node.input[1], TensorProto.FLOAT) == TensorProto.FLOAT


def test_a_conversion_onnx_runtime_cannot_load_is_refused(tmp_path, monkeypatch):
    from saturate import precision_conversion

    source = str(FIXTURES / "resnet.dynamo.onnx")

    def broken(model, keep_io_types, keep_fp32):  # a converter that writes a model ORT rejects
        model = onnx.load(source)
        model.graph.node[0].op_type = "NoSuchOperator"
        return model

    monkeypatch.setattr(precision_conversion, "convert", broken)
    with pytest.raises(ValueError, match="cannot load .*--keep-fp32"):
        precision_conversion.convert_and_check(source, source, str(tmp_path / "out.onnx"))
