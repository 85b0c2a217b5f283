"""Errors of the PyPM front end, located at a line of the user's pattern file."""
from __future__ import annotations

import os
import sys
import types

_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))


class PyPMError(Exception):
    """A mistake in a pattern file. ``str(e)`` is ``FILE:LINE: error: message``."""

    def __init__(self, message: str, filename: str | None = None, line: int | None = None):
        super().__init__(message)
        self.message = message
        self.filename = filename
        self.line = line

    def located(self) -> bool:
        return self.filename is not None

    def __str__(self) -> str:
        if self.filename is None:
            return f"error: {self.message}"
        if self.line is None:
            return f"{self.filename}: error: {self.message}"
        return f"{self.filename}:{self.line}: error: {self.message}"


def _is_user_file(filename: str) -> bool:
    if not filename or filename.startswith("<"):
        return False
    path = os.path.abspath(filename)
    return not path.startswith(_PACKAGE_DIR + os.sep)


def user_location(skip: int = 1) -> tuple[str | None, int | None]:
    """The innermost stack frame outside this package: where the user's code is running."""
    frame = sys._getframe(skip)
    while frame is not None:
        if _is_user_file(frame.f_code.co_filename):
            return frame.f_code.co_filename, frame.f_lineno
        frame = frame.f_back
    return None, None


def traceback_location(tb: types.TracebackType | None) -> tuple[str | None, int | None]:
    """The innermost traceback entry in user code (the line that raised, seen from the user)."""
    found: tuple[str | None, int | None] = (None, None)
    while tb is not None:
        filename = tb.tb_frame.f_code.co_filename
        if _is_user_file(filename):
            found = (filename, tb.tb_lineno)
        tb = tb.tb_next
    return found


def locate(error: BaseException, default_file: str | None = None,
           default_line: int | None = None) -> PyPMError:
    """Turns any exception raised while running user code into a located PyPMError."""
    if isinstance(error, PyPMError):
        if error.filename is None:
            filename, line = traceback_location(error.__traceback__)
            if filename is None:
                filename, line = default_file, default_line
            error.filename, error.line = filename, line
        return error
    if isinstance(error, SyntaxError):
        return PyPMError(f"syntax error: {error.msg}", error.filename or default_file, error.lineno)
    filename, line = traceback_location(error.__traceback__)
    if filename is None:
        filename, line = default_file, default_line
    message = f"{type(error).__name__}: {error}"
    if isinstance(error, NameError):
        message += " (an unknown operator constructor or pattern?)"
    if isinstance(error, MemoryError):
        message = ("MemoryError: the pattern file used more memory than its limit "
                   "(saturate pm compile --memory-limit)")
    located = PyPMError(message, filename, line)
    located.__cause__ = error
    return located
