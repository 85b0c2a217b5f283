"""`optimize --time-limit T` bounds the whole command, import to write: whichever phase the
deadline stops (import, the search and its cost measurement, the checks in ONNX Runtime), the run
ends within T + max(10 %, 2 s), writes the original model and says where it stopped. A helper
that hangs is simulated with hanging_ort_helper.py (a real ONNX Runtime helper that never answers
one kind of request)."""
import json
import os
import pathlib
import stat
import sys
import time

import pytest

HERE = pathlib.Path(__file__).resolve().parent
FIXTURE = HERE.parent / "fixtures" / "exporters" / "bert_eager.torchscript.onnx"


def allowed_seconds(limit: float) -> float:
    return limit + max(0.1 * limit, 2.0)


def python_that_hangs_on(tmp_path, key: str) -> dict:
    """Environment entries that make saturate's ONNX Runtime helper hang on requests with `key`."""
    wrapper = tmp_path / "python"
    wrapper.write_text(
        "#!/bin/sh\n"
        'if [ "$1 $2" = "-m saturate.ort_helper" ]; then shift 2; '
        f'exec "{sys.executable}" "{HERE / "hanging_ort_helper.py"}" "$@"; fi\n'
        f'exec "{sys.executable}" "$@"\n')
    wrapper.chmod(wrapper.stat().st_mode | stat.S_IXUSR)
    return {"SATURATE_PYTHON": str(wrapper), "SATURATE_TEST_HANG_ON": key}


def optimize_within(saturate, tmp_path, limit, *extra, env=None):
    out, report = tmp_path / "out.onnx", tmp_path / "report.json"
    started = time.monotonic()
    result = saturate("optimize", FIXTURE, "-o", out, "--json", report, "--time-limit", limit,
                      *extra, env=env, timeout=300)
    elapsed = time.monotonic() - started
    assert result.returncode == 0, result.stderr
    assert elapsed <= allowed_seconds(limit), (elapsed, result.stderr)
    return out, json.loads(report.read_text()), result


@pytest.mark.parametrize("key,extra,phase", [
    # Verification never answers (the analytic model measures nothing, so the search is quick).
    ("check", ["--cost", "analytic", "--verify"], "checking in ONNX Runtime"),
    # Operator timing never answers: the deadline stops the search.
    ("models", ["--verify"], "searching"),
])
def test_a_helper_that_hangs_is_stopped_at_the_deadline(saturate, tmp_path, key, extra, phase):
    out, report, result = optimize_within(saturate, tmp_path, 8, *extra,
                                          env=python_that_hangs_on(tmp_path, key))
    assert report["time_limit"] == 8
    assert report["time_limit_reached_while"].startswith(phase), report["time_limit_reached_while"]
    assert report["kept_original"] is True
    # The original, byte for byte: nothing unverified is written.
    assert out.read_bytes() == FIXTURE.read_bytes()
    assert "time limit" in result.stdout and "the original model is kept" in result.stdout


def test_a_limit_shorter_than_the_import_keeps_the_original(saturate, tmp_path):
    out, report, result = optimize_within(saturate, tmp_path, 0.001, "--verify")
    assert report["time_limit_reached_while"] == "importing the model"
    assert report["original_cost"] is None and report["speedup_percent"] is None
    assert out.read_bytes() == FIXTURE.read_bytes()


def test_a_limit_that_suffices_changes_nothing(saturate, tmp_path):
    out, report, _ = optimize_within(saturate, tmp_path, 600, "--verify", "--cost", "analytic")
    assert report["time_limit_reached_while"] is None
    assert report["verified"] is True
    assert report["fused_operators"], report


def test_exploration_and_extraction_end_by_the_deadline(saturate, tmp_path):
    # Without budgets and with multi-pattern rules in two iterations NasNet-A grows past 50,000
    # e-nodes and keeps growing; the ILP on such an e-graph takes longer still.
    out = tmp_path / "out.sxp"
    started = time.monotonic()
    result = saturate("optimize", "nasnet_a", "--no-budget", "--k-multi", "2", "--node-limit",
                      "10000000", "--cost", "analytic", "--time-limit", "4", "-o", out, "--json",
                      tmp_path / "r.json", timeout=300)
    elapsed = time.monotonic() - started
    assert result.returncode == 0, result.stderr
    assert elapsed <= allowed_seconds(4), (elapsed, result.stderr)
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["growth_stopped_by"] == "time limit", report["growth_stopped_by"]
    assert out.exists()
