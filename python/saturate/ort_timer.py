"""Times one-operator ONNX models in ONNX Runtime: the back end of ``--cost onnxruntime``.

The C++ measured cost model exports every configuration it has not measured yet as a one-node
ONNX model and sends the batch to the run's one ``python3 -m saturate.ort_timer --serve`` (below),
so the interpreter start and ORT's initialization are paid once. The request is
``{"models": [MODEL, ...], "warmup": 2, "repeats": 7, "threads": 1, "min_run_ms": 0.2}``, each
MODEL a path or ``{"attachment": i}``, the bytes sent after the request line
(``line_server.py``); ``python3 -m saturate.ort_timer REQUEST.json`` answers one request with
paths from a shell. The answer, one JSON object, is ``{"fingerprint": "...", "times_ms": [...]}``, the median
milliseconds of one run of each model in order, less the cost of calling an empty model (which a
whole model pays once, not once per operator). A model ORT cannot load or run is an error
(exit 2): a measured cost is never made up.

``--serve`` keeps one process for many requests: each line of standard input is a request
(``{"fingerprint": true, "threads": 1}`` asks only for the fingerprint) and each answer is one
line of standard output; a failed request answers ``{"error": "..."}`` and the server goes on.
"""
from __future__ import annotations

import json
import os
import platform
import statistics
import sys
import time

import numpy as np


def cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as cpuinfo:
            for line in cpuinfo:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def fingerprint(threads: int) -> str:
    import onnxruntime as ort

    # "call overhead subtracted" names how times are computed: entries measured another way must
    # not be mixed with these in the cache.
    return (f"onnxruntime {ort.__version__}; {cpu_model()}; {threads} threads; call overhead "
            "subtracted; denormals flushed")


_overhead_ms: dict[int, float] = {}


def call_overhead_ms(threads: int, warmup: int, repeats: int) -> float:
    """What one session.run costs when the model does nothing (an Identity of one float): the
    Python call, input binding, ORT's dispatch. Inside a whole model this is paid once, not once
    per operator, so it is subtracted from every operator's time."""
    if threads not in _overhead_ms:
        from onnx import TensorProto, helper

        graph = helper.make_graph(
            [helper.make_node("Identity", ["x"], ["y"])], "overhead",
            [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1])],
            [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1])])
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
        model.ir_version = 8
        _overhead_ms[threads] = time_model(model.SerializeToString(), warmup, max(repeats, 9),
                                           threads, 1.0, subtract_overhead=False)
    return _overhead_ms[threads]


def make_session(model, threads: int):
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.log_severity_level = 3
    flush_denormals(options)
    return ort.InferenceSession(model, options, providers=["CPUExecutionProvider"])


def flush_denormals(options) -> None:
    """Denormal floats as zero: otherwise a model whose values decay runs at a speed that depends
    on the weights drawn (Saturate's oneDNN executor flushes them too)."""
    options.add_session_config_entry("session.set_denormal_as_zero", "1")


def no_spinning(options) -> None:
    """For sessions timed in turn in one process (the latency check, the benchmarks). After a
    run ONNX Runtime's intra-op threads spin, waiting for more work; another session's pool
    spinning on the same cores slows the one being timed. On 2 cores at 2 threads, two sessions
    running the same single kernel measured up to 1.75x apart, whichever ran second losing; with
    spinning off they measured within 1 %. The operator timer times one session at a time and
    keeps ONNX Runtime's default."""
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")


def feeds_for(session, rng) -> dict[str, np.ndarray]:
    from saturate import onnx_check

    return onnx_check.random_feeds(session, rng)


# The least time an operator is given after the call overhead is taken off: a measured
# operator is never free, and noise must not make it negative.
MIN_OPERATOR_MS = 1e-3


def time_model(model, warmup: int, repeats: int, threads: int, min_run_ms: float,
               subtract_overhead: bool = True) -> float:
    """Median milliseconds per run, less the call overhead (call_overhead_ms). Each sample runs
    the model enough times to last about min_run_ms, so that very small operators are not timed
    at the clock's resolution. ``model``: a path or the model's bytes."""
    session = make_session(model, threads)
    feeds = feeds_for(session, np.random.default_rng(0))
    for _ in range(max(warmup, 1)):
        session.run(None, feeds)
    start = time.perf_counter()
    session.run(None, feeds)
    single_ms = (time.perf_counter() - start) * 1e3
    inner = max(1, min(1000, int(min_run_ms / max(single_ms, 1e-6))))
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(inner):
            session.run(None, feeds)
        samples.append((time.perf_counter() - start) * 1e3 / inner)
    measured = statistics.median(samples)
    if not subtract_overhead:
        return measured
    return max(measured - call_overhead_ms(threads, warmup, repeats), MIN_OPERATOR_MS)


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
        from saturate import ort_check

        check = request["check"]
        return ort_check.run_checks(model_source(check["original"], request),
                                    model_source(check["optimized"], request),
                                    int(check.get("latency_runs", 0)),
                                    int(check.get("threads", 1)), bool(check.get("verify")),
                                    check.get("input_shapes"),
                                    check.get("required_input_shapes"),
                                    check.get("latency_budget"))
    threads = int(request.get("threads", 1))
    if request.get("fingerprint"):
        return {"fingerprint": fingerprint(threads)}
    warmup = int(request.get("warmup", 2))
    repeats = int(request.get("repeats", 7))
    min_run_ms = float(request.get("min_run_ms", 0.2))
    times = []
    for position, reference in enumerate(request["models"]):
        model = model_source(reference, request)
        try:
            times.append(time_model(model, warmup, repeats, threads, min_run_ms))
        except Exception as error:  # name the model; ORT's exception types vary
            raise RuntimeError(f"{model_name(reference, position)}: {error}") from error
    return {"fingerprint": fingerprint(threads), "times_ms": times}


def serve() -> int:
    from saturate.line_server import serve as serve_lines

    return serve_lines(answer, lambda error: f"onnxruntime timing failed: {error}")


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
        print("usage: python3 -m saturate.ort_timer REQUEST.json | --serve", file=sys.stderr)
        return 2
    try:
        with open(argv[0], encoding="utf-8") as file:
            request = json.load(file)
        print(json.dumps(answer(request)))
        return 0
    except Exception as error:
        print(f"error: onnxruntime timing failed: {error}", file=sys.stderr)
    return 2


if __name__ == "__main__":
    from saturate import child_guard

    child_guard.apply_from_environment()
    sys.exit(main())
