"""The checks of an optimized ONNX model in ONNX Runtime, run together.

``saturate optimize model.onnx`` (and ``saturate.optimize``) ask the run's one ONNX Runtime
helper (``ort_helper --serve``, which also times operators for the cost model) for
``run_checks``: the whole-model latency check of ``saturate.ort_latency`` and the comparison of
``saturate.onnx_check`` in the interpreter that already imported numpy and onnxruntime. The
request may carry ``input_shapes``, a list of assignments (input name -> dims) of the models'
dynamic input dimensions (``--input-shape``'s pins): verification compares the models at every
one, the latency check times them at the first (empty: the declared shapes, which must be
static). The answer is ``{"latency": {"original": SUMMARY, "optimized": SUMMARY,
"input_shapes": SHAPES} or null, "verification": CHECK_RESULT or null}``, SHAPES the shapes
timed (input name -> dims) and CHECK_RESULT's ``shapes`` those compared.

From a shell, ``python3 -m saturate.ort_check ORIGINAL OPTIMIZED [--latency-runs N --threads T]
[--verify] [--input-shape NAME=D1,D2,...]`` prints that object (the pins: one assignment);
exit status 0 when everything asked for ran (a mismatch is in the JSON), 2 when a model cannot
be run.
"""
from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict


def run_checks(original: str, optimized: str, latency_runs: int, threads: int,
               verify: bool, input_shapes=None, required_input_shapes=None,
               latency_budget=None, latency_weights=None) -> dict:
    """Times both models (at most ``latency_runs`` interleaved rounds, 0 for none; with
    ``latency_budget`` seconds the sequential test stops when it decides) at the first of
    ``input_shapes`` (a list of assignments input name -> dims; None or empty: the declared
    shapes) and compares their outputs at every one when ``verify``; raises when a model cannot
    be run or an assignment does not suit it. Only the first ``required_input_shapes``
    assignments must run (None: all); verification leaves out a later one the original model
    itself fails at (sizes a shape-checking probe chose that the model does not accept), and
    says so in the result's ``skipped_shapes``. With ``latency_weights`` (shape profiles' weights)
    the timing runs at as many of the first assignments, weighted (ort_latency)."""
    from saturate import onnx_check, ort_latency

    assignments = [dict(each) for each in input_shapes] if input_shapes else []
    answer = {"latency": None, "verification": None}
    required = len(assignments) if required_input_shapes is None else int(required_input_shapes)
    if assignments and required > 0:
        _require_original_runs(original, assignments[:required])
    if latency_runs > 0:
        if latency_weights:
            timed = assignments[:len(latency_weights)]
            weights = [float(w) for w in latency_weights]
        else:
            timed, weights = (assignments[0] if assignments else None), None
        before, after = ort_latency.compare_latency(original, optimized, latency_runs, threads,
                                                    shapes=timed, budget_seconds=latency_budget,
                                                    weights=weights)
        answer["latency"] = {"original": before, "optimized": after, "input_shapes": timed}
    if verify:
        answer["verification"] = asdict(
            onnx_check.compare_models(original, optimized, input_shapes=assignments or None,
                                      required=required_input_shapes))
    return answer


def _require_original_runs(original, assignments) -> None:
    """Raises ValueError naming the sizes when the original model itself fails at one of the
    assignments that must run (a shape profile past a position table, or one that breaks a
    relation the model needs between its inputs' dims)."""
    import numpy as np

    from saturate import onnx_check

    session = onnx_check._session(original)
    for assignment in assignments:
        fed = onnx_check.common_feed_shapes(session, session, assignment)
        feeds = onnx_check.random_feeds(session, np.random.default_rng(0), original, fed)
        try:
            session.run(None, feeds)
        except Exception as error:
            message = str(error).splitlines()[0][:300]
            raise ValueError(f"the original model fails at the input shapes {fed} ({message}); "
                             "give sizes it accepts with --profile") from None


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python3 -m saturate.ort_check",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("original")
    parser.add_argument("optimized")
    parser.add_argument("--latency-runs", type=int, default=0,
                        help="time both models this many interleaved runs (0: no latency check)")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--verify", action="store_true",
                        help="compare the outputs on the same random inputs")
    parser.add_argument("--input-shape", action="append", default=[], metavar="NAME=D1,D2,...",
                        help="the shape fed to an input with dynamic dimensions (repeatable)")
    args = parser.parse_args(argv)
    if args.latency_runs < 0 or args.threads < 1:
        print("error: --latency-runs must be at least 0 and --threads at least 1", file=sys.stderr)
        return 2
    try:
        from saturate import onnx_check

        pins = dict(onnx_check.parse_input_shape(text) for text in args.input_shape)
        answer = run_checks(args.original, args.optimized, args.latency_runs, args.threads,
                            args.verify, [pins] if pins else None)
    except ImportError as error:
        print(f"error: ONNX Runtime is not installed ({error}); pip install onnxruntime numpy",
              file=sys.stderr)
        return 2
    except Exception as error:  # ORT raises its own exception types; report them all alike
        print(f"error: ONNX Runtime check failed: {error}", file=sys.stderr)
        return 2
    print(json.dumps(answer))
    return 0


if __name__ == "__main__":
    sys.exit(main())
