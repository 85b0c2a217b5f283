"""Solves the ILP extractor's MILPs with HiGHS (``highspy`` from PyPI): ``--ilp-solver highs``.

Debian ships no HiGHS library, and on the tensor e-graphs HiGHS proves optimality where CBC
2.10.8 stalls on a weak bound (docs/EXTRACTION.md), so the C++ extractor (extract/highs_solver.cpp)
keeps one ``python3 -m saturate.milp_highs`` process per extraction and speaks JSON to it, one
request per line of standard input and one answer per line of standard output:

- ``{"hello": true}`` answers ``{"highs": "<version>"}``.
- A problem answers a solution::

    {"columns": {"lower": [...], "upper": [...], "objective": [...], "integer": [true, ...]},
     "rows": {"lower": [...], "upper": [...], "starts": [...], "index": [...], "value": [...]},
     "time_limit": 60, "threads": 1, "relative_gap": 0, "warm_start": [...] | null, "log": false}

    {"status": "optimal", "has_solution": true, "values": [...], "objective": 4.06,
     "bound": 4.06, "optimal": true, "infeasible": false, "stopped_on_limit": false}

  Rows are compressed sparse rows (``starts`` has one entry per row plus the end). Infinite
  bounds are written as +-1e30. A failed request answers ``{"error": "..."}``; the helper goes on.
"""
from __future__ import annotations

import math
import sys

INFINITY = 1e30


def _bound(value: float) -> float:
    return math.inf if value >= INFINITY else -math.inf if value <= -INFINITY else value


def solve(request: dict) -> dict:
    import highspy
    import numpy as np

    columns, rows = request["columns"], request["rows"]
    lp = highspy.HighsLp()
    lp.num_col_ = len(columns["objective"])
    lp.num_row_ = len(rows["lower"])
    lp.col_cost_ = np.asarray(columns["objective"], dtype=np.float64)
    lp.col_lower_ = np.asarray([_bound(v) for v in columns["lower"]], dtype=np.float64)
    lp.col_upper_ = np.asarray([_bound(v) for v in columns["upper"]], dtype=np.float64)
    lp.row_lower_ = np.asarray([_bound(v) for v in rows["lower"]], dtype=np.float64)
    lp.row_upper_ = np.asarray([_bound(v) for v in rows["upper"]], dtype=np.float64)
    lp.a_matrix_.format_ = highspy.MatrixFormat.kRowwise
    lp.a_matrix_.num_col_ = lp.num_col_
    lp.a_matrix_.num_row_ = lp.num_row_
    lp.a_matrix_.start_ = np.asarray(rows["starts"], dtype=np.int32)
    lp.a_matrix_.index_ = np.asarray(rows["index"], dtype=np.int32)
    lp.a_matrix_.value_ = np.asarray(rows["value"], dtype=np.float64)
    lp.integrality_ = [highspy.HighsVarType.kInteger if integer else highspy.HighsVarType.kContinuous
                       for integer in columns["integer"]]

    highs = highspy.Highs()
    highs.setOptionValue("output_flag", bool(request.get("log", False)))
    highs.setOptionValue("time_limit", max(float(request.get("time_limit", 60)), 0.01))
    highs.setOptionValue("threads", max(int(request.get("threads", 1)), 1))
    highs.setOptionValue("mip_rel_gap", float(request.get("relative_gap", 0)))
    highs.setOptionValue("random_seed", 0)
    status = highs.passModel(lp)
    if status == highspy.HighsStatus.kError:
        raise ValueError("HiGHS refused the model")
    warm_start = request.get("warm_start")
    if warm_start:
        solution = highspy.HighsSolution()
        solution.col_value = [float(v) for v in warm_start]
        solution.value_valid = True
        highs.setSolution(solution)
    highs.run()

    model_status = highs.getModelStatus()
    info = highs.getInfo()
    has_solution = info.primal_solution_status == 2  # kSolutionStatusFeasible (highspy has no name)
    names = {
        highspy.HighsModelStatus.kOptimal: "optimal",
        highspy.HighsModelStatus.kInfeasible: "infeasible",
        highspy.HighsModelStatus.kTimeLimit: "time limit",
        highspy.HighsModelStatus.kIterationLimit: "iteration limit",
        highspy.HighsModelStatus.kSolutionLimit: "solution limit",
        highspy.HighsModelStatus.kInterrupt: "interrupted",
    }
    reply = {
        "status": names.get(model_status, "stopped (" + highs.modelStatusToString(model_status) + ")"),
        "has_solution": has_solution,
        "values": list(highs.getSolution().col_value) if has_solution else [],
        "objective": info.objective_function_value if has_solution else None,
        "bound": info.mip_dual_bound if math.isfinite(info.mip_dual_bound) else None,
        "optimal": model_status == highspy.HighsModelStatus.kOptimal,
        "infeasible": model_status == highspy.HighsModelStatus.kInfeasible,
        "stopped_on_limit": model_status in (highspy.HighsModelStatus.kTimeLimit,
                                             highspy.HighsModelStatus.kIterationLimit,
                                             highspy.HighsModelStatus.kSolutionLimit),
    }
    return reply


def answer(request: dict) -> dict:
    if request.get("hello"):
        import highspy

        version = getattr(highspy.Highs(), "version", None)
        return {"highs": version() if callable(version) else "unknown"}
    return solve(request)


def describe_failure(error: Exception) -> str:
    if isinstance(error, ImportError):
        return f"HiGHS is not installed ({error}); pip install highspy"
    return f"HiGHS failed: {error}"


def main() -> int:
    from saturate.line_server import serve

    return serve(answer, describe_failure)


if __name__ == "__main__":
    from saturate import child_guard

    child_guard.apply_from_environment()
    sys.exit(main())
