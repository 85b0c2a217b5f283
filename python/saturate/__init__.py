"""Saturate's Python package.

``saturate.pypm`` is the front end of PyPM, the pattern language: patterns and rules written
as Python functions, compiled to ``.pmb`` files that the C++ back end loads (docs/PYPM.md).
It imports without any compiled extension.

Everything else comes from the C++ extension ``saturate._saturate`` (pybind11), which the
CMake build writes to ``<build>/python/saturate/`` (or, installed with ``pip install .``, into
this package): graphs (``Graph``, ``model``, ``load``,
``parse_text``), ``optimize`` (equality saturation, of a ``Graph`` or an ONNX model; with
``verify=True`` a mismatch raises ``VerificationError``, a ``SaturateError``), ``compare``
(reference interpreter) and PyPM rewriting in process (``apply_rules``, ``explain``). In a source
checkout the build folder is ``$SATURATE_BUILD_DIR``, else ``build/`` beside this package's source
tree.
"""
import os as _os
import pathlib as _pathlib

from . import _installed
from . import pypm

if _installed.is_installed():
    # The extension sits in this package; point its C++ side at the installed rules and helpers.
    _os.environ.update(_installed.environment())
else:
    _build = _pathlib.Path(
        _os.environ.get("SATURATE_BUILD_DIR", _pathlib.Path(__file__).resolve().parents[2] / "build")
    )
    __path__.append(str(_build / "python" / "saturate"))  # where CMake writes the extension

try:
    from ._saturate import (  # noqa: F401
        DType,
        Graph,
        SaturateError,
        Value,
        apply_rules,
        compare,
        explain,
        load,
        model,
        models,
        parse_text,
    )
    from ._saturate import optimize as _optimize_graph
    from .onnx_api import is_onnx_argument as _is_onnx_argument
    from .onnx_api import VerificationError, last_report, optimize_onnx  # noqa: F401

    from .result import OptimizeResult

    def optimize(graph_or_model, *args, **kwargs) -> OptimizeResult:
        """Optimizes a ``Graph`` (see ``_saturate.optimize``) or an ONNX model: an
        ``onnx.ModelProto``, its bytes or a ``.onnx`` path (see ``optimize_onnx``). Returns an
        ``OptimizeResult`` either way: ``model, report = saturate.optimize(...)``, the model of
        the input's kind."""
        if _is_onnx_argument(graph_or_model):
            return optimize_onnx(graph_or_model, *args, **kwargs)
        return OptimizeResult(*_optimize_graph(graph_or_model, *args, **kwargs))

    HAVE_EXTENSION = True
except ImportError as _error:  # only the pure-Python front end is available
    HAVE_EXTENSION = False
    EXTENSION_ERROR = str(_error)

__all__ = ["pypm", "HAVE_EXTENSION"]
