"""The HiGHS helper behind ``--ilp-solver highs`` (python/saturate/milp_highs.py), spoken to as
the C++ extractor speaks to it, and the solver choice as the CLI reports it."""
import json
import os
import pathlib
import subprocess
import sys

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
pytest.importorskip("highspy", reason="HiGHS (pip install highspy) is not installed")

# min x0 + 2 x1 + 3 x2 subject to x0 + x1 >= 1, x1 + x2 >= 1, x0 + x2 >= 1, binary: any two
# variables cover the rows, the cheapest pair is x0, x1 (3); the LP takes halves (3 as well,
# but with values 0.5).
COVER = {
    "columns": {"lower": [0, 0, 0], "upper": [1, 1, 1], "objective": [1, 2, 3],
                "integer": [True, True, True]},
    "rows": {"lower": [1, 1, 1], "upper": [1e30, 1e30, 1e30], "starts": [0, 2, 4, 6],
             "index": [0, 1, 1, 2, 0, 2], "value": [1, 1, 1, 1, 1, 1]},
    "time_limit": 10, "threads": 1, "relative_gap": 0, "warm_start": None, "log": False,
}


def converse(*requests):
    environment = dict(os.environ, PYTHONPATH=str(REPO / "python"))
    result = subprocess.run([sys.executable, "-m", "saturate.milp_highs"],
                            input="".join(line + "\n" for line in requests), capture_output=True,
                            text=True, timeout=120, env=environment)
    assert result.returncode == 0, result.stderr
    return [json.loads(line) for line in result.stdout.splitlines()]


def test_helper_solves_and_survives_bad_requests():
    infeasible = dict(COVER, rows=dict(COVER["rows"], lower=[3, 1, 1]))  # x0 + x1 >= 3: no way
    answers = converse(json.dumps({"hello": True}), json.dumps(COVER), "not json",
                       json.dumps({"columns": {}}),
                       json.dumps(dict(COVER, warm_start=[1, 1, 1])), json.dumps(infeasible))
    assert len(answers) == 6  # one answer per request, and HiGHS's banner is not among them
    assert answers[0]["highs"]
    solved = answers[1]
    assert solved["optimal"] and solved["has_solution"]
    assert solved["objective"] == pytest.approx(3)
    assert [round(v) for v in solved["values"]] == [1, 1, 0]
    assert "error" in answers[2] and "error" in answers[3]
    assert answers[4]["objective"] == pytest.approx(3)  # from a worse start
    assert answers[5]["infeasible"] and not answers[5]["has_solution"]


@pytest.mark.parametrize("solver", ["cbc", "highs", "auto"])
def test_cli_reports_the_milp_solver(saturate, tmp_path, solver):
    report_path = tmp_path / "report.json"
    # MobileNet-v2 keeps parts that the LP and branching in process leave to the MILP solver.
    result = saturate("optimize", "mobilenet_v2", "--reduced", "--extract", "ilp", "--ilp-solver",
                      solver, "--ilp-time-limit", "60", "--json", report_path)
    assert result.returncode == 0, result.stderr
    report = json.loads(report_path.read_text())
    assert report["ilp_optimal"] is True
    assert report["ilp_solver"].startswith("cbc" if solver == "auto" else solver)


def test_cli_without_highspy_names_what_is_missing(saturate):
    result = saturate("optimize", "nasnet_a", "--reduced", "--ilp-solver", "highs",
                      env={"PYTHON": "/nonexistent/python3"})
    assert result.returncode != 0
    assert "highspy" in result.stderr
