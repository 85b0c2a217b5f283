"""Every file in examples/pypm compiles, to the core calculus its comments describe."""
import pathlib

import pytest

from saturate import pypm
from saturate.pypm import reader
from saturate.pypm.core import (EQ, OP, TERM, EAttr, EBinary, EIn, EInt, EInts, ENumel,
                                EOpName, ERank, EString, Guard, HeadName, HeadVar, Match, PApp,
                                PCall, PConst, PVar, TApp, TVar, Var)

EXAMPLES = pathlib.Path(__file__).resolve().parents[3] / "examples" / "pypm"


def load(name):
    return reader.from_bytes(pypm.compile_file(str(EXAMPLES / name)))


def app(op, *args, attrs=()):
    return PApp(HeadName(op), 0, tuple(args), tuple(attrs))


def test_all_examples_are_covered():
    names = sorted(p.name for p in EXAMPLES.glob("*.py"))
    assert names == ["attention.py", "binary_unary_tree.py", "gelu.py", "layernorm.py",
                     "phase_ordering.py", "shipped.py", "transpose_matmul.py",
                     "unary_chain.py"]


@pytest.mark.parametrize("example", sorted(EXAMPLES.glob("*.py")), ids=lambda p: p.name)
def test_example_compiles(example, tmp_path):
    out = tmp_path / "out.pmb"
    data = pypm.compile_file(str(example), str(out))
    assert out.read_bytes() == data
    assert reader.from_bytes(data).definitions


def test_gelu():
    f = load("gelu.py")
    half, one_plus, gelu = f.definitions
    assert half.name == "Half" and one_plus.name == "OnePlus"
    assert [a.body for a in half.alternates] == [app("div", PVar(0), PConst(2.0)),
                                                 app("mul", PVar(0), PConst(0.5))]
    assert [a.body for a in one_plus.alternates] == [app("add", PConst(1.0), PVar(0)),
                                                     app("add", PVar(0), PConst(1.0))]
    erf = PCall(1, (app("erf", app("div", PVar(0), PConst(2 ** 0.5))),))
    assert [a.body for a in gelu.alternates] == [app("mul", PCall(0, (PVar(0),)), erf),
                                                 app("mul", erf, PCall(0, (PVar(0),)))]
    (rule,) = f.rules
    assert (rule.definition, rule.params, rule.guards) == (2, (0,), ())
    assert rule.replacement == TApp(HeadName("gelu"), 0, (TVar(0),), ())


def test_unary_chain():
    f = load("unary_chain.py")
    chain, repeated = f.definitions
    assert [a.body for a in chain.alternates] == [
        PApp(HeadVar(1), 0, (PCall(0, (PVar(0), HeadVar(1))),), ()),
        PApp(HeadVar(1), 0, (PVar(0),), ()),
    ]
    assert chain.alternates[0].vars == (Var("x", TERM), Var("f", OP))
    assert repeated.alternates[0].body == chain.alternates[0].body
    (rule,) = f.rules
    assert rule.definition == 1 and rule.params == (0, 1)
    assert rule.guards == (EIn(EOpName(1), (EString("relu"),)),)
    assert rule.replacement == TApp(HeadVar(1), 0, (TVar(0),), ())


def test_transpose_matmul():
    f = load("transpose_matmul.py")
    (alt,) = f.definitions[0].alternates
    perm = (("perm", EInts((1, 0))),)
    assert alt.body == app("matmul", app("transpose", PVar(0), attrs=perm),
                           app("transpose", PVar(1), attrs=perm),
                           attrs=[("activation", EString("none"))])
    assert [c.expr for c in alt.constraints] == [EBinary(EQ, ERank(0), EInt(2)),
                                                 EBinary(EQ, ERank(1), EInt(2))]
    (rule,) = f.rules
    assert rule.replacement == TApp(HeadName("transpose"), 0, (
        TApp(HeadName("matmul"), 0, (TVar(1), TVar(0)), ()),), perm)


def test_binary_unary_tree():
    f = load("binary_unary_tree.py")
    (tree,) = f.definitions
    assert f.rules == ()
    assert len(tree.alternates) == 5
    for alt in tree.alternates:
        assert alt.vars[:3] == (Var("x", TERM), Var("f", OP), Var("g", OP))
        assert alt.body == PVar(0)
        (match,) = alt.constraints
        assert isinstance(match, Match) and match.var == 0
    first = tree.alternates[0].constraints[0].pattern
    assert first == PApp(HeadVar(1), 0, (PCall(0, (PVar(3), HeadVar(1), HeadVar(2))),
                                         PCall(0, (PVar(4), HeadVar(1), HeadVar(2)))), ())
    base = tree.alternates[-1].constraints[0].pattern
    assert base == PApp(HeadVar(1), 0, (PApp(HeadVar(2), 0, (PVar(3),), ()),
                                        PApp(HeadVar(2), 0, (PVar(4),), ())), ())


def test_attention():
    f = load("attention.py")
    (alt,) = f.definitions[0].alternates
    none = [("activation", EString("none"))]
    q, k, v, s = (PVar(i) for i in range(4))
    assert alt.body == app("matmul", app("softmax", app("div", app("matmul", q, k, attrs=none),
                                                        s), attrs=[("axis", EInt(-1))]),
                           v, attrs=none)
    assert [c.expr for c in alt.constraints] == [EBinary(EQ, EOpName(3), EString("constant")),
                                                 EBinary(EQ, ENumel(3), EInt(1))]
    (rule,) = f.rules
    assert rule.replacement == TApp(HeadName("attention"), 0, (TVar(0), TVar(1), TVar(2)),
                                    (("scale", EAttr(3, "value")),))


def test_layernorm():
    f = load("layernorm.py")
    mean_square, norm = f.definitions
    mean = [("axes", EInts((-1,))), ("keepdims", EInt(1))]
    assert [a.body for a in mean_square.alternates] == [
        app("reduce_mean", app("mul", PVar(0), PVar(0)), attrs=mean),
        app("reduce_mean", app("pow", PVar(0), PConst(2.0)), attrs=mean),
    ]
    (alt,) = norm.alternates
    x, scale, bias, eps, d = (PVar(i) for i in range(5))
    assert alt.vars[4] == Var("d", TERM)
    assert alt.body == app("add", app("mul", app("div", d, app("sqrt", app(
        "add", PCall(0, (d,)), eps))), scale), bias)
    match, *guards = alt.constraints
    assert match == Match(match.line, 4, app("sub", x, app("reduce_mean", x, attrs=mean)))
    assert all(isinstance(g, Guard) for g in guards) and len(guards) == 2
    (rule,) = f.rules
    assert len(rule.guards) == 4
    assert rule.replacement == TApp(HeadName("layernorm"), 0, (TVar(0), TVar(1), TVar(2)),
                                    (("epsilon", EAttr(3, "value")),))
