#!/usr/bin/env python3
"""Saturate's generic e-graph against egglog on one rewrite workload, and the scaling of
Saturate's tensor exploration with model size.

1. Engine comparison. The workload is egg's math suite (tests/math.rs) restricted to its
   unconditional rules (commutativity, associativity, distributivity and factoring, x+0, x*0,
   x*1, x-x, subtraction to multiplication by -1, pow rules) over a set of start terms, all in
   one e-graph, run for a fixed number of iterations:

   * Saturate: bench/engine_workload.cpp (build/bin/engine_bench), the Runner with every match
     applied each iteration (SimpleScheduler), no analysis, no node or time limit, twice:
     with incremental (semi-naive) search, the headline, and with full search (every match
     every iteration, as egg does) for reference;
   * egglog (Python package ``egglog``, its low-level ``bindings.EGraph``): the same rules as
     ``rewrite`` commands over a ``datatype``, one ``(run 1)`` per iteration, no analysis.

   Both engines search every rule on the e-graph as the last rebuild left it, apply every match
   (egglog and incremental Saturate skip the matches they already applied), then rebuild
   (egglog's default schedule is the same: no back-off). The script checks that all three have
   the same number of e-nodes after every iteration; when they agree the engines built the same
   e-graph and the times compare like for like. Each engine runs in its own process
   (peak RSS from getrusage); reported: total time, e-nodes per second, time to reach fixed
   e-node counts, peak memory, and the ratio egglog time / Saturate time (> 1: Saturate faster).

2. Scaling. BERT as TASO builds it (bundled model ``bert``: a relu then 8 attention layers) has
   a fixed layer count, so the script writes the same graph with N chained attention layers as
   .sxp text and times ``saturate optimize FILE.sxp --extract greedy --json R`` (the shipped
   rule library, default limits), reading the exploration seconds from the report. A least
   squares fit of log(seconds) against log(N) gives the growth exponent (1: linear).

Writes bench/results/engine.{json,md,png} (full run; --quick writes to a temp folder unless
--out is given).

    python3 bench/engine.py             # full run
    python3 bench/engine.py --quick     # smaller workload, one repeat
    python3 bench/engine.py --skip-egglog / --skip-scaling

Needs the C++ build (build/bin/engine_bench and build/bin/saturate, or $SATURATE_BUILD_DIR)
and ``pip install egglog`` (matplotlib for the chart, skipped when missing).
"""
from __future__ import annotations

import argparse
import datetime
import importlib.metadata
import json
import math
import os
import pathlib
import platform
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time

REPO = pathlib.Path(__file__).resolve().parents[1]
BUILD = pathlib.Path(os.environ.get("SATURATE_BUILD_DIR", REPO / "build"))
ENGINE_BENCH = BUILD / "bin" / "engine_bench"
SATURATE = BUILD / "bin" / "saturate"

# egg's math rules (egg/tests/math.rs) without the ones that need its constant-folding analysis
# (div-canon, cancel-div, pow0, pow-recip, recip-mul-div are conditioned on is_not_zero; the
# d/i calculus rules on is_const/is_sym) and without add-zero / mul-one, which egg itself
# leaves commented out (a bare variable as left-hand side).
RULES = [
    ("comm-add", "(+ ?a ?b)", "(+ ?b ?a)"),
    ("comm-mul", "(* ?a ?b)", "(* ?b ?a)"),
    ("assoc-add", "(+ ?a (+ ?b ?c))", "(+ (+ ?a ?b) ?c)"),
    ("assoc-mul", "(* ?a (* ?b ?c))", "(* (* ?a ?b) ?c)"),
    ("sub-canon", "(- ?a ?b)", "(+ ?a (* -1 ?b))"),
    ("zero-add", "(+ ?a 0)", "?a"),
    ("zero-mul", "(* ?a 0)", "0"),
    ("one-mul", "(* ?a 1)", "?a"),
    ("cancel-sub", "(- ?a ?a)", "0"),
    ("distribute", "(* ?a (+ ?b ?c))", "(+ (* ?a ?b) (* ?a ?c))"),
    ("factor", "(+ (* ?a ?b) (* ?a ?c))", "(* ?a (+ ?b ?c))"),
    ("pow-mul", "(* (pow ?a ?b) (pow ?a ?c))", "(pow ?a (+ ?b ?c))"),
    ("pow1", "(pow ?x 1)", "?x"),
    ("pow2", "(pow ?x 2)", "(* ?x ?x)"),
]

# Start terms: egg's math test terms that stay in this language, and two larger ones (an 11-term
# sum, a product of four sums) so that the e-graph grows to a few hundred thousand e-nodes.
TERMS = [
    "(+ 1 (+ 2 (+ 3 (+ 4 (+ 5 (+ 6 7))))))",
    "(+ x (+ x (+ x x)))",
    "(+ 1 (- a (* (- 2 1) a)))",
    "(* (+ x 3) (+ x 1))",
    "(* (pow 2 x) (pow 2 y))",
    "(/ 1 (/ (+ 1 (pow five 2)) 2))",
    "(- (* (+ a b) (+ c d)) (* (+ a b) (+ c d)))",
    "(+ (* x (pow y 2)) (* x (pow y 1)))",
    "(* (- x 1) (+ (* x x) (+ x 1)))",
    "(+ a (+ b (+ c (+ d (+ e (+ f (+ g (+ h (+ i (+ j k))))))))))",
    "(* (+ a b) (* (+ c d) (* (+ e f) (+ g h))))",
]

EGGLOG_OPS = {"+": "Add", "-": "Sub", "*": "Mul", "/": "Div", "pow": "Pow"}


# --------------------------------------------------------------------------------------------
# The workload in both syntaxes


def tokenize(text: str) -> list[str]:
    return re.findall(r"\(|\)|[^\s()]+", text)


def parse_sexpr(text: str):
    tokens = tokenize(text)
    pos = 0

    def read():
        nonlocal pos
        token = tokens[pos]
        pos += 1
        if token != "(":
            return token
        items = []
        while tokens[pos] != ")":
            items.append(read())
        pos += 1
        return items

    expr = read()
    if pos != len(tokens):
        raise ValueError(f"trailing tokens in {text!r}")
    return expr


def to_egglog(expr) -> str:
    """egg syntax -> egglog: (+ a b) -> (Add a b), 3 -> (Num 3), x -> (Var "x"), ?a -> a."""
    if isinstance(expr, list):
        head, *args = expr
        return "(" + EGGLOG_OPS[head] + "".join(" " + to_egglog(a) for a in args) + ")"
    if expr.startswith("?"):
        return expr[1:]
    if re.fullmatch(r"-?\d+", expr):
        return f"(Num {expr})"
    return f'(Var "{expr}")'


def saturate_workload_text() -> str:
    lines = [f"rule {name} {lhs} => {rhs}" for name, lhs, rhs in RULES]
    lines += [f"term {term}" for term in TERMS]
    return "\n".join(lines) + "\n"


def egglog_program() -> str:
    lines = ["(datatype Math (Num i64) (Var String) (Add Math Math) (Sub Math Math)"
             " (Mul Math Math) (Div Math Math) (Pow Math Math))"]
    for name, lhs, rhs in RULES:
        lines.append(f"(rewrite {to_egglog(parse_sexpr(lhs))} {to_egglog(parse_sexpr(rhs))})"
                     f" ; {name}")
    for i, term in enumerate(TERMS):
        lines.append(f"(let $t{i} {to_egglog(parse_sexpr(term))})")
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------------------------
# egglog worker (a separate process, so its peak RSS is its own)


def egglog_worker(iterations: int) -> None:
    base_rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    from egglog import bindings

    import_rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    egraph = bindings.EGraph()
    text = egglog_program()
    setup_text = "\n".join(l for l in text.splitlines() if not l.startswith("(let "))
    terms_text = "\n".join(l for l in text.splitlines() if l.startswith("(let "))
    start = time.perf_counter()
    egraph.run_program(*egraph.parse_program(setup_text))
    setup_seconds = time.perf_counter() - start
    program = egraph.parse_program(terms_text)
    run_one = egraph.parse_program("(run 1)")
    print_size = egraph.parse_program("(print-size)")

    def enodes() -> int:
        (output,) = egraph.run_program(*print_size)
        return sum(size for _, size in output.sizes)

    trace = []
    elapsed = 0.0
    start = time.perf_counter()
    egraph.run_program(*program)
    elapsed += time.perf_counter() - start
    stop = "iteration_limit"
    for i in range(iterations):
        start = time.perf_counter()
        (output,) = egraph.run_program(*run_one)
        elapsed += time.perf_counter() - start
        matches = getattr(output.report, "num_matches_per_rule", None)
        trace.append({"iteration": i + 1, "enodes": enodes(), "eclasses": None,
                      "seconds": elapsed,
                      "matches": sum(matches.values()) if matches is not None else None})
        if not output.report.updated:
            stop = "saturated"
            break
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({
        "engine": "egglog", "version": importlib.metadata.version("egglog"),
        "iterations": len(trace), "stop_reason": stop,
        "enodes": trace[-1]["enodes"] if trace else None, "eclasses": None,
        "seconds": elapsed, "setup_seconds": setup_seconds,
        "peak_rss_mib": peak, "rss_at_start_mib": base_rss,
        "rss_after_import_mib": import_rss, "trace": trace,
    }))


# --------------------------------------------------------------------------------------------
# Running the engines


def run_json(cmd: list[str], timeout: float) -> tuple[dict, float]:
    start = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    wall = time.perf_counter() - start
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({proc.returncode}): {proc.stderr[-2000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1]), wall


def run_saturate_engine(workload: pathlib.Path, iterations: int,
                        search: str = "incremental") -> dict:
    result, wall = run_json([str(ENGINE_BENCH), "--workload", str(workload), "--iter-limit",
                             str(iterations), "--scheduler", "simple", "--search", search,
                             "--time-limit", "100000"], timeout=3600)
    result["process_seconds"] = wall
    return result


def run_egglog_engine(iterations: int) -> dict:
    result, wall = run_json([sys.executable, str(pathlib.Path(__file__).resolve()),
                             "--egglog-worker", str(iterations)], timeout=3600)
    result["process_seconds"] = wall
    return result


def time_to_reach(trace: list[dict], target: int) -> float | None:
    for point in trace:
        if point["enodes"] >= target:
            return point["seconds"]
    return None


def median_run(runs: list[dict]) -> dict:
    """The run with the median total time (its trace and memory go with it)."""
    ordered = sorted(runs, key=lambda r: r["seconds"])
    chosen = dict(ordered[(len(ordered) - 1) // 2])
    chosen["all_seconds"] = [r["seconds"] for r in runs]
    chosen["peak_rss_mib_max"] = max(r["peak_rss_mib"] for r in runs)
    return chosen


def engine_comparison(args, tmp: pathlib.Path) -> dict:
    workload = tmp / "math_workload.txt"
    workload.write_text(saturate_workload_text())
    (tmp / "math_workload.egg").write_text(egglog_program())
    sat_runs, full_runs, egg_runs = [], [], []
    for r in range(args.repeats):
        print(f"  repeat {r + 1}/{args.repeats}: saturate ...", end="", flush=True)
        sat_runs.append(run_saturate_engine(workload, args.iterations))
        print(f" {sat_runs[-1]['seconds']:.3f} s; saturate (full search) ...", end="", flush=True)
        full_runs.append(run_saturate_engine(workload, args.iterations, "full"))
        print(f" {full_runs[-1]['seconds']:.3f} s", end="", flush=True)
        if not args.skip_egglog:
            print("; egglog ...", end="", flush=True)
            egg_runs.append(run_egglog_engine(args.iterations))
            print(f" {egg_runs[-1]['seconds']:.3f} s", end="", flush=True)
        print()
    sat = median_run(sat_runs)
    full = median_run(full_runs)
    egg = median_run(egg_runs) if egg_runs else None

    traces = [[p["enodes"] for p in run["trace"]] for run in (sat, full, egg) if run]
    same_trace = all(trace == traces[0] for trace in traces)
    targets = [t for t in args.node_targets
               if time_to_reach(sat["trace"], t) is not None
               and (egg is None or time_to_reach(egg["trace"], t) is not None)]
    reach = []
    for target in targets:
        s = time_to_reach(sat["trace"], target)
        e = time_to_reach(egg["trace"], target) if egg else None
        reach.append({"target_enodes": target, "saturate_seconds": s, "egglog_seconds": e,
                      "ratio": (e / s) if (e and s) else None})

    def summary(run):
        if run is None:
            return None
        return {
            "enodes": run["enodes"], "eclasses": run["eclasses"],
            "iterations": run["iterations"], "stop_reason": run["stop_reason"],
            "seconds_median": run["seconds"], "seconds_all": run["all_seconds"],
            "enodes_per_second": run["enodes"] / run["seconds"] if run["seconds"] else None,
            "peak_rss_mib": run["peak_rss_mib_max"],
            "rss_at_start_mib": run.get("rss_after_import_mib", run.get("rss_at_start_mib")),
            "process_seconds": run["process_seconds"],
            "search_seconds": run.get("search_seconds"),
            "apply_seconds": run.get("apply_seconds"),
            "rebuild_seconds": run.get("rebuild_seconds"),
            "setup_seconds": run.get("setup_seconds"),
            "trace": run["trace"],
        }

    out = {
        "workload": {"rules": [list(r) for r in RULES], "terms": TERMS,
                     "iterations": args.iterations, "repeats": args.repeats,
                     "scheduler": "apply every match (Saturate SimpleScheduler; egglog run)"},
        "saturate": summary(sat),
        "saturate_full_search": summary(full),
        "egglog": summary(egg),
        "same_enodes_every_iteration": same_trace,
        "time_to_reach": reach,
    }
    out["ratio_full_over_incremental"] = full["seconds"] / sat["seconds"]
    if egg:
        out["ratio_egglog_over_saturate"] = egg["seconds"] / sat["seconds"]
        out["ratio_egglog_over_saturate_full_search"] = egg["seconds"] / full["seconds"]
        out["memory_ratio_egglog_over_saturate"] = (egg["peak_rss_mib_max"]
                                                     / sat["peak_rss_mib_max"])
        out["egglog_version"] = egg.get("version")
    return out


# --------------------------------------------------------------------------------------------
# Scaling: stacked BERT attention layers


def stacked_bert_sxp(layers: int) -> str:
    """TASO's BERT (src/models/bert.cpp) with `layers` attention layers instead of 8."""
    lines = [f"(graph bert{layers}", "  (node input (input :shape [64 1024]))",
             "  (node t1 (relu input))"]
    counter = 2
    weights = 0
    prev = "t1"

    def fresh() -> str:
        nonlocal counter
        name = f"t{counter}"
        counter += 1
        return name

    def weight() -> str:
        nonlocal weights, counter
        name = f"w{weights}"
        weights += 1
        counter += 1
        lines.append(f"  (node {name} (weight :shape [1024 1024]))")
        return name

    for _ in range(layers):
        qkv = []
        for _ in range(3):
            w = weight()
            t = fresh()
            lines.append(f"  (node {t} (matmul {prev} {w}))")
            qkv.append(t)
        reshaped = []
        for t in qkv:
            r = fresh()
            lines.append(f"  (node {r} (reshape {t} :shape [64 16 64]))")
            reshaped.append(r)
        transposed = []
        for r, perm in zip(reshaped, ("[1 0 2]", "[1 2 0]", "[1 0 2]")):
            t = fresh()
            lines.append(f"  (node {t} (transpose {r} :perm {perm}))")
            transposed.append(t)
        scores = fresh()
        lines.append(f"  (node {scores} (matmul {transposed[0]} {transposed[1]}))")
        context = fresh()
        lines.append(f"  (node {context} (matmul {scores} {transposed[2]}))")
        back = fresh()
        lines.append(f"  (node {back} (transpose {context} :perm [1 0 2]))")
        flat = fresh()
        lines.append(f"  (node {flat} (reshape {back} :shape [64 1024]))")
        w = weight()
        out = fresh()
        lines.append(f"  (node {out} (matmul {flat} {w}))")
        prev = out
    lines.append(f"  (output output {prev})")
    lines.append(")")
    return "\n".join(lines) + "\n"


def check_stacked_bert_matches_bundled(tmp: pathlib.Path) -> bool | None:
    """The 8-layer generated graph should be the bundled `bert` (same text up to the name)."""
    bundled = tmp / "bert_bundled.sxp"
    proc = subprocess.run([str(SATURATE), "show", "bert", "--sxp", str(bundled)],
                          capture_output=True, text=True)
    if proc.returncode != 0 or not bundled.exists():
        return None
    ours = stacked_bert_sxp(8).splitlines()[1:]
    theirs = bundled.read_text().strip().splitlines()[1:]
    return ours == theirs


def fit_slope(xs: list[float], ys: list[float]) -> float | None:
    points = [(math.log(x), math.log(y)) for x, y in zip(xs, ys) if x > 0 and y > 0]
    if len(points) < 2:
        return None
    mx = statistics.fmean(p[0] for p in points)
    my = statistics.fmean(p[1] for p in points)
    sxx = sum((p[0] - mx) ** 2 for p in points)
    sxy = sum((p[0] - mx) * (p[1] - my) for p in points)
    return sxy / sxx if sxx else None


def scaling(args, tmp: pathlib.Path) -> dict:
    rows = []
    for layers in args.layers:
        sxp = tmp / f"bert_{layers}.sxp"
        sxp.write_text(stacked_bert_sxp(layers))
        report = tmp / f"bert_{layers}.json"
        explore, walls, last = [], [], None
        for _ in range(args.scaling_repeats):
            start = time.perf_counter()
            proc = subprocess.run([str(SATURATE), "optimize", str(sxp), "--extract", "greedy",
                                   "--json", str(report)], capture_output=True, text=True,
                                  timeout=1800)
            walls.append(time.perf_counter() - start)
            if proc.returncode != 0:
                raise RuntimeError(f"saturate optimize {sxp} failed: {proc.stderr[-2000:]}")
            last = json.loads(report.read_text())
            explore.append(last["explore_seconds"])
        row = {
            "layers": layers,
            "operators": last.get("original_ops"),
            "explore_seconds": statistics.median(explore),
            "explore_seconds_all": explore,
            "process_seconds": statistics.median(walls),
            "enodes": last["egraph_nodes"], "eclasses": last["egraph_classes"],
            "iterations": last["iterations"], "stop_reason": last["stop_reason"],
            "speedup_percent": last.get("speedup_percent"),
        }
        row["enodes_per_second"] = row["enodes"] / row["explore_seconds"]
        rows.append(row)
        print(f"  {layers:4d} layers: {row['enodes']:7d} e-nodes, {row['iterations']} iterations "
              f"({row['stop_reason']}), explore {row['explore_seconds'] * 1000:.1f} ms "
              f"(process {row['process_seconds']:.2f} s)")
    xs = [r["layers"] for r in rows]
    slope_time = fit_slope(xs, [r["explore_seconds"] for r in rows])
    slope_nodes = fit_slope(xs, [r["enodes"] for r in rows])
    return {
        "command": "saturate optimize bert_N.sxp --extract greedy --json R (default limits)",
        "generated_8_layers_equals_bundled_bert": check_stacked_bert_matches_bundled(tmp),
        "repeats": args.scaling_repeats,
        "rows": rows,
        "loglog_slope_explore_seconds": slope_time,
        "loglog_slope_enodes": slope_nodes,
        # The times are tens of milliseconds on a shared machine: a slope within 0.1 of 1 is
        # called linear, below that sublinear, above it superlinear.
        "growth": (None if slope_time is None else "sublinear" if slope_time < 0.9
                   else "linear" if slope_time <= 1.1 else "superlinear"),
        "at_most_linear": (slope_time is not None and slope_time <= 1.1),
    }


# --------------------------------------------------------------------------------------------
# Output


def fmt(value, digits=3):
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:,.{digits}f}"
    if isinstance(value, int):
        return f"{value:,}"
    return str(value)


def markdown(result: dict) -> str:
    lines = [f"# Engine benchmark ({result['date']})", "",
             f"Host: {result['host']}; load average at start {result['loadavg']}; "
             f"mode: {'quick' if result['quick'] else 'full'}.", ""]
    eng = result.get("engines")
    if eng:
        sat, full, egg = eng["saturate"], eng.get("saturate_full_search"), eng["egglog"]
        w = eng["workload"]
        lines += ["## Saturate vs egglog: egg's math rules", "",
                  f"{len(w['rules'])} unconditional rules of egg's math suite, {len(w['terms'])} "
                  f"start terms in one e-graph, {w['iterations']} iterations, every match "
                  f"applied each iteration, no analysis; median of {w['repeats']} runs.", "",
                  "| engine | e-nodes | iterations | seconds | e-nodes/s | peak RSS MiB "
                  "| RSS before run MiB |",
                  "|---|---|---|---|---|---|---|"]
        for name, run in (("Saturate (incremental search)", sat),
                          ("Saturate (full search, as egg)", full),
                          (f"egglog {eng.get('egglog_version', '')}", egg)):
            if run is None:
                continue
            lines.append(f"| {name} | {fmt(run['enodes'])} | {run['iterations']} | "
                         f"{fmt(run['seconds_median'])} | {fmt(run['enodes_per_second'], 0)} | "
                         f"{fmt(run['peak_rss_mib'], 1)} | {fmt(run['rss_at_start_mib'], 1)} |")
        lines.append("")
        if egg:
            lines += [f"Time ratio egglog / Saturate: **{eng['ratio_egglog_over_saturate']:.2f}x** "
                      f"(> 1 means Saturate is faster; target >= 1, aim 2). Peak-memory ratio "
                      f"egglog / Saturate: {eng['memory_ratio_egglog_over_saturate']:.2f}x. "
                      f"With full search Saturate's ratio is "
                      f"{eng['ratio_egglog_over_saturate_full_search']:.2f}x.",
                      ""]
        lines += [f"Incremental search is {eng['ratio_full_over_incremental']:.2f}x as fast as "
                  f"full search on this workload. Same e-node count after every iteration "
                  f"(all engines and modes): **{eng['same_enodes_every_iteration']}**.", ""]
        if sat.get("search_seconds") is not None:
            lines += [f"Saturate's time by phase: search {sat['search_seconds']:.2f} s, apply "
                      f"{sat['apply_seconds']:.2f} s, rebuild {sat['rebuild_seconds']:.2f} s "
                      f"(the rest: hooks and adding the terms). egglog's setup (declaring the "
                      f"datatype, compiling the rules) is not timed: "
                      f"{(egg or {}).get('setup_seconds') or 0:.3f} s; neither is Saturate's "
                      "rule parsing.", ""]
        lines += ["Differences between the engines that the numbers include: egglog compiles "
                  "each rule to a relational query and evaluates it semi-naively (an iteration "
                  "only looks for matches that involve rows new since the rule last ran). "
                  "Saturate e-matches top-down, as egg does; with incremental search a match is "
                  "kept only if one of its e-nodes is stamped later than the rule's last complete "
                  "application (a node's form, or its place in its class, changed since), the same "
                  "semi-naive idea at the granularity of e-nodes; with full search it re-applies "
                  "old matches as no-ops, as egg does. All rebuild once per iteration. egglog "
                  "stores a table row per e-node, keyed by canonical children; its size is "
                  "summed over the constructor tables (`print-size`), which after rebuilding "
                  "counts the same canonical e-nodes as Saturate's `node_count()` (the per-"
                  "iteration counts agree, see below). egglog's e-class count is not read. Peak "
                  "RSS is each process's own (`getrusage`); egglog's includes the Python "
                  "interpreter and the imported module (the 'RSS before run' column).", ""]
        if eng["time_to_reach"]:
            lines += ["| e-nodes reached | Saturate s | egglog s | ratio |", "|---|---|---|---|"]
            for r in eng["time_to_reach"]:
                lines.append(f"| {fmt(r['target_enodes'])} | {fmt(r['saturate_seconds'])} | "
                             f"{fmt(r['egglog_seconds'])} | "
                             f"{fmt(r['ratio'], 2) if r['ratio'] else '-'} |")
            lines.append("")
        lines += ["Per iteration (e-nodes; cumulative seconds):", "",
                  "| iteration | e-nodes (Saturate) | e-classes (Saturate) | Saturate s "
                  "| Saturate new matches | Saturate merges that changed the e-graph "
                  "| full search s | full search matches | e-nodes (egglog) | egglog s "
                  "| egglog matches |",
                  "|---|---|---|---|---|---|---|---|---|---|---|"]
        egg_trace = egg["trace"] if egg else []
        full_trace = full["trace"] if full else []
        for i, p in enumerate(sat["trace"]):
            q = egg_trace[i] if i < len(egg_trace) else {}
            f = full_trace[i] if i < len(full_trace) else {}
            lines.append(f"| {p['iteration']} | {fmt(p['enodes'])} | {fmt(p['eclasses'])} | "
                         f"{fmt(p['seconds'])} | {fmt(p.get('matches'))} | "
                         f"{fmt(p.get('applied'))} | {fmt(f.get('seconds'))} | "
                         f"{fmt(f.get('matches'))} | {fmt(q.get('enodes'))} | "
                         f"{fmt(q.get('seconds'))} | {fmt(q.get('matches'))} |")
        lines.append("")
    sc = result.get("scaling")
    if sc:
        lines += ["## Saturate: exploration time vs BERT depth", "",
                  "TASO's BERT with N chained attention layers (generated .sxp; the 8-layer one "
                  f"equals the bundled model: {sc['generated_8_layers_equals_bundled_bert']}), "
                  f"`{sc['command']}`, median of {sc['repeats']} runs.", "",
                  "| layers | operators | e-nodes | e-classes | iterations | stop | explore ms "
                  "| e-nodes/s | process s |", "|---|---|---|---|---|---|---|---|---|"]
        for r in sc["rows"]:
            lines.append(f"| {r['layers']} | {fmt(r['operators'])} | {fmt(r['enodes'])} | "
                         f"{fmt(r['eclasses'])} | {r['iterations']} | {r['stop_reason']} | "
                         f"{r['explore_seconds'] * 1000:.1f} | {fmt(r['enodes_per_second'], 0)} | "
                         f"{fmt(r['process_seconds'], 2)} |")
        lines += ["", f"log-log slope: exploration seconds {fmt(sc['loglog_slope_explore_seconds'], 2)}"
                  f", e-nodes {fmt(sc['loglog_slope_enodes'], 2)} "
                  f"(1 = linear; growth: **{sc['growth']}**, within 0.1 of 1 counts as linear).", ""]
    lines += [f"Whole run: {result['wall_seconds']:.0f} s.", ""]
    return "\n".join(lines)


def plot(result: dict, path: pathlib.Path) -> bool:
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        import matplotlib.ticker
    except ImportError:
        print("matplotlib missing: no chart")
        return False
    eng, sc = result.get("engines"), result.get("scaling")
    panels = [p for p in (eng, eng, sc) if p]
    fig, axes = plt.subplots(1, max(1, len(panels)), figsize=(5.2 * max(1, len(panels)), 4.2))
    if not isinstance(axes, (list, tuple)) and not hasattr(axes, "__len__"):
        axes = [axes]
    k = 0
    if eng:
        ax = axes[k]
        k += 1
        for name, run, style in (("Saturate", eng["saturate"], "o-"),
                                 ("Saturate, full search", eng.get("saturate_full_search"), "^:"),
                                 ("egglog", eng["egglog"], "s--")):
            if run:
                ax.plot([p["seconds"] for p in run["trace"]], [p["enodes"] for p in run["trace"]],
                        style, label=name)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("cumulative seconds")
        ax.set_ylabel("e-nodes")
        ax.set_title("egg math rules: growth per iteration")
        ax.legend()
        ax.grid(True, which="both", alpha=0.3)
        ax = axes[k]
        k += 1
        names, secs, mem = ["Saturate"], [eng["saturate"]["seconds_median"]], \
            [eng["saturate"]["peak_rss_mib"]]
        if eng.get("saturate_full_search"):
            names.append("Saturate\nfull search")
            secs.append(eng["saturate_full_search"]["seconds_median"])
            mem.append(eng["saturate_full_search"]["peak_rss_mib"])
        if eng["egglog"]:
            names.append("egglog")
            secs.append(eng["egglog"]["seconds_median"])
            mem.append(eng["egglog"]["peak_rss_mib"])
        x = range(len(names))
        ax.bar([i - 0.2 for i in x], secs, 0.4, label="seconds", color="tab:blue")
        ax.set_ylabel("seconds (total)")
        ax2 = ax.twinx()
        ax2.bar([i + 0.2 for i in x], mem, 0.4, label="peak RSS MiB", color="tab:orange")
        ax2.set_ylabel("peak RSS MiB")
        ax.set_xticks(list(x))
        ax.set_xticklabels(names)
        ax.set_title(f"{eng['saturate']['enodes']:,} e-nodes, {eng['workload']['iterations']} it.")
        handles = ax.get_legend_handles_labels()[0] + ax2.get_legend_handles_labels()[0]
        ax.legend(handles, ["seconds", "peak RSS MiB"], loc="upper center",
                  bbox_to_anchor=(0.5, -0.08), ncol=2, frameon=False)
    if sc:
        ax = axes[k]
        xs = [r["layers"] for r in sc["rows"]]
        ys = [r["explore_seconds"] for r in sc["rows"]]
        ax.loglog(xs, ys, "o-", label="exploration")
        slope = sc["loglog_slope_explore_seconds"]
        if slope is not None and ys:
            ax.loglog(xs, [ys[0] * (x / xs[0]) for x in xs], ":", color="gray", label="linear")
            ax.set_title(f"BERT layers vs exploration (slope {slope:.2f})")
        ax.set_xticks(xs)
        ax.set_xticklabels([str(x) for x in xs])
        ax.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
        ax.set_xlabel("attention layers")
        ax.set_ylabel("exploration seconds")
        ax.legend()
        ax.grid(True, which="both", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return True


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="smaller workload, one repeat")
    parser.add_argument("--iterations", type=int, help="iterations of the math workload")
    parser.add_argument("--repeats", type=int, help="runs per engine (median reported)")
    parser.add_argument("--layers", type=str, help="BERT layer counts, e.g. 8,16,32,64")
    parser.add_argument("--skip-egglog", action="store_true")
    parser.add_argument("--skip-scaling", action="store_true")
    parser.add_argument("--skip-engines", action="store_true")
    parser.add_argument("--out", type=pathlib.Path, help="output folder")
    parser.add_argument("--egglog-worker", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.egglog_worker is not None:
        egglog_worker(args.egglog_worker)
        return 0

    args.iterations = args.iterations or (6 if args.quick else 9)
    args.repeats = args.repeats or (1 if args.quick else 3)
    args.scaling_repeats = 3 if args.quick else 5
    args.layers = ([int(x) for x in args.layers.split(",")] if args.layers
                   else ([8, 16, 32] if args.quick else [8, 16, 32, 64]))
    args.node_targets = [10_000, 100_000, 200_000, 500_000]

    for binary in (ENGINE_BENCH, SATURATE):
        if not binary.exists():
            print(f"missing {binary}: build it first (cmake --build build --target "
                  f"{binary.name})", file=sys.stderr)
            return 2
    if not args.skip_egglog and not args.skip_engines:
        try:
            importlib.metadata.version("egglog")
        except importlib.metadata.PackageNotFoundError:
            print("egglog is not installed (python3 -m pip install egglog); "
                  "or pass --skip-egglog", file=sys.stderr)
            return 2

    out_dir = args.out or (pathlib.Path(tempfile.gettempdir()) / "saturate-bench"
                           if args.quick else REPO / "bench" / "results")
    out_dir.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    result = {
        "date": datetime.datetime.now().isoformat(timespec="seconds"),
        "host": f"{platform.node()} {platform.machine()}, {os.cpu_count()} CPUs, "
                f"Python {platform.python_version()}",
        "loadavg": " ".join(f"{x:.2f}" for x in os.getloadavg()),
        "quick": args.quick,
    }
    with tempfile.TemporaryDirectory(prefix="engine-bench-") as tmp_name:
        tmp = pathlib.Path(tmp_name)
        if not args.skip_engines:
            print(f"engine comparison: {len(RULES)} rules, {len(TERMS)} terms, "
                  f"{args.iterations} iterations")
            result["engines"] = engine_comparison(args, tmp)
        if not args.skip_scaling:
            print(f"scaling: BERT with {args.layers} attention layers")
            result["scaling"] = scaling(args, tmp)
    result["wall_seconds"] = time.perf_counter() - started

    md = markdown(result)
    print()
    print(md)
    (out_dir / "engine.json").write_text(json.dumps(result, indent=2) + "\n")
    (out_dir / "engine.md").write_text(md)
    if plot(result, out_dir / "engine.png"):
        print(f"wrote {out_dir / 'engine.png'}")
    print(f"wrote {out_dir / 'engine.json'}, {out_dir / 'engine.md'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
