"""Times one-operator ONNX models in ONNX Runtime: the back end of ``--cost onnxruntime``.

The C++ measured cost model exports every configuration it has not measured yet as a one-node
ONNX model and sends the batch to the run's one ONNX Runtime helper (ort_helper.py), which
answers with ``time_model`` below: the median milliseconds of one run of each model, less the
cost of calling an empty model (which a whole model pays once, not once per operator). A model
ORT cannot load or run is an error: a measured cost is never made up.
"""
from __future__ import annotations

import statistics
import time

import numpy as np

from saturate.ort_session import cpu_model, feeds_for, make_session


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
