"""What ``saturate.optimize`` returns for every kind of input."""
from __future__ import annotations

from typing import Any, NamedTuple


class OptimizeResult(NamedTuple):
    """The optimized model and the run's report, for a ``Graph`` and an ONNX model alike:
    ``model`` is a ``Graph`` for a graph and an ``onnx.ModelProto`` for an ONNX model (a
    ``ModelProto``, its bytes or a ``.onnx`` path); ``report`` is a dict, field for field the
    ``--json`` report of ``saturate optimize``. A tuple, so ``model, report = optimize(...)``."""

    model: Any
    report: dict
