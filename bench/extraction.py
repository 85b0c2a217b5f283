#!/usr/bin/env python3
"""Extraction benchmark: every extractor on every e-graph of the extraction-gym collection.

Runs ``saturate extract FILE --method M --time-limit S --json R`` for M in bottom-up,
greedy-dag and ilp on every egraph-serialize JSON file under ../shared/data/egraphs/ (TENSAT's
VGG-19 and ResNet-50 e-graphs, egg's test-suite e-graphs, three hand-made ones) and on any files
given on the command line. Reports the DAG cost, the tree cost, whether the ILP proved
optimality, the extractor's own seconds and the process wall time, and the gap to the best
known DAG cost where one is known (the table in ../shared/data/egraphs/README.md). Where no best
known value is published, the gap is to the best cost any method found in this run, and the
ILP's proven optimum, where it has one, is the reference.

Writes bench/results/extraction.{json,md} (full run; --quick writes to a temp folder unless
--out is given).

    python3 bench/extraction.py                    # ILP time limit 60 s
    python3 bench/extraction.py --quick            # ILP time limit 10 s
    python3 bench/extraction.py --time-limit 300 extra.json ...

Needs the C++ build (build/bin/saturate, or $SATURATE_BUILD_DIR). Exits 0 with a message when
../shared is absent and no files are given.
"""
from __future__ import annotations

import argparse
import datetime
import json
import os
import pathlib
import platform
import subprocess
import sys
import tempfile
import time

REPO = pathlib.Path(__file__).resolve().parents[1]
BUILD = pathlib.Path(os.environ.get("SATURATE_BUILD_DIR", REPO / "build"))
SATURATE = BUILD / "bin" / "saturate"
DATA = REPO.parent / "shared" / "data" / "egraphs"
METHODS = ["bottom-up", "greedy-dag", "ilp"]
# Relative tolerance under which two costs count as equal (costs are sums of floats).
EPS = 1e-9


def best_known_costs(readme: pathlib.Path) -> dict[str, float]:
    """Reads the 'best known' column of the README table: file name -> cost."""
    if not readme.exists():
        return {}
    best = {}
    header = None
    for line in readme.read_text().splitlines():
        if not line.startswith("|"):
            header = None
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if header is None:
            header = [c.lower() for c in cells]
            continue
        if set("".join(cells)) <= set("-: "):
            continue
        if "best known" in header and "file" in header:
            name = cells[header.index("file")]
            value = cells[header.index("best known")].replace(",", "")
            try:
                best[name] = float(value)
            except ValueError:
                pass
    return best


def graph_size(path: pathlib.Path) -> tuple[int, int]:
    data = json.loads(path.read_text())
    nodes = data["nodes"]
    return len(nodes), len({n["eclass"] for n in nodes.values()})


def run_extract(path: pathlib.Path, method: str, time_limit: float, tmp: pathlib.Path) -> dict:
    report = tmp / "report.json"
    if report.exists():
        report.unlink()
    cmd = [str(SATURATE), "extract", str(path), "--method", method, "--time-limit",
           str(time_limit), "--json", str(report)]
    start = time.perf_counter()
    # The time limit bounds the solver; reduction, cycle cuts and I/O come on top.
    timeout = 3 * time_limit + 120
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"method": method, "error": f"killed after {timeout:.0f} s",
                "process_seconds": time.perf_counter() - start}
    wall = time.perf_counter() - start
    if proc.returncode != 0 or not report.exists():
        return {"method": method, "error": (proc.stderr or proc.stdout).strip()[-500:],
                "process_seconds": wall}
    data = json.loads(report.read_text())
    return {
        "method": method,
        "found": data.get("found"),
        "acyclic": data.get("acyclic"),
        "dag_cost": data.get("dag_cost"),
        "tree_cost": data.get("tree_cost"),
        "optimal": data.get("proven_optimal"),
        "lower_bound": data.get("lower_bound"),
        "status": data.get("status"),
        "seconds": data.get("seconds"),
        "process_seconds": wall,
    }


def gap_percent(cost, reference):
    if cost is None or reference is None:
        return None
    if abs(reference) < 1e-12:
        return 0.0 if abs(cost) < 1e-12 else float("inf")
    return 100.0 * (cost - reference) / abs(reference)


def fmt(value, digits=4):
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        if value == float("inf"):
            return "inf"
        if abs(value) < 0.5 * 10 ** -digits:
            value = 0.0  # no "-0.000" from rounding in the published values
        return f"{value:.{digits}f}"
    return str(value)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="*", type=pathlib.Path, help="more egraph-serialize files")
    parser.add_argument("--time-limit", type=float, default=None,
                        help="ILP time limit in seconds (default 60; 10 with --quick)")
    parser.add_argument("--quick", action="store_true", help="ILP time limit 10 s")
    parser.add_argument("--methods", default=",".join(METHODS),
                        help="comma-separated subset of " + ",".join(METHODS))
    parser.add_argument("--out", type=pathlib.Path, help="output folder")
    args = parser.parse_args()
    time_limit = args.time_limit if args.time_limit is not None else (10.0 if args.quick else 60.0)
    methods = [m for m in args.methods.split(",") if m]
    for m in methods:
        if m not in METHODS:
            parser.error(f"unknown method {m}")

    if not SATURATE.exists():
        print(f"missing {SATURATE}: build it first (cmake --build build --target saturate)",
              file=sys.stderr)
        return 2
    files: list[pathlib.Path] = []
    if DATA.is_dir():
        files += sorted(DATA.rglob("*.json"), key=lambda p: (p.parent != DATA, str(p)))
    else:
        print(f"skipping the shared collection: {DATA} is absent (../shared is not checked out)")
    files += [f.resolve() for f in args.files]
    if not files:
        print("no e-graphs to run: nothing written")
        return 0
    best_known = best_known_costs(DATA / "README.md")

    out_dir = args.out or (pathlib.Path(tempfile.gettempdir()) / "saturate-bench"
                           if args.quick else REPO / "bench" / "results")
    out_dir.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    rows = []
    with tempfile.TemporaryDirectory(prefix="extraction-bench-") as tmp_name:
        tmp = pathlib.Path(tmp_name)
        for path in files:
            name = str(path.relative_to(DATA)) if DATA in path.parents else str(path)
            nodes, classes = graph_size(path)
            known = best_known.get(name)
            runs = []
            for method in methods:
                run = run_extract(path, method, time_limit, tmp)
                runs.append(run)
                print(f"{name:32s} {nodes:8d} {method:10s} "
                      + (f"dag {fmt(run.get('dag_cost'))}  {fmt(run.get('seconds'), 3)} s"
                         + ("  optimal" if run.get("optimal") else "")
                         if "error" not in run else "ERROR " + run["error"][:120]),
                      flush=True)
            found = [r["dag_cost"] for r in runs if r.get("found") and r.get("acyclic")
                     and r.get("dag_cost") is not None]
            best_here = min(found) if found else None
            proven = [r["dag_cost"] for r in runs if r.get("optimal")]
            for run in runs:
                run["gap_to_best_known_percent"] = gap_percent(run.get("dag_cost"), known)
                run["gap_to_best_in_run_percent"] = gap_percent(run.get("dag_cost"), best_here)
            rows.append({"file": name, "enodes": nodes, "eclasses": classes,
                         "best_known": known, "best_in_run": best_here,
                         "proven_optimum": proven[0] if proven else None,
                         "beats_best_known": (known is not None and best_here is not None
                                              and best_here < known * (1 - 1e-7)),
                         "runs": runs})
    wall = time.perf_counter() - started

    # Summary per method.
    summary = {}
    for method in methods:
        runs = [r for row in rows for r in row["runs"] if r["method"] == method]
        ok = [r for r in runs if r.get("found") and r.get("acyclic")]
        best_rows = [row for row in rows
                     for r in row["runs"] if r["method"] == method and row["best_in_run"] is not None
                     and r.get("dag_cost") is not None
                     and r["dag_cost"] <= row["best_in_run"] * (1 + 1e-9) + 1e-12]
        known_gaps = [r["gap_to_best_known_percent"] for row in rows for r in row["runs"]
                      if r["method"] == method and r.get("gap_to_best_known_percent") is not None]
        summary[method] = {
            "files": len(runs),
            "solved": len(ok),
            "errors": sum(1 for r in runs if "error" in r),
            "best_in_run": len(best_rows),
            "proven_optimal": sum(1 for r in runs if r.get("optimal")),
            "total_seconds": sum(r.get("seconds") or 0 for r in runs),
            "max_seconds": max((r.get("seconds") or 0 for r in runs), default=0),
            "mean_gap_to_best_known_percent": (sum(known_gaps) / len(known_gaps)
                                               if known_gaps else None),
        }

    result = {
        "date": datetime.datetime.now().isoformat(timespec="seconds"),
        "host": f"{platform.node()} {platform.machine()}, {os.cpu_count()} CPUs",
        "loadavg": " ".join(f"{x:.2f}" for x in os.getloadavg()),
        "time_limit": time_limit, "quick": args.quick, "methods": methods,
        "best_known_source": str(DATA / "README.md"),
        "rows": rows, "summary": summary, "wall_seconds": wall,
    }

    lines = [f"# Extraction benchmark ({result['date']})", "",
             f"`saturate extract FILE --method M --time-limit {time_limit:g}` on {len(rows)} "
             f"e-graphs; host {result['host']}, load average at start {result['loadavg']}. "
             "Costs are DAG costs (each shared e-node counted once). `gap` is to the best known "
             "DAG cost (shared/data/egraphs/README.md) where there is one, else to the best cost "
             "any method found here (marked *). `seconds` is the extractor's own time; the "
             "process also reads the JSON.", "",
             "| method | solved | best in run | proven optimal | total s | max s "
             "| mean gap to best known % |", "|---|---|---|---|---|---|---|"]
    for method, s in summary.items():
        lines.append(f"| {method} | {s['solved']}/{s['files']} | {s['best_in_run']} | "
                     f"{s['proven_optimal']} | {s['total_seconds']:.2f} | {s['max_seconds']:.2f} | "
                     f"{fmt(s['mean_gap_to_best_known_percent'], 3)} |")
    lines += ["", "| file | e-nodes | e-classes | best known | "
              + " | ".join(f"{m} dag cost | {m} s | {m} gap %" for m in methods) + " |",
              "|---|---|---|---|" + "---|---|---|" * len(methods)]
    for row in rows:
        cells = [row["file"], f"{row['enodes']:,}", f"{row['eclasses']:,}",
                 fmt(row["best_known"], 6)]
        for method in methods:
            run = next(r for r in row["runs"] if r["method"] == method)
            if "error" in run:
                cells += ["error", fmt(run.get("process_seconds"), 2), "-"]
                continue
            cost = fmt(run.get("dag_cost"), 6) + (" (opt)" if run.get("optimal") else "")
            if run.get("found") and not run.get("acyclic"):
                cost += " (cyclic!)"
            if row["best_known"] is not None:
                gap = fmt(run.get("gap_to_best_known_percent"), 3)
            else:
                gap = fmt(run.get("gap_to_best_in_run_percent"), 3) + "*"
            cells += [cost, fmt(run.get("seconds"), 3), gap]
        lines.append("| " + " | ".join(cells) + " |")
    notes = [row for row in rows if row["beats_best_known"]]
    if notes:
        lines += ["", "Below the published best known value: "
                  + ", ".join(f"{r['file']} ({r['best_in_run']:.6f} < {r['best_known']:.6f})"
                              for r in notes) + "."]
    errors = [(row["file"], r["method"], r["error"]) for row in rows for r in row["runs"]
              if "error" in r]
    if errors:
        lines += ["", "Errors:", ""] + [f"- {f} {m}: {e}" for f, m, e in errors]
    lines += ["", f"Whole run: {wall:.0f} s.", ""]
    md = "\n".join(lines)
    print()
    print(md)
    (out_dir / "extraction.json").write_text(json.dumps(result, indent=2) + "\n")
    (out_dir / "extraction.md").write_text(md)
    print(f"wrote {out_dir / 'extraction.json'}, {out_dir / 'extraction.md'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
