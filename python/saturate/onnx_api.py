"""``saturate.optimize`` for ONNX models: a ModelProto or a path in, a ModelProto out.

    import onnx, saturate
    optimized = saturate.optimize("model.onnx", cost="onnxruntime", verify=True)
    onnx.save(optimized, "model.opt.onnx")
    print(saturate.last_report())

The model goes through the same path as ``saturate optimize model.onnx``: import (unknown
operators kept as opaque nodes), equality saturation with the shipped rules, extraction under the
chosen cost model, export. Everything runs in this process through the C++ extension.
"""
from __future__ import annotations

import os
import pathlib
from typing import Any, Optional, Union

_last_report: dict = {}


try:
    from ._saturate import SaturateError as _SaturateError
except ImportError:  # the extension is not built: onnx_api still imports, optimize cannot run
    _SaturateError = RuntimeError


class VerificationError(_SaturateError):
    """``optimize(..., verify=True)``: the optimized model computes different outputs."""


def _model_bytes(model) -> tuple[bytes, str]:
    if hasattr(model, "SerializeToString"):
        return model.SerializeToString(), "<ModelProto>"
    if isinstance(model, (bytes, bytearray)):
        return bytes(model), "<bytes>"
    if isinstance(model, (str, os.PathLike)):
        path = pathlib.Path(model)
        return path.read_bytes(), str(path)
    raise TypeError(f"expected an onnx.ModelProto, bytes or a path, got {type(model).__name__}")


def is_onnx_argument(model: Any) -> bool:
    """Whether saturate.optimize should take the ONNX path for this argument."""
    if hasattr(model, "SerializeToString") or isinstance(model, (bytes, bytearray)):
        return True
    return isinstance(model, (str, os.PathLike)) and str(model).endswith(".onnx")


def optimize_onnx(
    model: Union["onnx.ModelProto", str, os.PathLike, bytes],  # noqa: F821
    *,
    cost: str = "analytic",
    cost_cache: Optional[str] = None,
    rules: Optional[list[str]] = None,
    node_limit: int = 50_000,
    iter_limit: int = 15,
    k_multi: int = 1,
    extract: str = "ilp",
    ilp_time_limit: float = 600.0,
    time_limit: float = 3600.0,
    verify: bool = False,
    keep_unverified: bool = False,
    threads: int = 1,
    latency_runs: int = 20,
    input_shapes: Optional[dict[str, list[int]]] = None,
    target: str = "onnxruntime",
):
    """Optimizes an ONNX model and returns the optimized ``onnx.ModelProto``.

    ``cost`` is "analytic", "onednn" or "onnxruntime" (operators timed in ONNX Runtime, cached in
    ``cost_cache``, default ``$SATURATE_COST_CACHE`` or ``~/.cache/saturate/costs.sqlite``).
    ``verify=True`` runs both models in ONNX Runtime on the same random inputs (in float64 when
    ONNX Runtime has double kernels for every operator, else in float32 with a tolerance scaled
    to each output's range; see ``saturate.onnx_check``) and raises ``VerificationError`` (a
    ``SaturateError``) on a mismatch, unless ``keep_unverified=True``: then the optimized model
    is returned and ``last_report()["verified"]`` is False. With ``cost="onnxruntime"`` both whole models are then
    timed in ONNX Runtime (``latency_runs`` interleaved runs each, 0 for no check) and the
    original is returned when the optimized one is slower, as ``saturate optimize`` does. The
    report of the run is ``saturate.last_report()``. ``input_shapes`` pins inputs with dynamic
    dimensions (``{"input_ids": [1, 128]}``), as ``--input-shape`` does. ``target`` is
    "onnxruntime" (the output may use ONNX Runtime's com.microsoft kernels, such as
    MultiHeadAttention, fused by rules/pypm/onnxruntime.py) or "onnx" (standard operators only),
    as ``--target`` is; ``last_report()["fused_operators"]`` counts the fused operators.
    """
    import onnx

    from . import _saturate

    data, source = _model_bytes(model)
    optimized_bytes, report = _saturate.optimize_onnx(
        data,
        source=source,
        cost=cost,
        cost_cache=cost_cache or "",
        rules=rules or [],
        node_limit=node_limit,
        iter_limit=iter_limit,
        k_multi=k_multi,
        extract=extract,
        ilp_time_limit=ilp_time_limit,
        time_limit=time_limit,
        threads=threads,
        input_shapes={name: list(dims) for name, dims in (input_shapes or {}).items()},
        # A path's external data (model.onnx.data) lies beside it.
        external_data_dir=(str(pathlib.Path(model).resolve().parent)
                           if isinstance(model, (str, os.PathLike)) else ""),
        target=target,
    )
    report = dict(report)
    # ONNX Runtime runs the original from its path when there is one: external data resolves
    # beside it, which bytes cannot say.
    original_source = str(model) if isinstance(model, (str, os.PathLike)) else data
    report["latency_check"] = None
    if cost == "onnxruntime" and latency_runs > 0 and optimized_bytes != data:
        from .ort_latency import compare_latency

        before, after = compare_latency(original_source, bytes(optimized_bytes), latency_runs,
                                        threads)
        slower = after["median_ms"] > before["median_ms"]
        report["latency_check"] = {"runtime": "onnxruntime", "runs": latency_runs,
                                   "original_median_ms": before["median_ms"],
                                   "optimized_median_ms": after["median_ms"],
                                   "kept": "original" if slower else "optimized"}
        if slower:
            optimized_bytes = data
            report.update(optimized_cost=report["original_cost"], kept_original=True)
    optimized = onnx.load_from_string(optimized_bytes)
    if verify:
        from . import onnx_check

        check = onnx_check.compare_models(original_source, optimized)
        report.update(
            verified=check.ok, verify_precision=check.precision,
            max_abs_error=check.max_abs_error, max_rel_error=check.max_rel_error,
            verify_outputs=[{"name": o.name, "max_abs_error": o.max_abs_error, "range": o.range,
                             "relative_to_range": o.max_rel_error, "tolerance": o.tolerance,
                             "ok": o.ok} for o in check.outputs])
        if not check.ok and not keep_unverified:
            _last_report.clear()
            _last_report.update(report)
            raise VerificationError(
                f"the optimized model differs from {source} ({check.precision}): max abs "
                f"error {check.max_abs_error:.3g}, {check.max_rel_error:.3g} of the output "
                "range (keep_unverified=True returns it anyway)")
    _last_report.clear()
    _last_report.update(report)
    return optimized


def last_report() -> dict:
    """The report of the last ONNX optimize: costs, cost model, e-graph size, times."""
    return dict(_last_report)
