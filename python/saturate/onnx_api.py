"""``saturate.optimize`` for ONNX models: a ModelProto or path in; a ModelProto and report out.

    import onnx, saturate
    optimized, report = saturate.optimize("model.onnx", cost="onnxruntime", verify=True)
    onnx.save(optimized, "model.opt.onnx")
    print(report["speedup_percent"])

The model goes through the pipeline of ``saturate optimize model.onnx`` (the C++ library's
driver, through the extension): import (unknown operators kept as opaque nodes), equality
saturation with the shipped rules, extraction under the cost model, the latency check and
verification in ONNX Runtime (one helper process), export; same options, same defaults, same
report.
"""
from __future__ import annotations

import os
import pathlib
import threading
from typing import Any, Union

from .result import OptimizeResult

# Per thread: optimize running in several threads at once gives each its own report.
_reports = threading.local()


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


def optimize_onnx(model: Union["onnx.ModelProto", str, os.PathLike, bytes],  # noqa: F821
                  **options: Any):
    """Optimizes an ONNX model; returns an ``OptimizeResult``: the optimized
    ``onnx.ModelProto`` and the run's report.

    The model runs through the pipeline of ``saturate optimize model.onnx`` (driver/ in the C++
    library), with the command's options as keyword arguments and the command's defaults:
    ``cost`` ("onnxruntime" for an ONNX model, as deployed: each operator configuration timed
    in ONNX Runtime and cached in ``cost_cache``, default ``$SATURATE_COST_CACHE`` or
    ``~/.cache/saturate/costs.sqlite``; or "analytic", "onednn"), ``cache_busy_costs`` (cache
    costs timed while the machine is busy too; default False: a batch a calibration kernel
    finds the machine busy for prices this run only), ``threads`` (ONNX Runtime's
    intra-op threads for the timings and checks; default: its own default, one per physical
    core), ``rules``, ``pypm``, ``target`` ("onnxruntime": the output may use ONNX Runtime's
    own com.microsoft kernels, those ``fusions`` names; "onnx": standard operators only),
    ``fusions`` (with "onnxruntime", the kernels it may fuse into, by IR name (the list
    ``saturate optimize --help`` prints, which a test compares with this one):
    ``["multi_head_attention", "qkv_attention", "rms_norm", "bias_gelu", "fast_gelu", "quick_gelu",
    "skip_layer_norm", "skip_rms_norm", "rotary_embedding", "fused_conv", "fused_matmul"]`` or
    ``["none"]``; default all),
    ``node_limit``,
    ``iter_limit``, ``k_multi``, ``extract``, ``ilp_time_limit``, ``time_limit``,
    ``latency_runs`` and ``latency_budget`` (with onnxruntime costs both whole models are
    timed, at most ``latency_runs`` paired runs or ``latency_budget`` seconds, and the optimized
    model is returned only when a sequential paired test decides it is faster; 0 runs for no
    check), ``session_guards`` (with
    onnxruntime costs, write residual norms so that ONNX Runtime's session-time
    SkipLayerNormFusion leaves them alone where its kernel measures slower; default True),
    ``input_shapes``
    (``{"input_ids": [1, 128]}`` pins inputs with dynamic dimensions, as ``--input-shape``;
    without pins the dynamic axes are kept, written under the model's own names),
    ``profiles`` (``["batch=1,sequence=128", "batch=8,sequence=512@0.5"]``: the sizes of the
    symbolic dimensions at which operators are priced and the latency check times, as
    ``--profile``; default batch 1, other lengths 128), ``precision`` ("fp16": the returned
    model computes in float16, converted after optimization and compared with the original;
    ``keep_io_types`` (default True) keeps its inputs and outputs float32, ``keep_fp32``
    (``["Softmax"]``) leaves operator types in float32, ``precision_budget`` (default 0.01) is
    the largest difference allowed per output as a share of its range: past it
    ``VerificationError`` is raised; default "keep").
    ``verify=True`` runs both models in ONNX Runtime on the same random inputs (in float64 when
    ONNX Runtime has double kernels for every operator, else in float32 with a tolerance scaled
    to each output's range; see ``saturate.onnx_check``) and raises ``VerificationError`` (a
    ``SaturateError``) on a mismatch, unless ``keep_unverified=True``: then the optimized model
    is returned and its report's ``verified`` is False. The report, field for field the
    ``--json`` report of the command, is the result's ``report`` (and ``last_report()``, kept for
    older code).
    """
    import onnx

    from . import _saturate

    if hasattr(model, "SerializeToString") or isinstance(model, (bytes, bytearray)):
        data, source = _model_bytes(model)
        optimized_bytes, report = _saturate.optimize_onnx(data, source=source, **options)
    elif isinstance(model, (str, os.PathLike)) and str(model).endswith(".onnx"):
        source = str(model)
        optimized_bytes, report = _saturate.optimize_onnx(source, **options)
    else:  # a path without the suffix: its bytes, with external data beside it
        data, source = _model_bytes(model)
        optimized_bytes, report = _saturate.optimize_onnx(
            data, source=source, external_data_dir=str(pathlib.Path(model).resolve().parent),
            **options)
    _reports.last = dict(report)
    if report.get("verified") is False and not options.get("keep_unverified"):
        raise VerificationError(
            f"the optimized model differs from {source} ({report.get('verify_precision')}): max "
            f"abs error {report['max_abs_error']:.3g}, {report['max_relative_error']:.3g} of the "
            "output range (keep_unverified=True returns it anyway)")
    conversion = report.get("precision_conversion") or {}
    if conversion.get("within_budget") is False and not options.get("keep_unverified"):
        raise VerificationError(
            f"the float16 conversion of {source} differs from it by "
            f"{conversion['max_rel_error']:.3g} of an output's range, over the budget of "
            f"{conversion['budget']:.3g} (precision_budget; keep_unverified=True returns it "
            "anyway)")
    return OptimizeResult(onnx.load_from_string(bytes(optimized_bytes)), dict(report))


def last_report() -> dict:
    """The report of the last ONNX optimize run in this thread (each thread has its own):
    costs, cost model, e-graph size, times; empty before the first. Kept for older code: the
    report is also the ``report`` of the ``OptimizeResult`` that ``optimize`` returns."""
    return dict(getattr(_reports, "last", {}))
