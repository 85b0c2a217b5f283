"""The saturate command as a user meets it: help, listing, summaries, runs and bad input."""
import json
import shutil
import subprocess

import pytest

PAPER_MODELS = ["bert", "nasrnn", "nasnet_a", "resnext50", "inception_v3", "squeezenet", "vgg19"]


def test_help_lists_the_commands(saturate):
    result = saturate("--help")
    assert result.returncode == 0
    for command in ("models", "show", "run"):
        assert command in result.stdout


def test_models_json_lists_every_model_with_op_counts(saturate):
    result = saturate("models", "--json")
    assert result.returncode == 0, result.stderr
    models = json.loads(result.stdout)
    names = [m["name"] for m in models]
    assert len(models) == 11
    assert set(PAPER_MODELS + ["resnet50"]) <= set(names)
    for model in models:
        assert model["ops"] > 0
        if model["reference_ops"]:
            assert abs(model["ops"] - model["reference_ops"]) <= 0.15 * model["reference_ops"], model


def test_models_table_is_readable(saturate):
    result = saturate("models")
    assert result.returncode == 0
    lines = result.stdout.splitlines()
    assert lines[0].split()[:2] == ["model", "ops"]
    assert len(lines) == 2 + 11


def test_show_prints_ops_cost_and_io(saturate):
    result = saturate("show", "squeezenet")
    assert result.returncode == 0, result.stderr
    assert "conv2d" in result.stdout
    assert "input" in result.stdout and "output" in result.stdout
    assert "cost (analytic model)" in result.stdout


def test_show_json_matches_models_listing(saturate):
    shown = json.loads(saturate("show", "resnet50", "--json").stdout)
    listed = {m["name"]: m for m in json.loads(saturate("models", "--json").stdout)}
    assert shown["ops"] == listed["resnet50"]["ops"]
    assert shown["op_histogram"] == listed["resnet50"]["op_histogram"]
    assert shown["cost_ms"] > 0


def test_show_writes_dot_that_graphviz_accepts(saturate, tmp_path):
    dot_path = tmp_path / "vgg.dot"
    result = saturate("show", "vgg19", "--dot", dot_path)
    assert result.returncode == 0, result.stderr
    text = dot_path.read_text()
    assert text.startswith("digraph")
    if shutil.which("dot") is None:
        pytest.skip("graphviz 'dot' is not installed (scripts/setup.sh installs it)")
    rendered = subprocess.run(["dot", "-Tsvg", str(dot_path)], capture_output=True, text=True)
    assert rendered.returncode == 0, rendered.stderr
    assert "<svg" in rendered.stdout


def test_text_form_round_trips_through_the_cli(saturate, tmp_path):
    path = tmp_path / "squeeze.sxp"
    assert saturate("show", "squeezenet", "--reduced", "--sxp", path).returncode == 0
    from_model = json.loads(saturate("run", "squeezenet", "--reduced", "--json").stdout)
    from_file = json.loads(saturate("run", path, "--json").stdout)
    assert from_file["outputs"] == from_model["outputs"]
    again = tmp_path / "again.sxp"
    assert saturate("show", path, "--sxp", again).returncode == 0
    assert again.read_text() == path.read_text()


@pytest.mark.parametrize("model", ["nasrnn", "mobilenet_v2", "transformer"])
def test_run_is_deterministic_per_seed(saturate, model):
    first = json.loads(saturate("run", model, "--reduced", "--json", "--seed", 7).stdout)
    second = json.loads(saturate("run", model, "--reduced", "--json", "--seed", 7).stdout)
    other = json.loads(saturate("run", model, "--reduced", "--json", "--seed", 8).stdout)
    assert first["outputs"] == second["outputs"]
    assert first["finite"]
    assert [o["checksum"] for o in first["outputs"]] != [o["checksum"] for o in other["outputs"]]


def test_run_warns_when_outputs_overflow(saturate):
    # TASO's BERT has no normalization: random inputs overflow, and the user is told so.
    result = saturate("run", "bert", "--reduced", "--json")
    assert result.returncode == 0
    assert json.loads(result.stdout)["finite"] is False
    assert "non-finite" in result.stderr


def test_run_reports_progress_when_asked(saturate):
    result = saturate("run", "squeezenet", "--reduced", "--progress")
    assert result.returncode == 0
    ops = json.loads(saturate("show", "squeezenet", "--json").stdout)["ops"]
    assert f"running: {ops}/{ops} operators" in result.stderr


def test_run_table_names_outputs_and_shapes(saturate):
    result = saturate("run", "nasrnn")
    assert result.returncode == 0, result.stderr
    assert "checksum" in result.stdout
    assert "[1 512]" in result.stdout


def test_f64_and_f32_agree_closely(saturate):
    f32 = json.loads(saturate("run", "squeezenet", "--reduced", "--json").stdout)
    f64 = json.loads(
        saturate("run", "squeezenet", "--reduced", "--json", "--precision", "f64").stdout
    )
    for a, b in zip(f32["outputs"], f64["outputs"]):
        assert a["checksum"] == pytest.approx(b["checksum"], rel=1e-3, abs=1e-3)


def one_error_line(result):
    assert result.returncode != 0
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, result.stderr
    return lines[0]


def test_unknown_model_is_one_clear_error(saturate):
    line = one_error_line(saturate("show", "alexnet"))
    assert "alexnet" in line and "bert" in line


def test_missing_file_is_one_clear_error(saturate, tmp_path):
    line = one_error_line(saturate("run", tmp_path / "nothing.sxp"))
    assert "nothing.sxp" in line


def test_malformed_file_reports_line_and_column(saturate, tmp_path):
    path = tmp_path / "bad.sxp"
    original = "(graph g\n  (node x (input :shape [2 3]))\n  (node y (matmul x x)))\n"
    path.write_text(original)
    line = one_error_line(saturate("show", path))
    assert "bad.sxp:3:3" in line and "matmul" in line
    assert path.read_text() == original


def test_bad_arguments_are_one_error_line(saturate):
    assert "subcommand" in one_error_line(saturate())
    assert "f16" in one_error_line(saturate("run", "nasrnn", "--precision", "f16"))
    assert "MODEL" in one_error_line(saturate("show"))
    assert "--no-such-flag" in one_error_line(saturate("show", "nasrnn", "--no-such-flag"))


def test_unwritable_output_is_an_error(saturate, tmp_path):
    line = one_error_line(saturate("show", "nasrnn", "--dot", tmp_path / "missing-dir" / "g.dot"))
    assert "g.dot" in line


def test_ops_json_lists_every_operator_with_its_signature(saturate):
    result = saturate("ops", "--json")
    assert result.returncode == 0, result.stderr
    ops = {op["name"]: op for op in json.loads(result.stdout)}
    assert {"matmul", "conv2d", "attention", "layernorm"} <= set(ops)
    conv = ops["conv2d"]
    assert (conv["min_inputs"], conv["max_inputs"]) == (2, 2)
    assert {a["name"] for a in conv["attributes"]} >= {"stride_h", "stride_w", "padding", "activation"}
    assert ops["concat"]["max_inputs"] == -1  # variadic
    assert ops["input"]["leaf"] and not ops["relu"]["leaf"]
