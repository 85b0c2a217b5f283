"""PyPM: the pattern language of "Pattern Matching in AI Compilers and its Formalization".

Patterns and rules are Python functions::

    from saturate import pypm
    from saturate.pypm import pattern, rule, MatMul, Trans

    @pattern
    def TransposedProduct(x, y):
        assert x.shape.rank == 2 and y.shape.rank == 2
        return MatMul(Trans(x, perm=[1, 0]), Trans(y, perm=[1, 0]))

    @rule(TransposedProduct)
    def product_of_transposes(x, y):
        return Trans(MatMul(y, x), perm=[1, 0])

    pypm.serialize("rules.pmb")

``serialize`` runs every registered body symbolically and writes the core calculus as a
``.pmb`` file for the C++ back end (src/pm/). The language, the core calculus and the format
are specified in docs/PYPM.md.
"""
from __future__ import annotations

import linecache
import os
import sys
import tempfile
from typing import Optional

from . import core, ops
from .compiler import build
from .errors import PyPMError, locate
from .ops import CONSTRUCTORS as _CONSTRUCTORS
from .reader import FormatError, from_bytes, read_file
from .registry import PatternHandle, pattern, rule
from .registry import current_registry as _current_registry
from .registry import reset as _reset_registry
from .serialize import to_bytes
from .symbolic import Op, op_var, proven, var

globals().update(_CONSTRUCTORS)

__all__ = ["pattern", "rule", "var", "op_var", "Op", "proven", "serialize", "compile_file", "reset",
           "build_core", "PyPMError", "FormatError", "from_bytes", "read_file", "to_bytes",
           "PatternHandle", "core", "ops"] + sorted(_CONSTRUCTORS)

# While compile_file runs a pattern file, a serialize() call inside it only checks.
_compiling = 0


def reset() -> None:
    """Forgets every registered pattern and rule."""
    _reset_registry()


def build_core(source_file: Optional[str] = None) -> core.PatternFile:
    """Runs the registered patterns and rules symbolically; returns the core calculus."""
    return build(_current_registry(), source_file)


def _write_atomically(path: str, data: bytes) -> None:
    directory = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".pypm-", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def serialize(path: Optional[str] = None, *, source_file: Optional[str] = None) -> bytes:
    """The ``.pmb`` bytes of every registered pattern and rule; writes them to ``path`` if given.

    The file is written atomically and only if everything compiled. Raises PyPMError
    (``str(e)`` is ``FILE:LINE: error: message``).
    """
    data = to_bytes(build_core(source_file))
    if path is not None and not _compiling:
        _write_atomically(os.fspath(path), data)
    return data


def compile_file(py_path: str, out_path: Optional[str] = None) -> bytes:
    """Runs the pattern file ``py_path`` and writes its patterns and rules to ``out_path``.

    The registry is emptied first and restored afterwards. Nothing is written on error.
    Returns the bytes.
    """
    global _compiling
    from . import registry  # noqa: PLC0415

    py_path = os.fspath(py_path)
    saved = registry.REGISTRY
    registry.reset()
    _compiling += 1
    directory = os.path.dirname(os.path.abspath(py_path))
    sys.path.insert(0, directory)
    try:
        try:
            with open(py_path, encoding="utf-8") as f:
                source = f.read()
        except OSError as e:
            raise PyPMError(f"cannot read: {e.strerror}", py_path) from None
        namespace = {"__name__": "__pypm_compile__", "__file__": py_path,
                     "__builtins__": __builtins__}
        # The bodies are read back from linecache: make it hold exactly what runs.
        linecache.cache[py_path] = (len(source), None, source.splitlines(True), py_path)
        try:
            code = compile(source, py_path, "exec")
            exec(code, namespace)
        except Exception as e:  # noqa: BLE001
            raise locate(e, py_path)
        data = to_bytes(build(registry.REGISTRY, os.path.basename(py_path)))
    finally:
        _compiling -= 1
        try:
            sys.path.remove(directory)
        except ValueError:
            pass
        registry.REGISTRY = saved
    if out_path is not None:
        _write_atomically(os.fspath(out_path), data)
    return data


def __getattr__(name: str):
    if name[:1].isupper():
        raise PyPMError(f"unknown operator constructor pypm.{name} (known: "
                        + ", ".join(sorted(_CONSTRUCTORS)) + ")")
    raise AttributeError(f"module 'saturate.pypm' has no attribute '{name}'")
