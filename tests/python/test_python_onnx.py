"""`saturate.optimize` on ONNX models from Python: a ModelProto or a path in, a ModelProto out."""
import pathlib

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

REPO = pathlib.Path(__file__).resolve().parents[2]

import saturate  # noqa: E402
from saturate import onnx_check  # noqa: E402

if not saturate.HAVE_EXTENSION:  # a sanitizer-only build has no extension (see CMakeLists.txt)
    pytest.skip(f"the C++ extension is not built: {saturate.EXTENSION_ERROR}",
                allow_module_level=True)


def shared_input_matmuls() -> onnx.ModelProto:
    """Two matmuls reading the same input, each followed by relu, and an unknown operator
    (Hardmax) on one branch: the rules merge the matmuls, the Hardmax must survive."""
    rng = np.random.default_rng(0)
    weights = [numpy_helper.from_array(rng.standard_normal((64, 64)).astype(np.float32), name)
               for name in ("w1", "w2")]
    nodes = [
        helper.make_node("MatMul", ["x", "w1"], ["a"]),
        helper.make_node("Relu", ["a"], ["ra"]),
        helper.make_node("MatMul", ["x", "w2"], ["b"]),
        helper.make_node("Relu", ["b"], ["rb"]),
        helper.make_node("Hardmax", ["rb"], ["hb"], axis=-1),
        helper.make_node("Add", ["ra", "hb"], ["y"]),
    ]
    graph = helper.make_graph(
        nodes, "shared",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [32, 64])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [32, 64])], weights)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    return model


@pytest.mark.parametrize("as_path", [False, True])
def test_optimize_returns_a_checked_model_that_computes_the_same(tmp_path, as_path):
    model = shared_input_matmuls()
    argument = model
    if as_path:
        argument = tmp_path / "m.onnx"
        onnx.save(model, argument)
    result = saturate.optimize(argument, verify=True)
    assert isinstance(result, saturate.OptimizeResult)
    optimized, report = result
    assert isinstance(optimized, onnx.ModelProto)
    onnx.checker.check_model(optimized, full_check=True)
    assert "Hardmax" in [n.op_type for n in optimized.graph.node]
    assert saturate.last_report() == report  # kept for older code
    assert report["verified"] is True and report["opaque_nodes"] == 1
    # The command's default for an ONNX model: operators timed in ONNX Runtime.
    assert report["cost_model"] == "onnxruntime"
    assert report["optimized_cost"] <= report["original_cost"]
    assert onnx_check.compare_models(model, optimized).ok


def test_optimize_with_onnxruntime_costs_caches_its_measurements(tmp_path):
    model = shared_input_matmuls()
    cache = str(tmp_path / "costs.sqlite")
    # Cached even when the tests beside it keep the machine busy.
    _, first = saturate.optimize(model, cost="onnxruntime", cost_cache=cache, extract="greedy",
                                 cache_busy_costs=True)
    assert first["cost_model"] == "onnxruntime" and first["cost_measured"] > 0
    assert first["cost_measured_busy"] == 0 and first["cost_load_ratio"] == 0  # no probe ran
    _, second = saturate.optimize(model, cost="onnxruntime", cost_cache=cache, extract="greedy")
    assert second["cost_measured"] == 0 and second["cost_cache_hits"] >= first["cost_measured"]
    check = second["latency_check"]  # the whole-model check in ONNX Runtime, on by default
    assert check is None or (10 <= check["runs"] <= 200 and
                             check["kept"] in ("original", "optimized"))
    optimized, report = saturate.optimize(model, cost="onnxruntime", cost_cache=cache,
                                          extract="greedy", latency_runs=4)
    check = report["latency_check"]
    if check is not None:  # None only when the optimizer changed nothing
        assert check["runs"] == 4
        if check["kept"] == "original":
            assert optimized == model


def test_graphs_still_take_the_graph_path():
    graph = saturate.model("squeezenet", reduced=True)
    result = saturate.optimize(graph, extract="greedy")
    assert isinstance(result, saturate.OptimizeResult)  # the same type as for an ONNX model
    optimized, report = result
    assert isinstance(optimized, saturate.Graph) and result.report is report
    assert report["optimized_cost"] <= report["original_cost"]
    assert optimized.num_operators <= graph.num_operators


def test_bad_onnx_bytes_are_a_clear_error_and_the_file_is_untouched(tmp_path):
    path = tmp_path / "bad.onnx"
    path.write_bytes(b"\x08\x07not really a model")
    with pytest.raises(saturate.SaturateError):
        saturate.optimize(path)
    assert path.read_bytes() == b"\x08\x07not really a model"
    with pytest.raises(TypeError):
        saturate.optimize_onnx(42)


@pytest.mark.parametrize("name", ["bert.dynamo.onnx", "llama.torchscript.onnx"])
def test_exporter_output_through_the_python_api(name):
    """A PyTorch export with int64 token ids, masks and shape arithmetic, through
    saturate.optimize, verified in ONNX Runtime."""
    path = REPO / "tests" / "fixtures" / "exporters" / name
    optimized, report = saturate.optimize(str(path), cost="analytic", verify=True)
    assert report["verified"] is True
    if "torchscript" in name:  # the dynamo exporter folds its own constants
        assert report["folded_nodes"] > 0
    assert optimized.graph.input[0].type.tensor_type.elem_type == TensorProto.INT64


def test_python_api_keeps_or_pins_dynamic_inputs(tmp_path):
    model = onnx.load(str(REPO / "tests" / "fixtures" / "exporters" / "gpt2.dynamo.onnx"))
    model.graph.input[0].type.tensor_type.shape.dim[1].dim_param = "sequence"
    kept, report = saturate.optimize(model, cost="analytic", profiles=["sequence=16"],
                                     verify=True)
    dims = kept.graph.input[0].type.tensor_type.shape.dim
    assert [d.dim_value or d.dim_param for d in dims] == [1, "sequence"]
    assert report["verified"] is True
    assert report["shape_profiles"][0]["sizes"] == {"sequence": 16}
    optimized, _ = saturate.optimize(model, cost="analytic", input_shapes={"input_ids": [1, 16]})
    dims = optimized.graph.input[0].type.tensor_type.shape.dim
    assert [d.dim_value for d in dims] == [1, 16]


def test_python_api_reads_external_data_beside_a_path(tmp_path):
    model = onnx.load(str(REPO / "tests" / "fixtures" / "exporters" / "gpt2.torchscript.onnx"))
    path = tmp_path / "model.onnx"
    onnx.save(model, str(path), save_as_external_data=True, all_tensors_to_one_file=True,
              location="model.onnx.data", size_threshold=1024)
    optimized, report = saturate.optimize(str(path), cost="analytic", verify=True)
    assert report["verified"] is True
    assert len(optimized.graph.initializer) > 0


def test_verify_raises_on_a_wrong_rewrite_unless_keep_unverified(tmp_path):
    # Unsound on purpose and chosen (one fused operator for two; see test_onnx_cli.WRONG_RULE).
    rules = tmp_path / "wrong.rules"
    rules.write_text("fuse_as_sigmoid: (relu (matmul none ?a ?b)) => (matmul sigmoid ?a ?b)\n")
    rng = np.random.default_rng(1)
    nodes = [helper.make_node("MatMul", ["x", "w"], ["m"]), helper.make_node("Relu", ["m"], ["y"])]
    graph = helper.make_graph(
        nodes, "dense", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4, 8])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4, 8])],
        [numpy_helper.from_array(rng.standard_normal((8, 8)).astype(np.float32), "w")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8

    with pytest.raises(saturate.VerificationError, match="differs") as raised:
        saturate.optimize(model, rules=[str(rules)], cost="analytic", verify=True)
    assert isinstance(raised.value, saturate.SaturateError)
    report = saturate.last_report()
    assert report["verified"] is False and report["verify_outputs"][0]["ok"] is False
    assert report["original_ops"] == 2 and report["optimized_ops"] == 1  # the rewrite was chosen
    optimized, report = saturate.optimize(model, rules=[str(rules)], cost="analytic",
                                          verify=True, keep_unverified=True)
    assert isinstance(optimized, onnx.ModelProto)
    assert "Sigmoid" in [n.op_type for n in optimized.graph.node]  # the wrong model, returned
    assert report["verified"] is False and report["verify_precision"] == "float64"
    # Without the wrong rule the same model verifies: the error above is the rule's.
    assert saturate.optimize(model, cost="analytic", verify=True).report["verified"] is True


def test_verification_error_is_exported():
    from saturate import onnx_api

    assert saturate.VerificationError is onnx_api.VerificationError
    assert issubclass(saturate.VerificationError, saturate.SaturateError)


def test_each_thread_reads_its_own_report():
    """optimize in several threads at once: last_report() is per thread, so each thread reads
    the report of its own model (one module-wide report gave 3 of 4 threads another's)."""
    import threading

    fixtures = REPO / "tests" / "fixtures" / "exporters"
    models = {"bert": onnx.load(str(fixtures / "bert_eager.torchscript.onnx")),
              "llama": onnx.load(str(fixtures / "llama.torchscript.onnx"))}
    seen, errors = {}, []
    # Every thread has optimized before any reads its report: the reads race for real.
    all_done = threading.Barrier(4, timeout=300)

    def work(key, name):
        try:
            saturate.optimize(models[name], cost="analytic")
            all_done.wait()
            seen[key] = (name, saturate.last_report()["fused_operators"])
        except Exception as error:  # noqa: BLE001 - reported by the assertion below
            errors.append(error)

    threads = [threading.Thread(target=work, args=(k, "bert" if k % 2 else "llama"))
               for k in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=300)
    assert not errors and len(seen) == 4
    for name, fused in seen.values():
        assert ("qkv_attention" in fused) == (name == "bert")
        assert ("skip_rms_norm" in fused) == (name == "llama")
