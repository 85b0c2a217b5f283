"""saturate optimize on ONNX files: import, optimize, export, and ONNX Runtime agrees."""
import json
import pathlib

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

REPO = pathlib.Path(__file__).resolve().parents[2]
from saturate import onnx_check  # noqa: E402

OPSET = 17
RNG = np.random.default_rng(7)


def weight(name, *shape, scale=0.5):
    return numpy_helper.from_array((RNG.standard_normal(shape) * scale).astype(np.float32), name)


def ints(name, values):
    return numpy_helper.from_array(np.array(values, dtype=np.int64), name)


def make_model(nodes, inputs, outputs, initializers=(), opset=OPSET, ir_version=8, extra=()):
    graph = helper.make_graph(
        nodes, "test",
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, s) for n, s in inputs],
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, s) for n, s in outputs],
        list(initializers))
    opsets = [helper.make_opsetid("", opset), *extra]
    model = helper.make_model(graph, opset_imports=opsets, producer_name="pytest")
    model.ir_version = ir_version
    return model


def run_ort(path, feeds):
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    names = [o.name for o in session.get_outputs()]
    return dict(zip(names, session.run(None, feeds)))


def random_feeds(model):
    feeds = {}
    for value in model.graph.input:
        shape = [d.dim_value for d in value.type.tensor_type.shape.dim]
        feeds[value.name] = RNG.uniform(-1, 1, shape).astype(np.float32)
    return feeds


def optimize_and_compare(saturate, tmp_path, model, extra_args=()):
    """Writes the model, optimizes it to ONNX, checks it and compares outputs with ORT."""
    source = tmp_path / "model.onnx"
    onnx.save(model, source)
    before = source.read_bytes()
    output = tmp_path / "out.onnx"
    report_path = tmp_path / "report.json"
    # No whole-model latency check: it may keep the original, and these tests look at what the
    # optimizer wrote (test_latency_check_* cover the check).
    result = saturate("optimize", source, "-o", output, "--json", report_path,
                      "--extract", "greedy", "--latency-runs", "0", *extra_args)
    assert result.returncode == 0, result.stderr
    assert source.read_bytes() == before
    optimized = onnx.load(output)
    onnx.checker.check_model(optimized, full_check=True)
    feeds = random_feeds(model)
    expected = run_ort(source, feeds)
    got = run_ort(output, feeds)
    assert set(got) == set(expected)
    for name in expected:
        np.testing.assert_allclose(got[name], expected[name], rtol=1e-4, atol=1e-5)
    report = json.loads(report_path.read_text())
    assert report["input_format"] == "onnx"
    return optimized, report


def op_types(model):
    return [node.op_type for node in model.graph.node]


def test_conv_relu_with_explicit_pads(saturate, tmp_path):
    nodes = [
        helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], pads=[1, 2, 0, 1], strides=[1, 1]),
        helper.make_node("Relu", ["c1"], ["r1"]),
        # SAME-like pads: maps to the IR's SAME padding.
        helper.make_node("Conv", ["r1", "w2"], ["c2"], pads=[1, 1, 1, 1], group=2),
        helper.make_node("Relu", ["c2"], ["y"]),
    ]
    model = make_model(nodes, [("x", [1, 4, 9, 9])], [("y", [1, 6, 9, 11])],
                       [weight("w1", 6, 4, 2, 2), weight("b1", 6), weight("w2", 6, 3, 3, 3)])
    optimized, report = optimize_and_compare(saturate, tmp_path, model)
    assert report["opaque_nodes"] == 0
    assert "Pad" not in op_types(optimized)  # folded back into the Conv's pads
    # Two convolutions, each a Conv or (default target, where the measured costs choose it)
    # ONNX Runtime's FusedConv with its bias and Relu; the pads are folded into either.
    assert op_types(optimized).count("Conv") + op_types(optimized).count("FusedConv") == 2


def matmuls_sharing_an_input(rows, inner, outer, activations):
    """x [rows, inner] times two weights [inner, outer], each product through its activation."""
    first, second = activations
    nodes = [
        helper.make_node("MatMul", ["x", "wa"], ["a"]),
        helper.make_node("MatMul", ["x", "wb"], ["b"]),
        helper.make_node(first, ["a"], ["ya"]),
        helper.make_node(second, ["b"], ["yb"]),
    ]
    return make_model(nodes, [("x", [rows, inner])], [("ya", [rows, outer]), ("yb", [rows, outer])],
                      [weight("wa", inner, outer), weight("wb", inner, outer)])


def test_two_matmuls_sharing_an_input(saturate, tmp_path):
    optimize_and_compare(saturate, tmp_path, matmuls_sharing_an_input(8, 16, 32, ("Relu", "Tanh")))


def test_unknown_operator_stays_opaque(saturate, tmp_path):
    nodes = [
        helper.make_node("MatMul", ["x", "w"], ["m"]),
        helper.make_node("Relu", ["m"], ["r"]),
        helper.make_node("Hardmax", ["r"], ["h"], axis=1),
        helper.make_node("LpNormalization", ["h"], ["n"], axis=-1, p=2),
        helper.make_node("Add", ["n", "r"], ["s"]),
        helper.make_node("Sigmoid", ["s"], ["y"]),
    ]
    model = make_model(nodes, [("x", [4, 8])], [("y", [4, 8])], [weight("w", 8, 8)])
    optimized, report = optimize_and_compare(saturate, tmp_path, model)
    assert report["opaque_nodes"] == 2
    kinds = op_types(optimized)
    assert "Hardmax" in kinds and "LpNormalization" in kinds
    hardmax = next(n for n in optimized.graph.node if n.op_type == "Hardmax")
    assert [(a.name, a.i) for a in hardmax.attribute] == [("axis", 1)]


def test_opaque_node_with_int64_constant_inputs(saturate, tmp_path):
    # A strided Slice is not an IR slice; its int64 bounds travel inside the opaque node.
    nodes = [
        helper.make_node("Relu", ["x"], ["r"]),
        helper.make_node("Slice", ["r", "starts", "ends", "axes", "steps"], ["s"]),
        # TopK's int64 indices are never read: they are written back under a fresh name.
        helper.make_node("TopK", ["s", "k"], ["top", "indices"], axis=-1),
        helper.make_node("Tanh", ["top"], ["y"]),
    ]
    model = make_model(nodes, [("x", [2, 10])], [("y", [2, 3])],
                       [ints("starts", [0]), ints("ends", [10]), ints("axes", [1]),
                        ints("steps", [2]), ints("k", [3])])
    optimized, report = optimize_and_compare(saturate, tmp_path, model)
    assert report["opaque_nodes"] == 2
    assert "Slice" in op_types(optimized) and "TopK" in op_types(optimized)


def test_gemm_flatten_reshape_split_concat(saturate, tmp_path):
    nodes = [
        helper.make_node("Flatten", ["x"], ["f"], axis=1),
        helper.make_node("Gemm", ["f", "w", "c"], ["g"], transB=1, alpha=0.5, beta=2.0),
        helper.make_node("Split", ["g", "sizes"], ["g0", "g1"], axis=1),
        helper.make_node("Sigmoid", ["g0"], ["s0"]),
        helper.make_node("Concat", ["g1", "s0"], ["cat"], axis=1),
        helper.make_node("Reshape", ["cat", "shape"], ["r"]),
        helper.make_node("Transpose", ["r"], ["t"], perm=[0, 2, 1]),
        helper.make_node("Unsqueeze", ["t", "axes"], ["u"]),
        helper.make_node("Squeeze", ["u", "axes"], ["q"]),
        helper.make_node("Softmax", ["q"], ["y"], axis=-1),
    ]
    model = make_model(
        nodes, [("x", [2, 3, 4])], [("y", [2, 4, 3])],
        [weight("w", 12, 12), weight("c", 12), ints("sizes", [5, 7]), ints("shape", [0, 3, -1]),
         ints("axes", [1])])
    optimize_and_compare(saturate, tmp_path, model)


def test_transformer_block_ops(saturate, tmp_path):
    nodes = [
        helper.make_node("LayerNormalization", ["x", "gamma", "beta"], ["ln"], axis=-1),
        helper.make_node("MatMul", ["ln", "w"], ["m"]),
        helper.make_node("Div", ["m", "sqrt2"], ["d"]),
        helper.make_node("Erf", ["d"], ["e"]),
        helper.make_node("Add", ["e", "one"], ["e1"]),
        helper.make_node("Mul", ["m", "e1"], ["g"]),
        helper.make_node("Mul", ["g", "half"], ["gelu"]),
        helper.make_node("ReduceMean", ["gelu"], ["mean"], axes=[-1], keepdims=1),
        helper.make_node("Sub", ["gelu", "mean"], ["centred"]),
        helper.make_node("Clip", ["centred", "lo", "hi"], ["clipped"]),
        helper.make_node("Pow", ["clipped", "two"], ["sq"]),
        helper.make_node("Sqrt", ["sq"], ["abs"]),
        helper.make_node("Exp", ["abs"], ["y0"]),
        helper.make_node("Identity", ["y0"], ["y1"]),
        helper.make_node("Dropout", ["y1"], ["y"]),
    ]
    scalar = lambda name, v: numpy_helper.from_array(np.array(v, dtype=np.float32), name)  # noqa
    model = make_model(
        nodes, [("x", [2, 5, 16])], [("y", [2, 5, 16])],
        [weight("gamma", 16), weight("beta", 16), weight("w", 16, 16), scalar("sqrt2", 1.4142135),
         scalar("one", 1.0), scalar("half", 0.5), scalar("lo", -0.5), scalar("hi", 0.75),
         scalar("two", 2.0)])
    optimize_and_compare(saturate, tmp_path, model)


def test_pools_batchnorm_and_global_average(saturate, tmp_path):
    nodes = [
        helper.make_node("BatchNormalization", ["x", "s", "b", "mu", "var"], ["bn"],
                         epsilon=1e-3),
        helper.make_node("MaxPool", ["bn"], ["mp"], kernel_shape=[3, 3], strides=[2, 2],
                         pads=[1, 1, 1, 1]),
        helper.make_node("AveragePool", ["mp"], ["ap"], kernel_shape=[2, 2], pads=[1, 1, 0, 0],
                         count_include_pad=1),
        # Max pooling over pads that are not SAME is kept opaque (zero padding is not -inf).
        helper.make_node("MaxPool", ["ap"], ["mp2"], kernel_shape=[2, 2], pads=[1, 0, 1, 0]),
        helper.make_node("GlobalAveragePool", ["mp2"], ["y"]),
    ]
    var = numpy_helper.from_array(RNG.uniform(0.5, 2.0, 3).astype(np.float32), "var")
    model = make_model(nodes, [("x", [1, 3, 9, 9])], [("y", [1, 3, 1, 1])],
                       [weight("s", 3), weight("b", 3), weight("mu", 3), var])
    optimized, report = optimize_and_compare(saturate, tmp_path, model)
    assert report["opaque_nodes"] == 1


def test_older_opset_model(saturate, tmp_path):
    nodes = [
        helper.make_node("MatMul", ["x", "w"], ["m"]),
        helper.make_node("Softmax", ["m"], ["s"], axis=1),
        helper.make_node("Split", ["s"], ["a", "b"], axis=1, split=[3, 5]),
        helper.make_node("Unsqueeze", ["a"], ["y"], axes=[0]),
        helper.make_node("Relu", ["b"], ["z"]),
    ]
    model = make_model(nodes, [("x", [4, 8])], [("y", [1, 4, 3]), ("z", [4, 5])],
                       [weight("w", 8, 8)], opset=11, ir_version=6)
    optimized, _ = optimize_and_compare(saturate, tmp_path, model)
    assert optimized.opset_import[0].version == OPSET


# --- Errors: one line, non-zero exit, nothing written, input unchanged.

def expect_error(saturate, tmp_path, source, *fragments):
    before = source.read_bytes()
    output = tmp_path / "never.onnx"
    result = saturate("optimize", source, "-o", output, "--extract", "greedy")
    assert result.returncode != 0
    lines = [line for line in result.stderr.splitlines() if line.startswith("saturate:")]
    assert len(lines) == 1, result.stderr
    for fragment in fragments:
        assert fragment in lines[0], lines[0]
    assert not output.exists()
    assert not list(tmp_path.glob("never.onnx*"))
    assert source.read_bytes() == before
    return lines[0]


def simple_model(**kwargs):
    nodes = [helper.make_node("MatMul", ["x", "w"], ["m"]), helper.make_node("Relu", ["m"], ["y"])]
    return make_model(nodes, [("x", [2, 4])], [("y", [2, 4])], [weight("w", 4, 4)], **kwargs)


def test_truncated_file_is_an_error(saturate, tmp_path):
    source = tmp_path / "truncated.onnx"
    source.write_bytes(simple_model().SerializeToString()[:-40])
    expect_error(saturate, tmp_path, source, "truncated.onnx")


def test_garbage_bytes_are_an_error(saturate, tmp_path):
    source = tmp_path / "garbage.onnx"
    source.write_bytes(bytes(RNG.integers(0, 256, 4096, dtype=np.uint8)))
    expect_error(saturate, tmp_path, source, "garbage.onnx", "not a valid ONNX model")


def test_unsupported_opset_is_an_error(saturate, tmp_path):
    source = tmp_path / "old.onnx"
    onnx.save(simple_model(opset=7, ir_version=3), source)
    expect_error(saturate, tmp_path, source, "opset 7 is not supported")


def test_dynamic_dimension_is_kept_and_verified_at_several_sizes(saturate, tmp_path):
    model = simple_model()
    model.graph.input[0].type.tensor_type.shape.dim[0].dim_param = "batch"
    source = tmp_path / "dynamic.onnx"
    onnx.save(model, source)
    output, report = tmp_path / "out.onnx", tmp_path / "report.json"
    result = saturate("optimize", source, "-o", output, "--cost", "analytic", "--verify",
                      "--json", report)
    assert result.returncode == 0, result.stderr
    written = onnx.load(str(output))
    assert written.graph.input[0].type.tensor_type.shape.dim[0].dim_param == "batch"
    data = json.loads(report.read_text())
    assert data["verified"] is True
    batches = sorted(shapes["x"][0] for shapes in data["verify_input_shapes"])
    assert batches == [1, 3, 7]  # the default profile (batch 1), then odd sizes


def test_a_profile_must_name_a_symbol_of_the_model(saturate, tmp_path):
    model = simple_model()
    model.graph.input[0].type.tensor_type.shape.dim[0].dim_param = "batch"
    source = tmp_path / "dynamic.onnx"
    onnx.save(model, source)
    output = tmp_path / "never.onnx"
    result = saturate("optimize", source, "-o", output, "--cost", "analytic", "--profile",
                      "sequence=4")
    assert result.returncode == 1
    lines = [line for line in result.stderr.splitlines() if line.startswith("saturate:")]
    assert len(lines) == 1 and "sequence is not a symbolic dimension" in lines[0], result.stderr
    assert "its symbols: batch" in lines[0]
    assert not output.exists()


def test_dynamic_dimension_is_pinned_with_input_shape(saturate, tmp_path):
    model = simple_model()
    dims = model.graph.input[0].type.tensor_type.shape.dim
    fixed = [d.dim_value for d in dims]
    dims[0].dim_param = "batch"
    source = tmp_path / "dynamic.onnx"
    onnx.save(model, source)
    output = tmp_path / "pinned.onnx"
    shape = ",".join(str(d) for d in fixed)
    result = saturate("optimize", source, "-o", output, "--input-shape", f"x={shape}",
                      "--cost", "analytic", "--verify")
    assert result.returncode == 0, result.stderr
    written = onnx.load(str(output))
    assert [d.dim_value for d in written.graph.input[0].type.tensor_type.shape.dim] == fixed


def test_missing_initializer_is_an_error(saturate, tmp_path):
    model = simple_model()
    del model.graph.initializer[:]
    source = tmp_path / "missing.onnx"
    onnx.save(model, source)
    expect_error(saturate, tmp_path, source, "unknown value name w")


def test_integer_values_flow_through_as_typed_opaque_nodes(saturate, tmp_path):
    """An int32 Relu is valid ONNX: it is carried, typed, and written back as int32."""
    nodes = [helper.make_node("Relu", ["x"], ["y"])]
    graph = helper.make_graph(nodes, "ints",
                              [helper.make_tensor_value_info("x", TensorProto.INT32, [2])],
                              [helper.make_tensor_value_info("y", TensorProto.INT32, [2])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)])
    model.ir_version = 8
    source = tmp_path / "ints.onnx"
    onnx.save(model, source)
    output = tmp_path / "ints.opt.onnx"
    result = saturate("optimize", source, "-o", output, "--cost", "analytic", "--verify")
    assert result.returncode == 0, result.stderr
    written = onnx.load(str(output))
    assert written.graph.input[0].type.tensor_type.elem_type == TensorProto.INT32
    assert written.graph.output[0].type.tensor_type.elem_type == TensorProto.INT32


def test_integer_fed_where_a_float_is_required_is_an_error(saturate, tmp_path):
    nodes = [helper.make_node("MatMul", ["x", "w"], ["y"], name="product")]
    graph = helper.make_graph(
        nodes, "ints", [helper.make_tensor_value_info("x", TensorProto.INT64, [2, 2])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 2])],
        [numpy_helper.from_array(np.ones((2, 2), np.float32), "w")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)])
    model.ir_version = 8
    source = tmp_path / "ints.onnx"
    onnx.save(model, source)
    expect_error(saturate, tmp_path, source, "node product, op MatMul", "INT64")


def test_onnx_output_needs_an_onnx_input(saturate, tmp_path):
    output = tmp_path / "never.onnx"
    result = saturate("optimize", "nasrnn", "--reduced", "-o", output, "--extract", "greedy")
    assert result.returncode != 0
    assert "ONNX" in result.stderr
    assert not output.exists()


def test_show_and_sxp_output_from_onnx(saturate, tmp_path):
    source = tmp_path / "model.onnx"
    onnx.save(simple_model(), source)
    shown = saturate("show", source, "--json")
    assert shown.returncode == 0, shown.stderr
    assert json.loads(shown.stdout)["ops"] == 2
    sxp = tmp_path / "out.sxp"
    result = saturate("optimize", source, "-o", sxp, "--extract", "greedy")
    assert result.returncode == 0, result.stderr
    assert saturate("show", sxp).returncode == 0


def test_latency_check_keeps_the_faster_model(saturate, tmp_path):
    model = matmuls_sharing_an_input(8, 64, 64, ("Relu", "Relu"))
    source, output, report_path = tmp_path / "m.onnx", tmp_path / "o.onnx", tmp_path / "r.json"
    onnx.save(model, source)
    result = saturate("optimize", source, "-o", output, "--json", report_path,
                      "--latency-runs", "60", "--latency-budget", "2", "--cost-cache",
                      tmp_path / "c.sqlite")
    assert result.returncode == 0, result.stderr
    report = json.loads(report_path.read_text())
    check = report["latency_check"]
    assert f"latency check (onnxruntime, {check['runs']} paired runs)" in result.stdout
    assert check["runtime"] == "onnxruntime" and 10 <= check["runs"] <= 60
    assert check["original_median_ms"] > 0 and check["optimized_median_ms"] > 0
    # The sequential test's verdict, with the speedup inside its interval.
    assert check["verdict"] in ("faster", "slower", "equivalent", "undecided")
    low, high = check["speedup_interval"]
    assert low <= check["speedup"] <= high and 0.9 < check["confidence"] < 1
    assert f"{check['verdict']}, kept the" in result.stdout
    assert check["kept"] == ("optimized" if check["verdict"] == "faster" else "original")
    if check["verdict"] != "faster":
        assert report["kept_original"] is True
        assert report["optimized_cost"] == report["original_cost"]
        assert op_types(onnx.load(output)) == op_types(model)
        assert output.read_bytes() == source.read_bytes()  # the input's own bytes
    feeds = random_feeds(model)
    expected, got = run_ort(source, feeds), run_ort(output, feeds)
    for name in expected:
        np.testing.assert_allclose(got[name], expected[name], rtol=1e-4, atol=1e-5)


def test_latency_check_is_off_with_zero_runs_or_another_cost_model(saturate, tmp_path):
    nodes = [helper.make_node("Relu", ["x"], ["y"])]
    source = tmp_path / "m.onnx"
    onnx.save(make_model(nodes, [("x", [4, 4])], [("y", [4, 4])], []), source)
    for extra in (["--latency-runs", "0"], ["--cost", "analytic"]):
        report_path = tmp_path / "r.json"
        result = saturate("optimize", source, "-o", tmp_path / "o.onnx", "--json", report_path,
                          "--cost-cache", tmp_path / "c.sqlite", *extra)
        assert result.returncode == 0, result.stderr
        assert json.loads(report_path.read_text())["latency_check"] is None
        assert "latency check" not in result.stdout


PAPER_MODELS = ["bert", "nasrnn", "nasnet_a", "resnext50", "inception_v3", "squeezenet", "vgg19"]


@pytest.mark.parametrize("name", PAPER_MODELS)
def test_paper_model_exported_optimized_and_verified_in_onnxruntime(saturate, tmp_path, name):
    """The real-models path end to end: export (random weights), optimize the ONNX file, check
    the result in ONNX Runtime. NasRNN's exported weights carry automatic names (t24...) that an
    operator of the extracted graph once took first."""
    source = tmp_path / f"{name}.onnx"
    exported = saturate("export", name, "--reduced", "-o", source, "--weight-scale", 0.25)
    assert exported.returncode == 0, exported.stderr
    output = tmp_path / f"{name}.opt.onnx"
    report_path = tmp_path / "report.json"
    result = saturate("optimize", source, "-o", output, "--json", report_path, "--cost",
                      "analytic", "--extract", "greedy", "--verify")
    assert result.returncode == 0, result.stderr
    report = json.loads(report_path.read_text())
    assert report["verified"] is True and report["verify_runtime"] == "onnxruntime"
    assert report["outputs_finite"] is True
    assert report["optimized_cost"] <= report["original_cost"]
    onnx.checker.check_model(onnx.load(output), full_check=True)


def test_export_refuses_a_weight_scale_for_a_model_with_weights(saturate, tmp_path):
    source = tmp_path / "m.onnx"
    assert saturate("export", "vgg19", "--reduced", "-o", source).returncode == 0
    result = saturate("export", source, "-o", tmp_path / "again.onnx", "--weight-scale", 0.5)
    assert result.returncode != 0 and "--weight-scale" in result.stderr
    assert not (tmp_path / "again.onnx").exists()


def _external_copy(tmp_path):
    """The GPT-2 fixture saved as model.onnx + model.onnx.data (how models past 2 GB come)."""
    fixture = REPO / "tests" / "fixtures" / "exporters" / "gpt2.torchscript.onnx"
    model = onnx.load(str(fixture))
    folder = tmp_path / "external"
    folder.mkdir()
    onnx.save(model, str(folder / "model.onnx"), save_as_external_data=True,
              all_tensors_to_one_file=True, location="model.onnx.data", size_threshold=1024)
    return folder / "model.onnx", folder / "model.onnx.data"


def test_external_data_is_read_and_written_back(saturate, tmp_path):
    source, data = _external_copy(tmp_path)
    assert data.stat().st_size > 100_000
    output = tmp_path / "out.onnx"
    result = saturate("optimize", source, "-o", output, "--cost", "analytic", "--verify")
    assert result.returncode == 0, result.stderr
    assert "verify: ok" in result.stderr or "verify: ok" in result.stdout
    # The input kept its weights beside it, so the output does too.
    written_data = tmp_path / "out.onnx.data"
    assert written_data.stat().st_size > 100_000
    assert output.stat().st_size < 100_000
    check = onnx_check.compare_models(str(source), str(output), seed=3, trials=1)
    assert check.ok, check
    assert not list(tmp_path.glob(".*.tmp-saturate-*")) and not list(tmp_path.glob("*.tmp-saturate*"))


def test_external_data_can_be_forced_either_way(saturate, tmp_path):
    fixture = REPO / "tests" / "fixtures" / "exporters" / "bert_eager.torchscript.onnx"
    on = tmp_path / "on.onnx"
    result = saturate("optimize", fixture, "-o", on, "--cost", "analytic", "--external-data", "on")
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "on.onnx.data").exists()
    assert onnx_check.compare_models(str(fixture), str(on), trials=1).ok
    source, _ = _external_copy(tmp_path)
    off = tmp_path / "off.onnx"
    result = saturate("export", source, "-o", off, "--external-data", "off")
    assert result.returncode == 0, result.stderr
    assert not (tmp_path / "off.onnx.data").exists()
    assert onnx_check.compare_models(str(source), str(off), trials=1).ok


def test_missing_or_truncated_external_data_is_an_error(saturate, tmp_path):
    source, data = _external_copy(tmp_path)
    content = data.read_bytes()
    data.write_bytes(content[: len(content) // 2])
    expect_error(saturate, tmp_path, source, "truncated", "model.onnx.data")
    data.unlink()
    expect_error(saturate, tmp_path, source, "model.onnx.data", "cannot be read")


# Control flow: If and Loop whose subgraphs read outer values by name are carried as opaque
# nodes with their subgraphs intact; the outer values they read stay visible under their names.
def if_model(path):
    # outer: h = Relu(MatMul(x, w)); If(cond) then: h * 2 (reads outer h and constant two) else: h + bias
    two = numpy_helper.from_array(np.array(2.0, np.float32), "two")
    then_g = helper.make_graph([helper.make_node("Mul", ["h", "two"], ["t_out"])], "then", [],
                               [helper.make_tensor_value_info("t_out", TensorProto.FLOAT, [2, 4])])
    else_g = helper.make_graph([helper.make_node("Add", ["h", "bias"], ["e_out"])], "else", [],
                               [helper.make_tensor_value_info("e_out", TensorProto.FLOAT, [2, 4])])
    nodes = [helper.make_node("MatMul", ["x", "w"], ["m"]), helper.make_node("Relu", ["m"], ["h"]),
             helper.make_node("If", ["cond"], ["y"], then_branch=then_g, else_branch=else_g),
             helper.make_node("Relu", ["y"], ["out"])]
    g = helper.make_graph(nodes, "cf", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3]),
                                         helper.make_tensor_value_info("cond", TensorProto.BOOL, [])],
                          [helper.make_tensor_value_info("out", TensorProto.FLOAT, [2, 4])],
                          [numpy_helper.from_array(np.random.default_rng(0).standard_normal((3, 4)).astype(np.float32), "w"),
                           numpy_helper.from_array(np.ones(4, np.float32), "bias"), two])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]); m.ir_version = 8
    onnx.checker.check_model(m); onnx.save(m, path)
def loop_model(path):
    # Loop 3 times: acc = acc * scale + x (reads outer x and outer scale)
    body = helper.make_graph(
        [helper.make_node("Identity", ["cond_in"], ["cond_out"]),
         helper.make_node("Mul", ["acc_in", "scale"], ["scaled"]),
         helper.make_node("Add", ["scaled", "xr"], ["acc_out"])], "body",
        [helper.make_tensor_value_info("i", TensorProto.INT64, []),
         helper.make_tensor_value_info("cond_in", TensorProto.BOOL, []),
         helper.make_tensor_value_info("acc_in", TensorProto.FLOAT, [2, 3])],
        [helper.make_tensor_value_info("cond_out", TensorProto.BOOL, []),
         helper.make_tensor_value_info("acc_out", TensorProto.FLOAT, [2, 3])])
    nodes = [helper.make_node("Relu", ["x"], ["xr"]),
             helper.make_node("Loop", ["trips", "", "x"], ["acc"], body=body),
             helper.make_node("Sigmoid", ["acc"], ["out"])]
    g = helper.make_graph(nodes, "loop", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])],
                          [helper.make_tensor_value_info("out", TensorProto.FLOAT, [2, 3])],
                          [numpy_helper.from_array(np.array(3, np.int64), "trips"),
                           numpy_helper.from_array(np.full((2, 3), 0.5, np.float32), "scale")])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]); m.ir_version = 8
    onnx.checker.check_model(m); onnx.save(m, path)


@pytest.mark.parametrize("build", [if_model, loop_model], ids=["if", "loop"])
def test_control_flow_is_carried_with_its_subgraphs(saturate, tmp_path, build):
    source = tmp_path / "cf.onnx"
    build(str(source))
    output = tmp_path / "cf.opt.onnx"
    result = saturate("optimize", source, "-o", output, "--cost", "analytic", "--verify")
    assert result.returncode == 0, result.stderr
    written = onnx.load(str(output))
    onnx.checker.check_model(written)
    assert {"If", "Loop"} & {n.op_type for n in written.graph.node}
    # Both branches of the If, run directly (the check's random booleans are all True).
    rng = np.random.default_rng(5)
    for cond in (True, False):
        feeds = {"x": rng.standard_normal((2, 3)).astype(np.float32)}
        if build is if_model:
            feeds["cond"] = np.array(cond)
        want = ort.InferenceSession(str(source), providers=["CPUExecutionProvider"]).run(None, feeds)
        got = ort.InferenceSession(str(output), providers=["CPUExecutionProvider"]).run(None, feeds)
        np.testing.assert_allclose(got[0], want[0], rtol=1e-6, atol=1e-6)


# --- Folding in float64, verification that users can trust, nothing written on a mismatch ---


def test_export_folds_weights_in_float64_and_rounds_once(saturate, tmp_path):
    """(a @ b) - c with c = float32(a @ b): folded in float32 the difference rounds to 0 where
    float64 keeps the rounding residual; the exported constant must be the latter, rounded."""
    rng = np.random.default_rng(3)
    a = rng.standard_normal((300, 300)).astype(np.float32)  # past import's fold limit
    b = rng.standard_normal((300, 300)).astype(np.float32)
    exact = a.astype(np.float64) @ b.astype(np.float64)
    c = exact.astype(np.float32)
    nodes = [helper.make_node("MatMul", ["a", "b"], ["ab"]),
             helper.make_node("Sub", ["ab", "c"], ["residual"]),
             helper.make_node("Add", ["x", "residual"], ["y"])]
    model = make_model(nodes, [("x", [300, 300])], [("y", [300, 300])],
                       [numpy_helper.from_array(v, n) for n, v in (("a", a), ("b", b), ("c", c))])
    source, output = tmp_path / "fold.onnx", tmp_path / "out.onnx"
    onnx.save(model, source)
    result = saturate("export", source, "-o", output)
    assert result.returncode == 0, result.stderr
    exported = onnx.load(output)
    add = next(n for n in exported.graph.node if n.op_type == "Add")
    initializers = {t.name: numpy_helper.to_array(t) for t in exported.graph.initializer}
    folded = initializers[next(name for name in add.input if name in initializers)]
    expected = (exact - c.astype(np.float64)).astype(np.float32)
    assert np.count_nonzero(folded) > 1000  # float32 folding gives zeros
    # Equal up to the order of the float64 sums (residuals are ~1e-8, the sums ~10).
    np.testing.assert_allclose(folded.reshape(expected.shape), expected, rtol=1e-5, atol=1e-13)


def attention_scores(variant):
    """softmax((x Wq)(x Wk)^T) with logits of magnitude ~60; "folded" computes it as
    softmax(x W x^T) with W = Wq Wk^T rounded once to float32 (what the optimizer produces),
    "wrong" forgets the transpose (a wrong rewrite)."""
    rng = np.random.default_rng(0)
    d, n = 64, 32
    wq = (rng.standard_normal((d, d)) * 0.35).astype(np.float32)
    wk = (rng.standard_normal((d, d)) * 0.35).astype(np.float32)
    if variant == "original":
        inits = [numpy_helper.from_array(wq, "wq"), numpy_helper.from_array(wk, "wk")]
        nodes = [helper.make_node("MatMul", ["x", "wq"], ["q"]),
                 helper.make_node("MatMul", ["x", "wk"], ["k"]),
                 helper.make_node("Transpose", ["k"], ["kt"], perm=[1, 0]),
                 helper.make_node("MatMul", ["q", "kt"], ["s"])]
    else:
        product = wq.astype(np.float64) @ (
            wk.astype(np.float64).T if variant == "folded" else wk.astype(np.float64))
        inits = [numpy_helper.from_array(product.astype(np.float32), "w")]
        nodes = [helper.make_node("MatMul", ["x", "w"], ["q"]),
                 helper.make_node("Transpose", ["x"], ["xt"], perm=[1, 0]),
                 helper.make_node("MatMul", ["q", "xt"], ["s"])]
    nodes.append(helper.make_node("Softmax", ["s"], ["y"], axis=-1))
    return make_model(nodes, [("x", [n, d])], [("y", [n, n])], inits)


def test_verification_passes_a_rounding_sensitive_fold_in_float64():
    result = onnx_check.compare_models(attention_scores("original"), attention_scores("folded"))
    assert result.ok and result.precision == "float64"
    assert result.max_rel_error < 1e-5  # relative to the output's range
    assert result.outputs[0].range > 0 and result.outputs[0].ok


@pytest.mark.parametrize("precision", ["auto", "float32"])
def test_verification_still_catches_a_wrong_rewrite(precision):
    result = onnx_check.compare_models(attention_scores("original"), attention_scores("wrong"),
                                       precision=precision)
    assert not result.ok and not result.outputs[0].ok
    assert result.precision == ("float64" if precision == "auto" else "float32")


def test_verification_falls_back_to_float32_without_double_kernels():
    # ONNX Runtime's CPU provider has no double Hardmax... or has one: either way the check
    # runs and says which precision it used.
    nodes = [helper.make_node("MatMul", ["x", "w"], ["m"]),
             helper.make_node("Hardmax", ["m"], ["y"], axis=-1)]
    model = make_model(nodes, [("x", [4, 8])], [("y", [4, 8])], [weight("w", 8, 8)])
    result = onnx_check.compare_models(model, model)
    assert result.ok and result.precision in ("float64", "float32")
    assert (result.float64_unavailable is None) == (result.precision == "float64")


# Unsound on purpose, and chosen: it fuses the relu into the matmul as a sigmoid, one operator
# for two, so extraction takes it under any cost model. (`(relu ?x) => ?x` would never be applied:
# it merges relu(x) with its own input, a cycle the cycle filter refuses.)
WRONG_RULE = "fuse_as_sigmoid: (relu (matmul none ?a ?b)) => (matmul sigmoid ?a ?b)\n"


def relu_dense_model():
    nodes = [helper.make_node("MatMul", ["x", "w"], ["m"]), helper.make_node("Relu", ["m"], ["y"])]
    return make_model(nodes, [("x", [4, 8])], [("y", [4, 8])], [weight("w", 8, 8)])


RELU_DENSE_SXP = ("(graph g\n  (node x (input :shape [4 8]))\n  (node w (weight :shape [8 8]))\n"
                  "  (node m (matmul x w))\n  (node y (relu m))\n  (output out y))\n")


def assert_the_wrong_rewrite_was_chosen(verdict):
    """The rule fired and the extracted graph is the one fused (wrong) operator."""
    (rule,) = verdict["rules"]
    assert rule["rule"] == "fuse_as_sigmoid" and rule["applied"] >= 1, rule
    assert verdict["optimized_ops"] == 1 and verdict["original_ops"] == 2


@pytest.mark.parametrize("kind", ["onnx", "sxp"])
def test_a_failed_verification_writes_only_the_report_and_exits_3(saturate, tmp_path, kind):
    rules = tmp_path / "wrong.rules"
    rules.write_text(WRONG_RULE)
    if kind == "onnx":
        source = tmp_path / "model.onnx"
        onnx.save(relu_dense_model(), source)
    else:
        source = tmp_path / "model.sxp"
        source.write_text(RELU_DENSE_SXP)
    before = source.read_bytes()
    output, report, dot = tmp_path / f"out.{kind}", tmp_path / "r.json", tmp_path / "g.dot"
    args = ["optimize", source, "--rules", rules, "--verify", "-o", output, "--json", report,
            "--dot", dot, "--cost", "analytic", "--latency-runs", "0"]
    result = saturate(*args)
    assert result.returncode == 3, result.stderr
    assert result.stderr.splitlines()[-1].startswith("saturate: error:")
    assert "nothing written but the --json report" in result.stderr.splitlines()[-1]
    assert "MISMATCH" in result.stdout
    assert not output.exists() and not dot.exists()
    # Nothing else either: no temporary file left beside the outputs.
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        [source.name, rules.name, report.name])
    assert source.read_bytes() == before
    verdict = json.loads(report.read_text())
    assert verdict["verified"] is False and verdict["verify_precision"] == "float64"
    assert_the_wrong_rewrite_was_chosen(verdict)
    if kind == "onnx":
        assert verdict["verify_runtime"] == "onnxruntime"
        assert verdict["verify_outputs"][0]["ok"] is False
        assert verdict["verify_outputs"][0]["range"] > 0
    else:
        assert verdict["verify_runtime"] == "reference interpreter"
        assert verdict["max_relative_error"] > verdict["verify_tolerance"]

    # Outputs already there from an earlier run are left as they were, not replaced.
    output.write_bytes(b"earlier output")
    dot.write_bytes(b"earlier dot")
    result = saturate(*args)
    assert result.returncode == 3, result.stderr
    assert output.read_bytes() == b"earlier output" and dot.read_bytes() == b"earlier dot"
    output.unlink()
    dot.unlink()

    result = saturate(*args, "--keep-unverified")
    assert result.returncode == 3, result.stderr
    assert result.stderr.splitlines()[-1].startswith("saturate: error:")
    assert output.exists() and dot.exists()
    assert json.loads(report.read_text())["verified"] is False
    # What was kept is the unverified (wrong) graph.
    if kind == "onnx":
        written = onnx.load(output)
        assert [n.op_type for n in written.graph.node if n.op_type != "Constant"] == [
            "MatMul", "Sigmoid"]
    else:
        assert "sigmoid" in output.read_text() and "relu" not in output.read_text()


WRONG_PYPM = """\
from saturate.pypm import Relu, Sigmoid, pattern, rule


@pattern
def Rectified(x):
    return Relu(x)


@rule(Rectified)
def sigmoid_for_relu(x):  # unsound on purpose
    return Sigmoid(x)
"""


def test_a_failed_pm_apply_verification_writes_only_the_report_and_exits_3(saturate, tmp_path):
    source, patterns = tmp_path / "wrong.py", tmp_path / "wrong.pmb"
    source.write_text(WRONG_PYPM)
    result = saturate("pm", "compile", source, "-o", patterns)
    assert result.returncode == 0, result.stderr
    graph = tmp_path / "model.sxp"
    graph.write_text(RELU_DENSE_SXP)
    output, report, dot = tmp_path / "out.sxp", tmp_path / "r.json", tmp_path / "g.dot"
    args = ["pm", "apply", patterns, graph, "--verify", "-o", output, "--json", report,
            "--dot", dot]
    result = saturate(*args)
    assert result.returncode == 3, result.stderr
    assert result.stderr.splitlines()[-1].startswith("saturate: error: pm apply:")
    assert "MISMATCH" in result.stdout
    assert not output.exists() and not dot.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        [source.name, patterns.name, graph.name, report.name])
    verdict = json.loads(report.read_text())
    assert verdict["verified"] is False and verdict["verify_precision"] == "float64"
    assert verdict["max_relative_error"] > verdict["verify_tolerance"]

    result = saturate(*args, "--keep-unverified")
    assert result.returncode == 3, result.stderr
    assert "sigmoid" in output.read_text() and "relu" not in output.read_text()
    assert dot.exists() and json.loads(report.read_text())["verified"] is False

    # Without --verify the rewrite is written and the exit status is 0.
    output.unlink()
    result = saturate("pm", "apply", patterns, graph, "-o", output)
    assert result.returncode == 0, result.stderr
    assert "sigmoid" in output.read_text()


def test_pm_apply_writes_onnx_only_for_an_onnx_input(saturate, tmp_path):
    source, patterns = tmp_path / "wrong.py", tmp_path / "wrong.pmb"
    source.write_text(WRONG_PYPM)
    assert saturate("pm", "compile", source, "-o", patterns).returncode == 0
    model, output = tmp_path / "model.onnx", tmp_path / "out.onnx"
    onnx.save(relu_dense_model(), model)
    result = saturate("pm", "apply", patterns, model, "-o", output)
    assert result.returncode == 0, result.stderr
    written = onnx.load(output)
    onnx.checker.check_model(written, full_check=True)
    assert [n.op_type for n in written.graph.node].count("Sigmoid") == 1
    # --verify runs an ONNX input and its rewrite in ONNX Runtime: the wrong rule is caught
    # (exit 3) and nothing but the report is written.
    output.unlink()
    report = tmp_path / "report.json"
    result = saturate("pm", "apply", patterns, model, "--verify", "-o", output, "--json", report)
    assert result.returncode == 3, result.stderr
    assert not output.exists()
    verdict = json.loads(report.read_text())
    assert verdict["verified"] is False and verdict["verify_runtime"] == "onnxruntime"
    # A .sxp graph has no weights to write: a clear error, nothing written.
    graph = tmp_path / "model.sxp"
    graph.write_text(RELU_DENSE_SXP)
    for command in (["pm", "apply", patterns], ["optimize"]):
        result = saturate(*command, graph, "-o", output)
        assert result.returncode == 1
        assert "exporting to ONNX needs the weights of an ONNX model" in result.stderr
        assert not output.exists()


def test_the_wrong_rule_fails_only_verification(saturate, tmp_path):
    # Without --verify the same run succeeds and writes the (wrong) model: exit 3 above is the
    # verdict of --verify, not an error of the rule or the model.
    rules = tmp_path / "wrong.rules"
    rules.write_text(WRONG_RULE)
    source, output = tmp_path / "model.onnx", tmp_path / "out.onnx"
    onnx.save(relu_dense_model(), source)
    result = saturate("optimize", source, "--rules", rules, "-o", output, "--cost", "analytic",
                      "--latency-runs", "0")
    assert result.returncode == 0, result.stderr
    onnx.checker.check_model(onnx.load(output), full_check=True)


def test_a_correct_model_verifies_in_float64(saturate, tmp_path):
    source, output, report = tmp_path / "attn.onnx", tmp_path / "out.onnx", tmp_path / "r.json"
    onnx.save(attention_scores("original"), source)
    result = saturate("optimize", source, "--verify", "-o", output, "--json", report,
                      "--cost", "analytic", "--latency-runs", "0")
    assert result.returncode == 0, result.stderr
    verdict = json.loads(report.read_text())
    assert verdict["verified"] is True and verdict["verify_precision"] == "float64"
    assert verdict["verify_outputs"][0]["relative_to_range"] < 1e-5
    assert output.exists()


def test_help_documents_the_verification_exit_status(saturate):
    result = saturate("--help")
    assert "3 verification failed" in result.stdout
