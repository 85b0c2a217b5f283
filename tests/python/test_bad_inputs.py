"""A catalogue of bad inputs: for each, the CLI prints exactly one line on stderr starting with
`saturate: error:`, exits non-zero (not 2, an internal error, and not by a signal), writes no
output file and leaves the input's bytes as they were."""
import os
import pathlib

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

OPSET = 17


def relu_model(opset=OPSET, ir_version=8, dims=(2, 3), elem_type=TensorProto.FLOAT):
    graph = helper.make_graph(
        [helper.make_node("Relu", ["x"], ["y"])], "bad",
        [helper.make_tensor_value_info("x", elem_type, list(dims))],
        [helper.make_tensor_value_info("y", elem_type, list(dims))])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = ir_version
    return model


def graph_model(nodes, initializers=(), inputs=(("x", [2, 3]),), outputs=(("y", [2, 3]),)):
    graph = helper.make_graph(
        nodes, "bad",
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, s) for n, s in inputs],
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, s) for n, s in outputs],
        list(initializers))
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)])
    model.ir_version = 8
    return model


def serialized(model):
    return model.SerializeToString()


def wrong_initializer_size():
    # A [3, 4] weight whose raw data holds 5 floats.
    weight = numpy_helper.from_array(np.ones((3, 4), np.float32), "w")
    weight.raw_data = np.ones(5, np.float32).tobytes()  # helper.make_tensor refuses this
    return serialized(graph_model([helper.make_node("MatMul", ["x", "w"], ["y"])], [weight],
                                  outputs=(("y", [2, 4]),)))


def onnx_cases():
    good = serialized(relu_model())
    return {
        "truncated": good[: len(good) // 2],
        "not_a_model": b"\x08\x07garbage that is not a protobuf \xff\xff\xff",
        "wrong_element_type": serialized(relu_model(elem_type=TensorProto.STRING)),
        "negative_dim": serialized(relu_model(dims=(2, -3))),
        "zero_dim": serialized(relu_model(dims=(0, 3))),
        "cycle": serialized(graph_model([
            helper.make_node("Add", ["x", "b"], ["a"]),
            helper.make_node("Relu", ["a"], ["b"]),
            helper.make_node("Relu", ["a"], ["y"])])),
        "dangling_input": serialized(graph_model([helper.make_node("Add", ["x", "nowhere"], ["y"])])),
        "duplicate_names": serialized(graph_model([
            helper.make_node("Relu", ["x"], ["t"]),
            helper.make_node("Neg", ["x"], ["t"]),
            helper.make_node("Relu", ["t"], ["y"])])),
        "wrong_initializer_size": wrong_initializer_size(),
        "opset_1": serialized(relu_model(opset=1)),
        "opset_99": serialized(relu_model(opset=99)),
        "ir_version_99": serialized(relu_model(ir_version=99)),
    }


SXP_CASES = {
    "sxp_syntax": "(graph g\n  (node x (input :shape [2 3]))\n  (node y (relu x)\n",
    "sxp_unknown_op": "(graph g\n  (node x (input :shape [2 3]))\n  (node y (frobnicate x))\n"
                      "  (output out y))\n",
    "sxp_negative_dim": "(graph g\n  (node x (input :shape [2 -3]))\n  (node y (relu x))\n"
                        "  (output out y))\n",
    "sxp_dangling": "(graph g\n  (node x (input :shape [2 3]))\n  (node y (relu nowhere))\n"
                    "  (output out y))\n",
    "sxp_duplicate": "(graph g\n  (node x (input :shape [2 3]))\n  (node x (relu x))\n"
                     "  (output out x))\n",
    "sxp_empty": "",
}


def assert_clear_failure(result, *, output=None, inputs=()):
    """One error line, a non-zero exit that is not an internal error or a signal, no output,
    inputs unchanged (`inputs`: (path, bytes) pairs)."""
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert result.returncode not in (0, 2), (result.returncode, result.stderr)
    assert result.returncode > 0, f"killed by signal {-result.returncode}: {result.stderr}"
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("saturate: error:"), lines[0]
    assert "internal error" not in lines[0]
    if output is not None:
        assert not pathlib.Path(output).exists(), f"{output} was written"
    for path, data in inputs:
        assert pathlib.Path(path).read_bytes() == data
    return lines[0]


@pytest.mark.parametrize("case", sorted(onnx_cases()))
@pytest.mark.parametrize("command", ["show", "optimize", "export"])
def test_bad_onnx_is_one_clear_error(saturate, tmp_path, case, command):
    data = onnx_cases()[case]
    source = tmp_path / f"{case}.onnx"
    source.write_bytes(data)
    output = tmp_path / "out.onnx"
    args = {"show": ["show", source],
            "optimize": ["optimize", source, "-o", output, "--cost", "analytic",
                         "--latency-runs", "0"],
            "export": ["export", source, "-o", output]}[command]
    assert_clear_failure(saturate(*args), output=output, inputs=[(source, data)])


@pytest.mark.parametrize("case", sorted(SXP_CASES))
@pytest.mark.parametrize("command", ["show", "optimize", "export"])
def test_bad_sxp_is_one_clear_error(saturate, tmp_path, case, command):
    source = tmp_path / f"{case}.sxp"
    source.write_text(SXP_CASES[case])
    data = source.read_bytes()
    output = tmp_path / ("out.onnx" if command == "export" else "out.sxp")
    args = {"show": ["show", source, "--sxp", output],
            "optimize": ["optimize", source, "-o", output],
            "export": ["export", source, "-o", output]}[command]
    assert_clear_failure(saturate(*args), output=output, inputs=[(source, data)])


GOOD_SXP = "(graph g\n  (node x (input :shape [2 3]))\n  (node y (relu x))\n  (output out y))\n"


def good_inputs(tmp_path):
    """A good .sxp and a good .onnx, with their bytes."""
    sxp = tmp_path / "good.sxp"
    sxp.write_text(GOOD_SXP)
    model = tmp_path / "good.onnx"
    onnx.save(relu_model(), model)
    return sxp, model


@pytest.mark.parametrize("kind", ["sxp", "onnx", "onnx_dot_slash", "onnx_symlink"])
def test_output_equal_to_the_input_is_refused(saturate, tmp_path, kind):
    sxp, model = good_inputs(tmp_path)
    source = sxp if kind == "sxp" else model
    data = source.read_bytes()
    target = source
    if kind == "onnx_dot_slash":
        target = pathlib.Path(os.path.relpath(source)).parent / "." / source.name
    if kind == "onnx_symlink":
        target = tmp_path / "link.onnx"
        target.symlink_to(source)
    for args in (["optimize", source, "-o", target, "--cost", "analytic", "--latency-runs", "0"],
                 ["optimize", source, "--json", target],
                 ["optimize", source, "--dot", target],
                 ["optimize", source, "--egraph-json", target],
                 ["show", source, "--sxp", target],
                 ["export", source, "-o", target]):
        line = assert_clear_failure(saturate(*args), inputs=[(source, data)])
        assert "refusing to overwrite the input" in line, line


def test_output_over_the_inputs_external_data_is_refused(saturate, tmp_path):
    _, model = good_inputs(tmp_path)
    data_file = tmp_path / "good.onnx.data"
    data_file.write_bytes(b"weights")
    line = assert_clear_failure(
        saturate("optimize", model, "--json", data_file, "--cost", "analytic"),
        inputs=[(data_file, b"weights"), (model, model.read_bytes())])
    assert "refusing to overwrite the input" in line


def save_matmul_with_external_data(path: pathlib.Path, location: str) -> None:
    """x @ W with W (32 x 64) kept in the external file `location` beside `path`."""
    weights = np.arange(2048, dtype=np.float32).reshape(32, 64)
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["x", "w"], ["y"])], "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 32])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 64])],
        [numpy_helper.from_array(weights, "w")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.save(model, str(path), save_as_external_data=True, location=location, size_threshold=0)


def test_outputs_onto_the_data_file_the_input_names_are_refused(saturate, tmp_path):
    """The input keeps its weights in weights.bin: no report, drawing or e-graph may replace
    it (compared as files: a symbolic link to it is it too)."""
    save_matmul_with_external_data(tmp_path / "m.onnx", "weights.bin")
    data = tmp_path / "weights.bin"
    before = data.read_bytes()
    link = tmp_path / "link.bin"
    link.symlink_to(data.name)
    for target in (data, link):
        for option in ("--json", "--dot", "--egraph-json"):
            line = assert_clear_failure(
                saturate("optimize", tmp_path / "m.onnx", option, target, "--cost", "analytic"),
                inputs=[(data, before)])
            assert "refusing to overwrite the input" in line and "weights.bin" in line


def test_external_data_through_a_link_that_leads_out_is_refused(saturate, tmp_path):
    """A data file that is a symbolic link out of the model's folder: ONNX's loader and ONNX
    Runtime refuse it, and so does Saturate (its bytes would be copied into the output)."""
    outside = tmp_path / "outside"
    outside.mkdir()
    folder = tmp_path / "model"
    folder.mkdir()
    save_matmul_with_external_data(folder / "m.onnx", "w.data")
    (folder / "w.data").rename(outside / "secret.data")
    (folder / "w.data").symlink_to(outside / "secret.data")
    line = assert_clear_failure(
        saturate("optimize", folder / "m.onnx", "-o", tmp_path / "out.onnx", "--cost",
                 "analytic"), output=tmp_path / "out.onnx")
    assert "symbolic link that leads outside the model's directory" in line
    # A link that stays inside the folder is read.
    (folder / "w.data").unlink()
    (outside / "secret.data").rename(folder / "real.data")
    (folder / "w.data").symlink_to("real.data")
    result = saturate("optimize", folder / "m.onnx", "-o", tmp_path / "out.onnx", "--cost",
                      "analytic")
    assert result.returncode == 0, result.stderr


def test_names_from_the_model_cannot_forge_lines_or_escape_sequences(saturate, tmp_path):
    forged = "g\nsaturate: ok\x1b[2K"
    model = relu_model()
    model.graph.name = forged
    path = tmp_path / "forged.onnx"
    path.write_bytes(model.SerializeToString())
    result = saturate("optimize", path, "--cost", "analytic", "--latency-runs", "0")
    assert result.returncode == 0, result.stderr
    assert "\x1b" not in result.stderr + result.stdout
    assert not any(line.startswith("saturate: ok") for line in result.stderr.splitlines())
    assert "g\\x0asaturate: ok\\x1b[2K" in result.stderr
    # An error message quoting a name is one line too.
    broken = graph_model([helper.make_node("Relu", ["x\nsaturate: ok"], ["y"])])
    path.write_bytes(broken.SerializeToString())
    line = assert_clear_failure(saturate("optimize", path, "--cost", "analytic"))
    assert "\\x0a" in line


def test_pm_apply_output_equal_to_the_input_is_refused(saturate, tmp_path):
    sxp, _ = good_inputs(tmp_path)
    patterns = tmp_path / "rules.pmb"
    patterns.write_bytes(b"PMB not really")
    data = sxp.read_bytes()
    for target in (sxp, patterns):
        line = assert_clear_failure(saturate("pm", "apply", patterns, sxp, "-o", target),
                                    inputs=[(sxp, data), (patterns, b"PMB not really")])
        assert "refusing to overwrite the input" in line


def test_pm_compile_output_equal_to_the_source_is_refused(saturate, tmp_path):
    source = tmp_path / "rules.py"
    source.write_text("# patterns\n")
    line = assert_clear_failure(saturate("pm", "compile", source, "-o", source),
                                inputs=[(source, b"# patterns\n")])
    assert "refusing to overwrite the input" in line


@pytest.mark.parametrize("command", ["optimize", "export", "show"])
def test_output_in_a_missing_folder_is_refused_up_front(saturate, tmp_path, command):
    sxp, model = good_inputs(tmp_path)
    output = tmp_path / "missing-dir" / "out.onnx"
    args = {"optimize": ["optimize", model, "-o", output, "--cost", "analytic"],
            "export": ["export", model, "-o", output],
            "show": ["show", sxp, "--sxp", output]}[command]
    result = saturate(*args)
    line = assert_clear_failure(result, output=output)
    assert "missing-dir" in line and "does not exist" in line
    assert "optimizing" not in result.stderr  # failed before any work


@pytest.mark.parametrize("command", ["show", "optimize", "export", "run"])
def test_a_directory_as_input_is_one_clear_error(saturate, tmp_path, command):
    for folder in (tmp_path / "model.onnx", tmp_path / "graph.sxp"):
        folder.mkdir()
        args = [command, folder] + (["-o", tmp_path / "out.onnx"] if command == "export" else [])
        line = assert_clear_failure(saturate(*args), output=tmp_path / "out.onnx")
        assert "is a directory" in line, line


@pytest.mark.parametrize("name", ["missing.onnx", "missing.sxp"])
def test_a_missing_input_is_one_clear_error(saturate, tmp_path, name):
    line = assert_clear_failure(saturate("show", tmp_path / name))
    assert name in line


@pytest.mark.parametrize("name", ["empty.onnx", "empty.sxp"])
def test_an_empty_input_is_one_clear_error(saturate, tmp_path, name):
    (tmp_path / name).write_bytes(b"")
    line = assert_clear_failure(saturate("show", tmp_path / name))
    assert "empty" in line


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads files whatever their mode")
def test_an_unreadable_input_is_one_clear_error(saturate, tmp_path):
    sxp, _ = good_inputs(tmp_path)
    sxp.chmod(0)
    line = assert_clear_failure(saturate("show", sxp))
    assert "cannot read" in line


@pytest.mark.parametrize("args", [
    ["optimize", "nasrnn", "--reduced", "--node-limit", "-5"],
    ["optimize", "nasrnn", "--reduced", "--node-limit", "0"],
    ["optimize", "nasrnn", "--reduced", "--iter-limit", "-1"],
    ["optimize", "nasrnn", "--reduced", "--k-multi", "-1"],
    ["optimize", "nasrnn", "--reduced", "--time-limit", "0"],
    ["optimize", "nasrnn", "--reduced", "--time-limit", "-3"],
    ["optimize", "nasrnn", "--reduced", "--time-limit", "nan"],
    ["optimize", "nasrnn", "--reduced", "--ilp-time-limit", "nan"],
    ["optimize", "nasrnn", "--reduced", "--latency-runs", "-1"],
    ["optimize", "nasrnn", "--reduced", "--threads", "-2"],
    ["optimize", "nasrnn", "--reduced", "--search", "taso", "--budget", "-1"],
    ["bench", "nasrnn", "--reduced", "--runs", "-1"],
    ["bench", "nasrnn", "--reduced", "--warmup", "-1"],
    ["bench", "nasrnn", "--reduced", "--optimize", "--node-limit", "-5"],
    ["bench", "nasrnn", "--reduced", "--optimize", "--time-limit", "nan"],
    ["run", "nasrnn", "--reduced", "--seed", "-1"],
    ["export", "nasrnn", "--reduced", "-o", "x.onnx", "--seed", "-1"],
    ["export", "nasrnn", "--reduced", "-o", "x.onnx", "--weight-scale", "nan"],
    ["extract", "e.json", "--time-limit", "-1"],
    ["pm", "apply", "p.pmb", "nasrnn", "--max-passes", "-1"],
])
def test_negative_counts_and_bad_time_limits_are_rejected(saturate, tmp_path, args):
    result = saturate(*args)
    line = assert_clear_failure(result)
    assert args[-2] in line, line
    assert "optimizing" not in result.stderr


def test_a_rule_name_that_is_not_utf8_is_rejected_when_loaded(saturate, tmp_path):
    rules = tmp_path / "bad.rules"
    rules.write_bytes(b"caf\xe9: (relu (relu ?x)) => (relu ?x)\n")
    sxp, _ = good_inputs(tmp_path)
    report = tmp_path / "report.json"
    result = saturate("optimize", sxp, "--rules", rules, "--json", report)
    line = assert_clear_failure(result, output=report)
    assert "bad.rules:1" in line and "UTF-8" in line
    assert "optimizing" not in result.stderr


def test_a_pypm_rule_name_that_is_not_utf8_is_rejected_when_loaded(saturate, tmp_path):
    source = pathlib.Path(__file__).resolve().parents[2] / "examples" / "pypm" / "unary_chain.py"
    compiled = tmp_path / "good.pmb"
    result = saturate("pm", "compile", source, "-o", compiled)
    assert result.returncode == 0, result.stderr
    data = compiled.read_bytes()
    assert b"collapse_idempotent_chain" in data
    patched = tmp_path / "bad.pmb"
    patched.write_bytes(data.replace(b"collapse_idempotent_chain", b"c\xe9llapse_idempotent_chain"))
    sxp, _ = good_inputs(tmp_path)
    report = tmp_path / "report.json"
    for args in (["pm", "apply", patched, sxp, "--json", report],
                 ["optimize", sxp, "--pypm", patched, "--json", report]):
        result = saturate(*args)
        line = assert_clear_failure(result, output=report)
        assert "UTF-8" in line and "bad.pmb" in line, line


def relu_chain_sxp(length):
    lines = ["(graph chain", "  (node v0 (input :shape [4 8]))"]
    lines += [f"  (node v{i} (relu v{i - 1}))" for i in range(1, length + 1)]
    lines.append(f"  (output out v{length}))")
    return "\n".join(lines) + "\n"


def relu_chain_onnx(length):
    nodes = [helper.make_node("Relu", [f"v{i - 1}"], [f"v{i}" if i < length else "y"])
             for i in range(1, length + 1)]
    graph = helper.make_graph(nodes, "chain",
                              [helper.make_tensor_value_info("v0", TensorProto.FLOAT, [4, 8])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4, 8])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)])
    model.ir_version = 8
    return model


@pytest.mark.parametrize("kind", ["sxp", "onnx"])
def test_a_10000_operator_relu_chain_optimizes(saturate, tmp_path, kind):
    """No timing assertion: the 300 s subprocess timeout only guards against a hang."""
    source = tmp_path / f"chain.{kind}"
    if kind == "sxp":
        source.write_text(relu_chain_sxp(10_000))
    else:
        onnx.save(relu_chain_onnx(10_000), source)
    output = tmp_path / f"out.{kind}"
    result = saturate("optimize", source, "-o", output, "--cost", "analytic", "--latency-runs",
                      "0", timeout=300)
    assert result.returncode == 0, result.stderr
    assert output.exists()


def test_the_catalogue_builders_make_valid_models():
    """A sanity check of the catalogue's own builders: the good model is valid ONNX."""
    onnx.checker.check_model(relu_model())
    onnx.checker.check_model(graph_model([helper.make_node("Relu", ["x"], ["y"])],
                                         [numpy_helper.from_array(np.ones(1, np.float32), "u")]))


def test_the_ir_version_current_onnx_writes_is_read(saturate, tmp_path):
    """onnx 1.23's make_model writes IR version 14 whatever the opset: refusing past 10 (as a
    first version of the IR-version check did) rejected every model a user saves today."""
    source = tmp_path / "ir14.onnx"
    onnx.save(relu_model(ir_version=14), source)
    result = saturate("show", source)
    assert result.returncode == 0, result.stderr
