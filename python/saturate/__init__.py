"""Saturate's Python package.

``saturate.pypm`` is the front end of PyPM, the pattern language: patterns and rules written
as Python functions, compiled to ``.pmb`` files that the C++ back end loads (docs/PYPM.md).
It imports without any compiled extension.

Everything else comes from the C++ extension ``saturate._saturate`` (pybind11), which the
CMake build writes to ``<build>/python/saturate/``: graphs (``Graph``, ``model``, ``load``,
``parse_text``), ``optimize`` (equality saturation), ``compare`` (reference interpreter) and
PyPM rewriting in process (``apply_rules``, ``explain``). The build folder is
``$SATURATE_BUILD_DIR``, else ``build/`` beside this package's source tree.
"""
import os as _os
import pathlib as _pathlib

from . import pypm

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
        optimize,
        parse_text,
    )

    HAVE_EXTENSION = True
except ImportError as _error:  # only the pure-Python front end is available
    HAVE_EXTENSION = False
    EXTENSION_ERROR = str(_error)

__all__ = ["pypm", "HAVE_EXTENSION"]
