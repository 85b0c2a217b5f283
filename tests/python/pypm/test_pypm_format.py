"""The .pmb v1 writer: exact bytes, round trips, determinism and the reader's checks."""
import os
import pathlib
import struct
import subprocess
import sys

import pytest

from saturate import pypm
from saturate.pypm import core, reader
from saturate.pypm.serialize import to_bytes

REPO = pathlib.Path(__file__).resolve().parents[3]
EXAMPLES = sorted((REPO / "examples" / "pypm").glob("*.py"))

PINNED = """
from saturate.pypm import *

@pattern
def P(x):
    assert x.shape.rank == 2
    return Relu(x)

@rule(P)
def r(x):
    return Tanh(x)
"""

RICH = """
from saturate import pypm
from saturate.pypm import *

@pattern
def Chain(x, f: Op):
    return f(Chain(x, f))

@pattern
def Chain(x, f: Op):
    return f(x)

@pattern
def Everything(x, y, s, g: Op):
    h = op_var()
    z = var()
    d = Sub(x, y)
    assert x <= h(z)
    assert s.op == "constant" and s.attrs.value > 0.5 and s.dtype in ("f32", "f64")
    if x.shape.rank == 2:
        assert -x.shape[-1] // 2 % 3 != 1 or not x.shape.numel <= 1024
        body = Mul(d, d) | Div(d, Chain(y, Relu))
    else:
        assert x.shape == [1, 2] and x.attrs.perm not in ([1, 0],)
        body = Split(d, axis=0, sizes=[1, 1])[1]
    return g(body, Add(s, 2.5), axis=1)

@rule(Everything)
def rewrite(x, s, g):
    assert s.attrs.value * 2 >= 1 and g.name == "concat"
    return g(Transpose(x, perm=[1, 0]), Mul(s, 0.5), axis=x.shape.rank - 1)
"""


def u32(v):
    return struct.pack("<I", v)


def test_bytes_are_exactly_the_documented_format(compiler):
    path = compiler.write(PINNED, "pinned.py")
    data = pypm.compile_file(str(path))
    strings = [b"pinned.py", b"P", b"x", b"relu", b"r", b"tanh"]
    expected = b"SPMB" + struct.pack("<HH", 1, 0) + u32(len(strings))
    for s in strings:
        expected += u32(len(s)) + s
    expected += u32(0)  # source_file
    expected += u32(1)  # ndefs
    expected += u32(1) + u32(4) + u32(1) + u32(1)  # name P, line 4, nparams 1, nalts 1
    expected += u32(4) + u32(1) + u32(2) + b"\x00"  # alt line 4, nvars 1, x term
    expected += b"\x01" + b"\x00" + u32(3) + u32(0) + u32(1)  # APP NAME relu, output 0, 1 arg
    expected += b"\x00" + u32(0) + u32(0)  # VAR x; nattrs 0
    expected += u32(1) + b"\x00" + u32(5)  # 1 constraint: GUARD at line 5
    expected += b"\x16\x06" + b"\x0a" + u32(0) + b"\x00" + struct.pack("<q", 2)  # rank(x) == 2
    expected += u32(1)  # nrules
    expected += u32(4) + u32(0) + u32(9) + u32(1) + u32(0) + u32(0)  # r, def 0, line 9, [0], 0
    expected += b"\x01" + b"\x00" + u32(5) + u32(0) + u32(1) + b"\x00" + u32(0) + u32(0)
    assert data == expected


@pytest.mark.parametrize("source", [PINNED, RICH], ids=["pinned", "rich"])
def test_round_trip(source, compiler):
    path = compiler.write(source)
    exec(compile(path.read_text(), str(path), "exec"), {"__name__": "patterns"})
    built = pypm.build_core()
    data = to_bytes(built)
    assert reader.from_bytes(data) == built
    assert to_bytes(reader.from_bytes(data)) == data


def test_rich_file_uses_every_tag(compiler):
    data = pypm.compile_file(str(compiler.write(RICH)))
    f = reader.from_bytes(data)
    text = core.format_file(f)
    for needle in ["||", "[1]", "Chain(y, relu)", "h(z)", "match", "s.attrs.value", "g.name",
                   "x.shape.numel", "not", "//", "%", "-x.shape[-1]", "in ('f32', 'f64')",
                   "x.shape == [1, 2]", "2.5", "Op"]:
        assert needle in text, (needle, text)


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.name)
def test_examples_round_trip(example):
    data = pypm.compile_file(str(example))
    f = reader.from_bytes(data)
    assert to_bytes(f) == data
    assert f.source_file == example.name


def test_bytes_are_deterministic(compiler, tmp_path):
    first = pypm.compile_file(str(compiler.write(RICH, "same.py")))
    again = pypm.compile_file(str(compiler.write(RICH, "same.py")))
    assert first == again
    other_dir = tmp_path / "elsewhere"
    other_dir.mkdir()
    (other_dir / "same.py").write_text((tmp_path / "same.py").read_text())
    assert pypm.compile_file(str(other_dir / "same.py")) == first


def test_bytes_do_not_depend_on_the_hash_seed(compiler, tmp_path):
    path = compiler.write(RICH, "seeded.py")
    outputs = []
    for seed in ("1", "12345"):
        out = tmp_path / f"seed{seed}.pmb"
        env = dict(os.environ, PYTHONHASHSEED=seed, PYTHONPATH=str(REPO / "python"))
        subprocess.run([sys.executable, "-m", "saturate.pypm", "compile", str(path), "-o",
                        str(out)], check=True, env=env, cwd=tmp_path)
        outputs.append(out.read_bytes())
    assert outputs[0] == outputs[1] == pypm.compile_file(str(path))


def test_examples_run_as_scripts(tmp_path):
    for example in EXAMPLES:
        out = tmp_path / (example.stem + ".pmb")
        env = dict(os.environ, PYTHONPATH=str(REPO / "python"))
        subprocess.run([sys.executable, str(example), str(out)], check=True, env=env,
                       cwd=tmp_path)
        assert out.read_bytes() == pypm.compile_file(str(example))


# ---- the reader's checks ------------------------------------------------------------------------
@pytest.fixture
def pinned_bytes(compiler):
    return pypm.compile_file(str(compiler.write(PINNED, "pinned.py")))


def test_every_truncation_is_an_error(pinned_bytes):
    for n in range(len(pinned_bytes)):
        with pytest.raises(reader.FormatError):
            reader.from_bytes(pinned_bytes[:n])


def test_trailing_bytes(pinned_bytes):
    with pytest.raises(reader.FormatError, match="trailing"):
        reader.from_bytes(pinned_bytes + b"\x00")


def test_bad_magic_version_and_flags(pinned_bytes):
    with pytest.raises(reader.FormatError, match="magic"):
        reader.from_bytes(b"XPMB" + pinned_bytes[4:])
    with pytest.raises(reader.FormatError, match="version 3"):
        reader.from_bytes(pinned_bytes[:4] + struct.pack("<H", 3) + pinned_bytes[6:])
    with pytest.raises(reader.FormatError, match="flags"):
        reader.from_bytes(pinned_bytes[:6] + struct.pack("<H", 1) + pinned_bytes[8:])


def test_string_index_out_of_range_names_the_offset(pinned_bytes):
    strings_end = 12 + sum(4 + len(s) for s in [b"pinned.py", b"P", b"x", b"relu", b"r",
                                                 b"tanh"])
    bad = pinned_bytes[:strings_end] + u32(99) + pinned_bytes[strings_end + 4:]
    with pytest.raises(reader.FormatError) as info:
        reader.from_bytes(bad)
    assert info.value.offset == strings_end
    assert "string index 99" in str(info.value)


def test_wrong_variable_kind_is_rejected():
    f = core.PatternFile("f.py", (core.Definition("P", 1, 1, (core.Alternate(
        1, (core.Var("x", core.TERM),), core.PApp(core.HeadVar(0), 0, (), ()), ()),)),), ())
    with pytest.raises(reader.FormatError, match="must be an operator variable"):
        reader.from_bytes(to_bytes(f))


def test_call_arity_is_checked():
    alt = core.Alternate(1, (core.Var("x", core.TERM),), core.PCall(0, ()), ())
    f = core.PatternFile("f.py", (core.Definition("P", 1, 1, (alt,)),), ())
    with pytest.raises(reader.FormatError, match="call of P with 0 arguments"):
        reader.from_bytes(to_bytes(f))
