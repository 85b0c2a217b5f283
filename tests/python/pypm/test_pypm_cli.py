"""`python -m saturate.pypm`: compile and dump, one-line errors, nothing written on error."""
import os
import pathlib
import subprocess
import sys

from saturate import pypm

REPO = pathlib.Path(__file__).resolve().parents[3]

GOOD = """
from saturate.pypm import *

@pattern
def Twice(x):
    return Relu(Relu(x))

@rule(Twice)
def once(x):
    return Relu(x)
"""

BAD = """
from saturate.pypm import *

@pattern
def Twice(x):
    return Relu(Relu(x), x)
"""


def run(*args, cwd):
    env = dict(os.environ, PYTHONPATH=str(REPO / "python"))
    return subprocess.run([sys.executable, "-m", "saturate.pypm", *map(str, args)], cwd=cwd,
                          env=env, capture_output=True, text=True, timeout=60)


def test_compile_writes_the_file_and_dump_prints_it(tmp_path):
    (tmp_path / "good.py").write_text(GOOD)
    result = run("compile", "good.py", "-o", "out.pmb", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout == "" and result.stderr == ""
    data = (tmp_path / "out.pmb").read_bytes()
    assert data == pypm.compile_file(str(tmp_path / "good.py"))
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".pypm-")] == []

    dump = run("dump", "out.pmb", cwd=tmp_path)
    assert dump.returncode == 0, dump.stderr
    assert dump.stdout.splitlines() == [
        "source good.py",
        "def #0 Twice(x)  # line 5",
        "  alt  # line 5",
        "    body relu(relu(x))",
        "rule once for Twice(x)  # line 9",
        "  => relu(x)",
    ]


def test_compile_default_output_name(tmp_path):
    (tmp_path / "good.py").write_text(GOOD)
    result = run("compile", "good.py", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "good.pmb").exists()


def test_compile_error_is_one_line_and_writes_nothing(tmp_path):
    (tmp_path / "bad.py").write_text(BAD)
    result = run("compile", "bad.py", "-o", "out.pmb", cwd=tmp_path)
    assert result.returncode == 1
    assert result.stdout == ""
    assert result.stderr == "bad.py:6: error: Relu (relu) takes 1 input, got 2\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.py"]


def test_compile_error_leaves_an_existing_output_untouched(tmp_path):
    (tmp_path / "bad.py").write_text(BAD)
    (tmp_path / "out.pmb").write_bytes(b"old")
    result = run("compile", "bad.py", "-o", "out.pmb", cwd=tmp_path)
    assert result.returncode == 1
    assert (tmp_path / "out.pmb").read_bytes() == b"old"


def test_serialize_inside_the_compiled_file_does_not_write(tmp_path):
    (tmp_path / "eager.py").write_text(GOOD + "\nimport saturate.pypm as p\np.serialize('side.pmb')\n")
    result = run("compile", "eager.py", "-o", "out.pmb", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert not (tmp_path / "side.pmb").exists()
    assert (tmp_path / "out.pmb").exists()


def test_compile_missing_file(tmp_path):
    result = run("compile", "missing.py", "-o", "out.pmb", cwd=tmp_path)
    assert result.returncode == 1
    assert result.stderr.startswith("missing.py: error: cannot read")
    assert not (tmp_path / "out.pmb").exists()


def test_dump_of_a_broken_file(tmp_path):
    (tmp_path / "broken.pmb").write_bytes(b"SPMB\x01\x00\x00\x00\x05")
    result = run("dump", "broken.pmb", cwd=tmp_path)
    assert result.returncode == 1
    assert result.stderr.startswith("broken.pmb: error: offset 8: truncated")
    assert result.stderr.count("\n") == 1
