"""The CLI and the Python API are two layers over one pipeline (src/driver): the same input and
options give the same report, and an ONNX run starts one Python helper, exports once and sends
the models to the helper as bytes."""
import json
import os
import pathlib
import stat

import pytest

import saturate as api

REPO = pathlib.Path(__file__).resolve().parents[2]
FIXTURE = REPO / "tests" / "fixtures" / "exporters" / "distilbert.torchscript.onnx"

if not api.HAVE_EXTENSION:  # a sanitizer-only build has no extension (see CMakeLists.txt)
    pytest.skip(f"the C++ extension is not built: {api.EXTENSION_ERROR}",
                allow_module_level=True)

# Fields that measure time (or where the time went) differ run to run.
TIMED = {"explore_seconds", "extract_seconds", "cycle_filter_seconds", "cost_measure_seconds",
         "exploration", "cost_load_ratio", "cost_measured_busy"}


def comparable(report: dict) -> dict:
    kept = {key: value for key, value in report.items() if key not in TIMED}
    # The extractor's counts must agree; its timings (e.g. "solve seconds") vary.
    kept["extraction_statistics"] = {key: value for key, value in
                                     report["extraction_statistics"].items()
                                     if not key.endswith("seconds")}
    return kept


def counting_python(tmp_path: pathlib.Path) -> tuple[pathlib.Path, pathlib.Path]:
    """An interpreter that logs one line per start, then runs the real one."""
    log = tmp_path / "python-starts.log"
    wrapper = tmp_path / "python"
    wrapper.write_text(f'#!/bin/sh\necho "$@" >> "{log}"\nexec python3 "$@"\n')
    wrapper.chmod(wrapper.stat().st_mode | stat.S_IEXEC)
    return wrapper, log


@pytest.mark.parametrize("cost", ["analytic", "onnxruntime"])
def test_cli_and_python_reports_are_equal_field_by_field(saturate, tmp_path, cost):
    cache = tmp_path / "costs.sqlite"
    options = ["--cost", cost, "--cost-cache", cache, "--latency-runs", "0", "--verify"]
    # A first run fills the cost cache (even while the tests beside it keep the machine busy):
    # both compared runs then read the same costs from it.
    assert saturate("optimize", FIXTURE, *options, "--cache-busy-costs").returncode == 0
    result = saturate("optimize", FIXTURE, *options, "--json", tmp_path / "cli.json")
    assert result.returncode == 0, result.stderr
    cli = json.loads((tmp_path / "cli.json").read_text())
    _, report = api.optimize(str(FIXTURE), cost=cost, cost_cache=str(cache), latency_runs=0,
                             verify=True)
    python = json.loads(json.dumps(report))
    assert comparable(cli) == comparable(python)
    assert cli["verified"] is True and cli["cost_model"] == cost
    if cost == "analytic":  # measured costs decide by timings, which vary from run to run
        assert cli["fused_operators"] == {"bias_gelu": 2, "qkv_attention": 2,
                                          "skip_layer_norm": 5}


def test_default_onnx_run_starts_one_python_process_and_exports_once(saturate, tmp_path):
    python, log = counting_python(tmp_path)
    out = tmp_path / "out.onnx"
    # Models reach the helper as bytes, so the run needs no temporary directory: TMPDIR points
    # nowhere, and writing a one-operator model or the optimized one there would fail.
    env = {"SATURATE_PYTHON": str(python), "TMPDIR": str(tmp_path / "no-such-directory")}
    result = saturate("optimize", FIXTURE, "-o", out, "--verify", "--json", tmp_path / "r.json",
                      "--cost-cache", tmp_path / "costs.sqlite", env=env)
    assert result.returncode == 0, result.stderr
    starts = log.read_text().splitlines()
    # Operator timing, the latency check and verification all went to one helper.
    assert starts == ["-m saturate.ort_helper --serve"]
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["cost_model"] == "onnxruntime" and report["latency_check"] is not None
    assert report["verified"] is True
    assert report["onnx_exports"] == 1
    if report["kept_original"]:
        assert out.read_bytes() == FIXTURE.read_bytes()


def test_python_api_rejects_unknown_options():
    with pytest.raises(TypeError, match="no_such_option"):
        api.optimize(str(FIXTURE), no_such_option=1)
    with pytest.raises(TypeError, match="node_limit"):
        api.optimize(str(FIXTURE), node_limit="many")
