#!/usr/bin/env python3
"""Reproduces the TENSAT paper's evaluation (Table 1, Figures 4-6, Tables 3-5) with Saturate.

    python3 bench/paper.py                 # full run: docs/RESULTS.md, docs/results/*.png,
                                           #           bench/results/paper.json
    python3 bench/paper.py --quick         # reduced models, 1 run, small budgets (< 3 min)
    python3 bench/paper.py --quick --out-dir /tmp/paper   # everything under /tmp/paper

Every measurement is one `saturate optimize` call (subprocess, with a timeout) writing a JSON
report. A configuration (model, settings) is run --runs times; costs are deterministic, so they
are reported once, and timings as the median and the min-max over the runs. Configurations shared
between tables (e.g. Table 1's Saturate run is Table 3's ILP row) are run once and reused. An ILP
run that stops at its time limit is not repeated (its time is the limit by construction), nor is
a run slower than --slow-seconds, and nothing is repeated after --soft-deadline-minutes.

Verification: the first run of every configuration writes its optimized graph (-o). After the
measurements, every distinct graph is compared with its original by the check `optimize
--verify` makes (runtime::compare_graphs through the Python extension, relative error <= 1e-6),
--verify-jobs at a time; configurations with the same graph share the verdict. The reference
interpreter needs up to a minute per full-size graph, so checking once per configuration would
not fit the 30-minute budget. --verify-mode cli passes --verify to every configuration instead.

Exit status: 0 when every optimized graph verified, 1 when a graph failed verification or a run
failed (crash, timeout), 2 on a usage error.
"""
import argparse
import datetime
import json
import os
import pathlib
import subprocess
import sys
import tempfile

REPO = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

# One module per part, beside this script: the paper's numbers (published), settings,
# runner, plan (what runs for which model) and report.
from paper_plan import measure  # noqa: E402 (bench/ on the path)
from paper_report import render  # noqa: E402
from paper_runner import Runner, extension_available, machine, verify_graph_main  # noqa: E402
from paper_settings import settings_for  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true",
                        help="reduced models, 1 run, budget 20, ILP limit 10 s, fewer sweeps")
    parser.add_argument("--runs", type=int, help="timing runs per configuration (default 5)")
    parser.add_argument("--sweep-runs", type=int, help="timing runs in the sweeps, Fig. 6 and "
                        "Tables 4-5 (default min(runs, 3))")
    parser.add_argument("--models", default="", help="comma-separated subset")
    parser.add_argument("--budget", type=int, help="TASO budget (default 100, quick 20)")
    parser.add_argument("--ilp-time-limit", type=float,
                        help="ILP limit for Table 1/Table 3 (default 60 s, quick 10 s)")
    parser.add_argument("--sweep-ilp-time-limit", type=float,
                        help="ILP limit for Fig. 6 and Table 4 (default 15 s, quick 5 s)")
    parser.add_argument("--job-timeout", type=float, help="seconds per CLI call on top of 3x its "
                        "ILP limit (default 600, quick 60)")
    parser.add_argument("--slow-seconds", type=float, help="a configuration whose run takes "
                        "longer is not repeated (default 15)")
    parser.add_argument("--soft-deadline-minutes", type=float, help="after this, configurations "
                        "are no longer repeated (default 20, quick 1.5)")
    parser.add_argument("--verify-mode", choices=("dedupe", "cli"), default="dedupe",
                        help="dedupe: check each distinct optimized graph once, after the "
                        "measurements, in parallel (needs the Python extension; falls back to "
                        "cli); cli: --verify on the first run of every configuration")
    parser.add_argument("--verify-jobs", type=int, default=2,
                        help="parallel verifications in dedupe mode (default 2)")
    parser.add_argument("--binary", default=str(REPO / "build" / "bin" / "saturate"))
    parser.add_argument("--out-dir", help="write RESULTS.md, the PNGs and paper.json here "
                        "(default: docs/RESULTS.md, docs/results/, bench/results/paper.json; "
                        "quick: build/paper-quick/ and bench/results/paper_quick.json)")
    parser.add_argument("--json", help="raw results path (overrides the default)")
    parser.add_argument("--quick-json", default=str(REPO / "bench" / "results" /
                                                    "paper_quick.json"),
                        help="a quick run's raw results, quoted in the full report's targets")
    parser.add_argument("--no-plots", action="store_true")
    parser.add_argument("--report-only", metavar="RAW_JSON",
                        help="rebuild the report and plots from existing raw results")
    parser.add_argument("--verify-graph", nargs=2, metavar=("MODEL", "SXP"),
                        help=argparse.SUPPRESS)
    parser.add_argument("--reduced", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()

    if args.verify_graph:
        return verify_graph_main(args.verify_graph[0], args.verify_graph[1], args.reduced)

    if args.out_dir:
        out_dir = pathlib.Path(args.out_dir)
        md_path, png_dir = out_dir / "RESULTS.md", out_dir
        json_path = pathlib.Path(args.json) if args.json else out_dir / "paper.json"
    elif args.quick:
        out_dir = REPO / "build" / "paper-quick"
        md_path, png_dir = out_dir / "RESULTS.md", out_dir
        json_path = pathlib.Path(args.json) if args.json else (
            REPO / "bench" / "results" / "paper_quick.json")
    else:
        md_path, png_dir = REPO / "docs" / "RESULTS.md", REPO / "docs" / "results"
        json_path = pathlib.Path(args.json) if args.json else (
            REPO / "bench" / "results" / "paper.json")

    def log(line):
        print(line, file=sys.stderr, flush=True)

    if args.report_only:
        data = json.loads(pathlib.Path(args.report_only).read_text())
    else:
        binary = pathlib.Path(args.binary)
        if not binary.exists():
            log(f"{binary} is missing: build it first (bash scripts/build.sh)")
            return 2
        s = settings_for(args)
        listed = json.loads(subprocess.run([str(binary), "models", "--json"],
                                           capture_output=True, text=True, check=True).stdout)
        known = {m["name"]: m for m in listed}
        unknown = [m for m in s["models"] if m not in known]
        if unknown:
            log(f"unknown models: {', '.join(unknown)}")
            return 2
        if s["verify_mode"] == "dedupe" and not extension_available():
            log("the Python extension (build/python) is not importable: verifying with "
                "--verify on every configuration instead")
            s["verify_mode"] = "cli"

        started_at = datetime.datetime.now().astimezone()
        load_before = os.getloadavg()
        log(f"paper.py ({s['mode']}): {len(s['models'])} models, {s['runs']} runs "
            f"({s['sweep_runs']} in sweeps), ILP limit {s['ilp_time_limit']:g} s "
            f"(sweeps {s['sweep_ilp_time_limit']:g} s), TASO budget {s['budget']}, "
            f"verification: {s['verify_mode']}")
        with tempfile.TemporaryDirectory(prefix="paper-graphs-") as work_dir:
            runner = Runner(binary, s, log, work_dir)
            plan = measure(runner, s)
            measured = runner.elapsed()
            load_measured = os.getloadavg()
            verifications = {}
            if s["verify_mode"] == "dedupe":
                verifications = runner.verify_all(s["verify_jobs"])
            wall = runner.elapsed()
        data = {
            "settings": s,
            "machine": machine(binary),
            "started": started_at.isoformat(timespec="seconds"),
            "wall_seconds": wall,
            "measure_seconds": measured,
            "verify_seconds": wall - measured,
            "cli_calls": runner.count,
            "load_average_before": load_before,
            "load_average_after_measuring": load_measured,
            "load_average_after": os.getloadavg(),
            "models": {m: {"ops": known[m].get("ops"), "description": known[m].get("description")}
                       for m in s["models"]},
            "plan": plan,
            "verifications": verifications,
            "jobs": runner.jobs,
        }
        json_path.parent.mkdir(parents=True, exist_ok=True)
        json_path.write_text(json.dumps(data, indent=1) + "\n")
        log(f"wrote {json_path} ({wall:.0f} s: {measured:.0f} s measuring, "
            f"{wall - measured:.0f} s verifying; {runner.count} CLI calls)")

    quick_data = None
    if data["settings"]["mode"] == "full" and args.quick_json:
        quick_path = pathlib.Path(args.quick_json)
        if quick_path.exists():
            quick_data = json.loads(quick_path.read_text())

    png_dir.mkdir(parents=True, exist_ok=True)
    plots = {}
    if not args.no_plots:
        try:
            import paper_plots  # noqa: E402  (bench/paper_plots.py)
            plots = paper_plots.write_plots(data, png_dir)
        except ImportError as error:
            log(f"no plots: {error} (python3 -m pip install -r requirements-bench.txt)")
    rel = os.path.relpath(png_dir, md_path.parent)
    plots = {name: (path if rel == "." else f"{rel}/{path}") for name, path in plots.items()}
    resolved = json_path.resolve()
    shown_json = (str(resolved.relative_to(REPO)) if resolved.is_relative_to(REPO)
                  else str(resolved))
    text, failures = render(data, plots, quick_data, json_path=shown_json)
    md_path.parent.mkdir(parents=True, exist_ok=True)
    md_path.write_text(text)
    log(f"wrote {md_path}")
    for line in failures:
        log(f"FAILED: {line}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
