"""The Python helpers the C++ side calls for ONNX Runtime: the model comparison behind
``optimize --verify`` on ONNX input, and the batch timer behind ``--cost onnxruntime``."""
import json
import os
import pathlib
import subprocess
import sys

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

REPO = pathlib.Path(__file__).resolve().parents[2]

from saturate import onnx_check, ort_latency, ort_session  # noqa: E402


def matmul_model(path: pathlib.Path, scale: float = 1.0, opset: int = 17) -> pathlib.Path:
    rng = np.random.default_rng(1)
    weight = numpy_helper.from_array((rng.standard_normal((8, 4)) * scale).astype(np.float32), "w")
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["x", "w"], ["m"]), helper.make_node("Relu", ["m"], ["y"])],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3, 8])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [3, 4])],
        [weight],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 8
    onnx.save(model, path)
    return path


def run_module(module, *args):
    return subprocess.run(
        [sys.executable, "-m", module, *map(str, args)],
        capture_output=True,
        text=True,
        cwd=REPO / "python",
        timeout=120,
    )


def test_identical_models_match(tmp_path):
    path = matmul_model(tmp_path / "a.onnx")
    result = onnx_check.compare_models(path, path)
    assert result.ok and result.max_abs_error == 0.0 and result.outputs[0].name == "y"


def test_different_weights_are_a_mismatch_with_exit_status_1(tmp_path):
    first = matmul_model(tmp_path / "a.onnx")
    second = matmul_model(tmp_path / "b.onnx", scale=1.01)
    result = onnx_check.compare_models(first, second)
    assert not result.ok and result.max_abs_error > 1e-4
    process = run_module("saturate.onnx_check", first, second, "--json")
    assert process.returncode == 1
    report = json.loads(process.stdout)
    assert report["ok"] is False and report["max_rel_error"] > 0


def test_unreadable_model_is_a_clear_error(tmp_path):
    good = matmul_model(tmp_path / "a.onnx")
    bad = tmp_path / "bad.onnx"
    bad.write_bytes(b"not a model")
    process = run_module("saturate.onnx_check", good, bad)
    assert process.returncode == 2
    assert process.stderr.startswith("error: cannot compare the models")


def test_timer_reports_one_positive_time_per_model(tmp_path):
    paths = [matmul_model(tmp_path / f"m{i}.onnx") for i in range(2)]
    request = tmp_path / "request.json"
    request.write_text(json.dumps({"models": [str(p) for p in paths], "repeats": 3}))
    process = run_module("saturate.ort_helper", request)
    assert process.returncode == 0, process.stderr
    answer = json.loads(process.stdout)
    assert len(answer["times_ms"]) == 2
    assert all(np.isfinite(t) and t > 0 for t in answer["times_ms"])
    assert answer["fingerprint"].startswith("onnxruntime ")


def test_timer_never_makes_up_a_time_for_a_broken_model(tmp_path):
    bad = tmp_path / "bad.onnx"
    bad.write_bytes(b"\x08\x01garbage")
    request = tmp_path / "request.json"
    request.write_text(json.dumps({"models": [str(bad)]}))
    process = run_module("saturate.ort_helper", request)
    assert process.returncode == 2
    assert "bad.onnx" in process.stderr and process.stdout == ""


@pytest.mark.parametrize("request_text", ["{", '{"no_models": []}'])
def test_timer_rejects_a_malformed_request(tmp_path, request_text):
    request = tmp_path / "request.json"
    request.write_text(request_text)
    process = run_module("saturate.ort_helper", request)
    assert process.returncode == 2 and process.stderr.startswith("error:")


def test_server_answers_each_request_and_survives_a_bad_one(tmp_path):
    path = matmul_model(tmp_path / "m.onnx")
    bad = tmp_path / "bad.onnx"
    bad.write_bytes(b"garbage")
    requests = [
        {"fingerprint": True},
        {"models": [str(bad)]},
        {"models": [str(path)], "repeats": 2},
    ]
    process = subprocess.run(
        [sys.executable, "-m", "saturate.ort_helper", "--serve"],
        input="".join(json.dumps(r) + "\n" for r in requests),
        capture_output=True,
        text=True,
        cwd=REPO / "python",
        timeout=120,
    )
    assert process.returncode == 0, process.stderr
    answers = [json.loads(line) for line in process.stdout.splitlines()]
    assert len(answers) == 3
    assert answers[0]["fingerprint"].startswith("onnxruntime ")
    assert "bad.onnx" in answers[1]["error"]
    assert len(answers[2]["times_ms"]) == 1 and answers[2]["times_ms"][0] > 0


def serve(stdin: bytes) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "saturate.ort_helper", "--serve"], input=stdin,
                          capture_output=True, cwd=REPO / "python", timeout=120)


def test_server_reads_models_sent_as_bytes_after_the_request(tmp_path):
    model = matmul_model(tmp_path / "m.onnx").read_bytes()
    other = matmul_model(tmp_path / "n.onnx", scale=2.0).read_bytes()
    timing = {"models": [{"attachment": 1}, str(tmp_path / "m.onnx"), {"attachment": 0}],
              "repeats": 2, "attachments": [len(model), len(other)]}
    check = {"check": {"original": {"attachment": 0}, "optimized": {"attachment": 1},
                       "verify": True}, "attachments": [len(model), len(other)]}
    stdin = (json.dumps(timing).encode() + b"\n" + model + other +
             json.dumps(check).encode() + b"\n" + model + other +
             json.dumps({"models": [{"attachment": 2}], "attachments": [len(model)]}).encode() +
             b"\n" + model)
    process = serve(stdin)
    assert process.returncode == 0, process.stderr
    answers = [json.loads(line) for line in process.stdout.splitlines()]
    assert len(answers) == 3
    assert len(answers[0]["times_ms"]) == 3 and min(answers[0]["times_ms"]) > 0
    # The attachments arrived in order: the second model's weights differ from the first's.
    assert answers[1]["verification"]["ok"] is False
    assert "no attachment 2" in answers[2]["error"]


def test_server_stops_when_an_attachment_is_cut_short(tmp_path):
    model = matmul_model(tmp_path / "m.onnx").read_bytes()
    request = {"models": [{"attachment": 0}], "attachments": [len(model)]}
    process = serve(json.dumps(request).encode() + b"\n" + model[:10])
    assert process.returncode == 1
    answer = json.loads(process.stdout)
    assert f"an attachment of {len(model)} bytes ended after 10" in answer["error"]


def test_ort_latency_times_both_models_interleaved(tmp_path):
    first, second = matmul_model(tmp_path / "a.onnx"), matmul_model(tmp_path / "b.onnx", 2.0)
    original, optimized = ort_latency.compare_latency(first, second, runs=5, threads=1)
    for summary in (original, optimized):
        assert summary["runs"] == 5
        assert 0 < summary["min_ms"] <= summary["p10_ms"] <= summary["median_ms"]
        assert summary["median_ms"] <= summary["p90_ms"]
    result = subprocess.run([sys.executable, "-m", "saturate.ort_latency", "--json", "--runs",
                             "3", str(first), str(second)], capture_output=True, text=True,
                            timeout=120, env={**os.environ, "PYTHONPATH": str(REPO / "python")})
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["optimized"]["runs"] == 3
    bad = subprocess.run([sys.executable, "-m", "saturate.ort_latency", "--runs", "0",
                          str(first), str(second)], capture_output=True, text=True, timeout=60,
                         env={**os.environ, "PYTHONPATH": str(REPO / "python")})
    assert bad.returncode == 2 and "--runs" in bad.stderr
    missing = subprocess.run([sys.executable, "-m", "saturate.ort_latency", str(first),
                              str(tmp_path / "missing.onnx")], capture_output=True, text=True,
                             timeout=60, env={**os.environ, "PYTHONPATH": str(REPO / "python")})
    assert missing.returncode == 2 and "latency check failed" in missing.stderr


def test_ort_latency_times_several_profiles_as_one_weighted_run(tmp_path):
    # A model with a dynamic batch, timed at two batch sizes: each round runs both models at
    # both sizes and pairs the weighted sums, so a run of the heavy profile dominates.
    path = tmp_path / "dynamic.onnx"
    rng = np.random.default_rng(3)
    weight = numpy_helper.from_array(rng.standard_normal((256, 256)).astype(np.float32), "w")
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["x", "w"], ["y"])], "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 256])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 256])], [weight])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.save(model, path)
    shapes = [{"x": [1, 256]}, {"x": [512, 256]}]
    small, _ = ort_latency.compare_latency(path, path, runs=6, threads=1, shapes=shapes[0])
    both, _ = ort_latency.compare_latency(path, path, runs=6, threads=1, shapes=shapes,
                                          weights=[1.0, 1.0])
    heavy, _ = ort_latency.compare_latency(path, path, runs=6, threads=1, shapes=shapes,
                                           weights=[1.0, 3.0])
    assert small["runs"] == both["runs"] == heavy["runs"] == 6
    # Batch 512 is hundreds of times the work of batch 1: a sum that holds it is far more than
    # batch 1 alone, whatever the machine's noise.
    assert both["median_ms"] > 3 * small["median_ms"]
    assert heavy["median_ms"] > 3 * small["median_ms"]
    with pytest.raises(ValueError, match="weights"):
        ort_latency.compare_latency(path, path, runs=2, shapes=shapes, weights=[1.0])


def test_sessions_timed_in_turn_do_not_spin(tmp_path):
    # The latency check and the benchmarks alternate sessions in one process: a pool left
    # spinning after its run would slow the other session's run.
    import onnxruntime as ort

    options = ort.SessionOptions()
    ort_session.no_spinning(options)
    assert options.get_session_config_entry("session.intra_op.allow_spinning") == "0"
    session = ort.InferenceSession(str(matmul_model(tmp_path / "a.onnx")), options,
                                   providers=["CPUExecutionProvider"])
    feeds = ort_session.feeds_for(session, np.random.default_rng(0))
    assert session.run(None, feeds)[0].shape == (3, 4)


def _two_layer_model(scale: float, weights_as_inputs: bool = False):
    rng = np.random.default_rng(2)
    weights = [numpy_helper.from_array((rng.standard_normal((8, 8)) * scale).astype(np.float32),
                                       f"w{k}") for k in range(2)]
    inputs = [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 8])]
    if weights_as_inputs:  # IR < 4 style: every initializer also listed as a graph input
        inputs += [helper.make_tensor_value_info(w.name, TensorProto.FLOAT, [8, 8])
                   for w in weights]
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["x", "w0"], ["h"]), helper.make_node("Tanh", ["h"], ["t"]),
         helper.make_node("MatMul", ["t", "w1"], ["y"])],
        "g", inputs, [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 8])],
        weights)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    return model


@pytest.mark.parametrize("weights_as_inputs", [False, True])
def test_float64_verification_reads_external_weights_and_tells_them_apart(tmp_path,
                                                                          weights_as_inputs):
    # Weights in external data, read tensor by tensor into the float64 check: equal models
    # match in float64, a changed weight is a mismatch, and the caller's model is not touched.
    paths = []
    for name, scale in (("a", 1.0), ("b", 1.0), ("c", 1.001)):
        path = tmp_path / name / "model.onnx"
        path.parent.mkdir()
        onnx.save(_two_layer_model(scale, weights_as_inputs), path, save_as_external_data=True,
                  all_tensors_to_one_file=True, location="weights.bin", size_threshold=0)
        paths.append(path)
    shapes = [{"x": [3, 8]}]
    same = onnx_check.compare_models(paths[0], paths[1], input_shapes=shapes)
    assert same.ok and same.precision == "float64", same
    assert max(o.max_abs_error for o in same.outputs) == 0
    changed = onnx_check.compare_models(paths[0], paths[2], input_shapes=shapes)
    assert not changed.ok and changed.precision == "float64"
    proto = _two_layer_model(1.0, weights_as_inputs)
    before = proto.SerializeToString()
    assert onnx_check.compare_models(proto, paths[0], input_shapes=shapes).ok
    assert proto.SerializeToString() == before
