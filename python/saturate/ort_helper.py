"""The one long-lived ONNX Runtime process of a run: ``python3 -m saturate.ort_helper --serve``.

It serves the ONNX Runtime jobs of ``saturate optimize``, so that the interpreter start and
ORT's initialization are paid once: timing one-operator models for the measured cost model
(ort_timer.py), the whole-model checks, latency and verification (ort_check.py), and the
float16 conversion of ``--precision fp16`` (precision_conversion.py).

A timing request is ``{"models": [MODEL, ...], "warmup": 2, "repeats": 7, "threads": 1,
"min_run_ms": 0.2}``, each MODEL a path or ``{"attachment": i}``, the bytes sent after the
request line (``line_server.py``); its answer is ``{"fingerprint": "...", "times_ms": [...]}``.
``{"fingerprint": true, "threads": 1}`` asks only for the fingerprint; ``{"check": {...}}`` runs
the whole-model checks; ``{"convert": {...}}`` converts a model to float16 and checks it
(precision_conversion.py). ``--serve`` reads one request per line of standard input and writes one
answer per line of standard output; a failed request answers ``{"error": "..."}`` and the server
goes on. ``python3 -m saturate.ort_helper REQUEST.json`` answers one request with paths from a
shell (exit 2 when it fails).
"""
from __future__ import annotations

import json
import os
import sys

from saturate import ort_check, ort_timer, precision_conversion


def model_source(reference, request: dict):
    """A model named in a request: a path (a string), or {"attachment": i}, the bytes of the
    request's i-th attachment (line_server.py)."""
    if isinstance(reference, str):
        return reference
    index = int(reference["attachment"])
    attachments = request.get("attachments", [])
    if not 0 <= index < len(attachments):
        raise ValueError(f"malformed request: no attachment {index}")
    return attachments[index]


def model_name(reference, position: int) -> str:
    return os.path.basename(reference) if isinstance(reference, str) else f"model {position}"


def answer(request: dict) -> dict:
    """Runs one request; raises on a malformed request or a model ORT cannot run."""
    if "check" in request:  # the whole-model checks of `optimize` (ort_check.py)
        check = request["check"]
        return ort_check.run_checks(model_source(check["original"], request),
                                    model_source(check["optimized"], request),
                                    int(check.get("latency_runs", 0)),
                                    int(check.get("threads", 1)), bool(check.get("verify")),
                                    check.get("input_shapes"),
                                    check.get("required_input_shapes"),
                                    check.get("latency_budget"),
                                    check.get("latency_weights"))
    if "convert" in request:  # --precision fp16 (precision_conversion.py)
        convert = request["convert"]
        try:
            return precision_conversion.answer(convert, model_source(convert["model"], request),
                                               model_source(convert["original"], request))
        except Exception as error:  # the converter's or ONNX Runtime's, on the converted model
            raise RuntimeError(f"the float16 conversion failed: {error}") from error
    threads = int(request.get("threads", 1))
    if request.get("fingerprint"):
        return {"fingerprint": ort_timer.fingerprint(threads)}
    warmup = int(request.get("warmup", 2))
    repeats = int(request.get("repeats", 7))
    min_run_ms = float(request.get("min_run_ms", 0.2))
    times = []
    for position, reference in enumerate(request["models"]):
        model = model_source(reference, request)
        try:
            times.append(ort_timer.time_model(model, warmup, repeats, threads, min_run_ms))
        except Exception as error:  # name the model; ORT's exception types vary
            raise RuntimeError(f"{model_name(reference, position)}: {error}") from error
    return {"fingerprint": ort_timer.fingerprint(threads), "times_ms": times}


def serve() -> int:
    from saturate.line_server import serve as serve_lines

    return serve_lines(answer, lambda error: f"onnxruntime helper: {error}")


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    try:
        import onnxruntime  # noqa: F401
    except ImportError as error:
        print(f"error: ONNX Runtime is not installed ({error}); pip install onnxruntime",
              file=sys.stderr)
        return 2
    if argv == ["--serve"]:
        return serve()
    if len(argv) != 1:
        print("usage: python3 -m saturate.ort_helper REQUEST.json | --serve", file=sys.stderr)
        return 2
    try:
        with open(argv[0], encoding="utf-8") as file:
            request = json.load(file)
        print(json.dumps(answer(request)))
        return 0
    except Exception as error:
        print(f"error: onnxruntime helper: {error}", file=sys.stderr)
    return 2


if __name__ == "__main__":
    from saturate import child_guard

    child_guard.apply_from_environment()
    sys.exit(main())
