"""Whole-model latency of two ONNX models in ONNX Runtime, timed side by side.

``saturate optimize model.onnx --cost onnxruntime`` times both models as its last check (through
saturate.ort_check): the cost model prices one operator at a time and cannot see what ONNX
Runtime does to the whole graph (its layout changes around a Split, its own fusions), so the
optimized model is kept only if the sequential paired test of saturate.latency_verdict decides
it is faster. ``bench/real_models.py`` uses the same timing.

The runs are interleaved in ABBA order (A B, B A, A B, ...): timing one model's runs after the
other's made two sessions of the same file differ by 14 % on a shared machine. The answer is
``{"original": SUMMARY, "optimized": SUMMARY}`` with ``median_ms``, ``p10_ms``, ``p90_ms``,
``min_ms`` and ``runs``; the optimized summary also has ``faster_rounds``, the rounds in which its
run was faster than the original's run of the same round, and ``verdict``. Exit status 2 when a
model cannot run.
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import time

import numpy as np

from saturate import latency_verdict, onnx_check, ort_session


def summary(samples: list[float]) -> dict:
    ordered = sorted(samples)

    def pick(quantile: float) -> float:
        return ordered[min(len(ordered) - 1, int(quantile * (len(ordered) - 1) + 0.5))]

    return {"median_ms": statistics.median(ordered), "p10_ms": pick(0.1), "p90_ms": pick(0.9),
            "min_ms": ordered[0], "runs": len(ordered)}


def compare_latency(original, optimized, runs: int = 200, threads: int = 1,
                    warmup: int = 3, shapes=None, budget_seconds: float | None = None,
                    weights: list[float] | None = None) -> tuple[dict, dict]:
    """Summaries of the milliseconds per run of each model (paths or bytes), runs interleaved,
    both models fed the same random inputs (of the shapes ``shapes`` gives, input name -> dims,
    for inputs with dynamic dimensions; onnx_check.common_feed_shapes), ONNX Runtime's graph
    optimizations on (as deployed), denormals flushed (as the per-operator timings do) and the
    thread pools not spinning between runs (``ort_session.no_spinning``: the idle session's
    spinning threads would slow the one being timed).

    With ``weights``, ``shapes`` is a list of assignments (shape profiles), one weight each:
    every round runs both models once at each (in the round's order) and pairs the weighted sums
    of their times, so the test decides on the profiles together, as extraction weighs them.

    ``runs`` paired rounds at most. With ``budget_seconds`` the rounds stop as soon as the
    sequential test (saturate.latency_verdict) decides, or once the budget is spent; without it
    every round runs (benchmarks); the budget never stops it before ``latency_verdict.BUDGET_FLOOR``
    rounds (its third look). The optimized summary carries ``verdict`` (the test's answer) and
    ``faster_rounds``."""
    import onnxruntime as ort

    def session(model):
        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        options.log_severity_level = 3
        ort_session.flush_denormals(options)
        ort_session.no_spinning(options)
        return ort.InferenceSession(model if isinstance(model, bytes) else str(model), options,
                                    providers=["CPUExecutionProvider"])

    sessions = [session(original), session(optimized)]
    profiles = list(shapes) if weights is not None else [shapes]
    if weights is None:
        weights = [1.0]
    if len(weights) != len(profiles) or not all(w > 0 for w in weights):
        raise ValueError(f"{len(profiles)} shape profiles need as many positive weights, got "
                         f"{weights}")
    total = float(sum(weights))
    weights = [w / total for w in weights]
    rng = np.random.default_rng(0)
    bounds = onnx_check.index_bounds(original)
    feeds_at = []
    for assignment in profiles:
        fed = onnx_check.common_feed_shapes(sessions[0], sessions[1], assignment)
        feeds_at.append(onnx_check.random_feeds(sessions[0], rng, shapes=fed, bounds=bounds))
    for each in sessions:
        for feeds in feeds_at:
            for _ in range(warmup):
                each.run(None, feeds)
    test = latency_verdict.SequentialPairedTest(runs)
    samples: list[list[float]] = [[], []]
    started = time.perf_counter()
    for round_number in range(runs):
        weighted = [0.0, 0.0]
        for feeds, weight in zip(feeds_at, weights):
            for i in ((0, 1) if round_number % 2 == 0 else (1, 0)):
                start = time.perf_counter()
                sessions[i].run(None, feeds)
                weighted[i] += weight * (time.perf_counter() - start) * 1e3
        for i in (0, 1):
            samples[i].append(weighted[i])
        test.add(samples[0][-1], samples[1][-1])
        if budget_seconds is None:
            continue
        if test.verdict is not None:
            break
        if latency_verdict.budget_stops(round_number + 1, time.perf_counter() - started,
                                        budget_seconds, runs):
            break
    optimized = summary(samples[1])
    optimized["faster_rounds"] = faster_rounds(samples[0], samples[1])
    optimized["verdict"] = test.finish().as_dict()
    return summary(samples[0]), optimized


def faster_rounds(original: list[float], optimized: list[float]) -> int:
    """Rounds in which the optimized run took less time than the original's run of that round
    (the two ran back to back, so each round is one paired comparison)."""
    return sum(1 for before, after in zip(original, optimized) if after < before)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python3 -m saturate.ort_latency",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("original")
    parser.add_argument("optimized")
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--budget", type=float, default=None,
                        help="seconds after which a sequential test stops (default: every run)")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--json", action="store_true", help="print the summaries as JSON")
    parser.add_argument("--input-shape", action="append", default=[], metavar="NAME=D1,D2,...",
                        help="the shape fed to an input with dynamic dimensions (repeatable)")
    args = parser.parse_args(argv)
    if args.runs < 1 or args.threads < 1:
        print("error: --runs and --threads must be at least 1", file=sys.stderr)
        return 2
    try:
        pins = dict(onnx_check.parse_input_shape(text) for text in args.input_shape)
        original, optimized = compare_latency(args.original, args.optimized, args.runs,
                                              args.threads, shapes=pins or None,
                                              budget_seconds=args.budget)
    except Exception as error:  # a model ORT cannot load or run
        print(f"error: ONNX Runtime latency check failed: {error}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps({"original": original, "optimized": optimized}))
    else:
        print(f"original  {original['median_ms']:.3f} ms (median of {args.runs})")
        verdict = optimized["verdict"]
        print(f"optimized {optimized['median_ms']:.3f} ms "
              f"({original['median_ms'] / optimized['median_ms']:.3f}x); paired verdict "
              f"{verdict['kind']} after {verdict['rounds']} rounds, speedup "
              f"{verdict['speedup']:.3f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
