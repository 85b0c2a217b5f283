"""Fixtures for the PyPM front-end tests: a fresh registry."""
import os
import pathlib
import textwrap

import pytest

from saturate import pypm
from saturate.pypm import reader


@pytest.fixture(autouse=True)
def fresh_registry():
    pypm.reset()
    yield
    pypm.reset()


class Compiler:
    """Writes pattern sources to files and compiles them as `python -m saturate.pypm` would."""

    def __init__(self, directory: pathlib.Path):
        self.directory = directory
        self.count = 0

    def write(self, source: str, name: str | None = None) -> pathlib.Path:
        self.count += 1
        path = self.directory / (name or f"patterns_{self.count}.py")
        path.write_text(textwrap.dedent(source).lstrip("\n"))
        return path

    def core(self, source: str, name: str | None = None):
        """The core-calculus file of `source` (compiled, serialized and read back)."""
        data = pypm.compile_file(str(self.write(source, name)))
        return reader.from_bytes(data)

    def error(self, source: str, name: str | None = None) -> pypm.PyPMError:
        path = self.write(source, name)
        with pytest.raises(pypm.PyPMError) as info:
            pypm.compile_file(str(path))
        error = info.value
        assert error.filename is not None and os.path.samefile(error.filename, path), str(error)
        return error


@pytest.fixture
def compiler(tmp_path):
    return Compiler(tmp_path)


def marked_line(source: str, mark: str = "# <-") -> int:
    """The 1-based line of `source` (as Compiler writes it) that carries `mark`."""
    lines = textwrap.dedent(source).lstrip("\n").splitlines()
    hits = [i + 1 for i, line in enumerate(lines) if mark in line]
    assert len(hits) == 1, f"expected one line marked {mark!r}, found {hits}"
    return hits[0]


@pytest.fixture
def line_of():
    """line_of(source[, mark]): the line of `source` marked with `# <-`."""
    return marked_line
