"""ONNX Runtime sessions as Saturate's checks and timings make them, and the machine they run on.

One place for how a session is opened (threads, denormals flushed), how sessions timed in turn
keep out of each other's way (no spinning) and how they are fed, shared by the operator timer
(ort_timer.py), the whole-model latency check (ort_latency.py) and the benchmarks.
"""
from __future__ import annotations

import platform

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
    from saturate import onnx_check  # late: numpy and ONNX Runtime first, as in the helper

    return onnx_check.random_feeds(session, rng)
