"""Every surface construct of PyPM compiles to the expected core-calculus objects."""
from saturate import pypm
from saturate.pypm.core import (ADD, AND, DIV, EQ, GE, GT, LE, LT, MOD, MUL, NE, OP, OR, SUB, TERM,
                                Alternate, EAttr, EBinary, EBool, EDim, EDtype, EFloat, EIn,
                                EInt, EInts, EList, ENeg, ENot, ENumel, EOpName, EProven, ERank, EShape,
                                EString, Guard, HeadName, HeadVar, Match, PAlt, PApp, PCall,
                                PConst, PVar, Rule, TApp, TConst, TVar, Var)

HEADER = "from saturate import pypm\nfrom saturate.pypm import *\n"


def app(op, *args, attrs=(), output=0):
    return PApp(HeadName(op), output, tuple(args), tuple(attrs))


def tapp(op, *args, attrs=(), output=0):
    return TApp(HeadName(op), output, tuple(args), tuple(attrs))


def only_alt(f, name=None):
    d = f.definitions[0] if name is None else next(d for d in f.definitions if d.name == name)
    assert len(d.alternates) == 1
    return d.alternates[0]


def test_application_variables_and_constants(compiler):
    f = compiler.core(HEADER + """
@pattern
def P(x, y):
    return MatMul(Transpose(x, perm=[1, 0]), Add(y, 2), activation="relu")
""")
    (d,) = f.definitions
    assert (d.name, d.line, d.nparams) == ("P", 5, 2)
    (alt,) = d.alternates
    assert alt.vars == (Var("x", TERM), Var("y", TERM))
    assert alt.body == app("matmul", app("transpose", PVar(0), attrs=[("perm", EInts((1, 0)))]),
                           app("add", PVar(1), PConst(2.0)),
                           attrs=[("activation", EString("relu"))])
    assert alt.constraints == ()
    assert f.source_file.endswith(".py") and "/" not in f.source_file


def test_attributes_are_coerced_to_their_kind_and_put_in_operator_order(compiler):
    alt = only_alt(compiler.core(HEADER + """
@pattern
def P(x):
    return LayerNorm(x, x, x, epsilon=1, axis=-1)
"""))
    assert alt.body.attrs == (("axis", EInt(-1)), ("epsilon", EFloat(1.0)))


def test_repeated_variable_is_nonlinear(compiler):
    alt = only_alt(compiler.core(HEADER + """
@pattern
def Square(x):
    return MatMul(x, x)
"""))
    assert alt.body == app("matmul", PVar(0), PVar(0))
    assert alt.vars == (Var("x", TERM),)


def test_alternates_are_kept_in_definition_order(compiler):
    f = compiler.core(HEADER + """
@pattern
def Half(x):
    return Div(x, 2.0)

@pattern
def Half(x):
    return Mul(x, 0.5)

@pattern
def User(x):
    return Relu(Half(x))
""")
    half, user = f.definitions
    assert [a.body for a in half.alternates] == [app("div", PVar(0), PConst(2.0)),
                                                 app("mul", PVar(0), PConst(0.5))]
    assert [a.line for a in half.alternates] == [5, 9]
    assert half.line == 5
    assert user.alternates[0].body == app("relu", PCall(0, (PVar(0),)))


def test_operator_variables_calls_and_recursion(compiler):
    f = compiler.core(HEADER + """
@pattern
def UnaryChain(x, f: pypm.Op):
    return f(UnaryChain(x, f))

@pattern
def UnaryChain(x, f: Op):
    return f(x)

@pattern
def ReluChain(x):
    return UnaryChain(x, Relu)

@pattern
def Named(y, g: Op):
    return UnaryChain(f=g, x=y)
""")
    chain, relu_chain, named = f.definitions
    a0, a1 = chain.alternates
    assert a0.vars == (Var("x", TERM), Var("f", OP))
    assert a0.body == PApp(HeadVar(1), 0, (PCall(0, (PVar(0), HeadVar(1))),), ())
    assert a1.body == PApp(HeadVar(1), 0, (PVar(0),), ())
    assert relu_chain.alternates[0].body == PCall(0, (PVar(0), HeadName("relu")))
    assert named.alternates[0].body == PCall(0, (PVar(0), HeadVar(1)))


def test_local_variables_and_match_constraints(compiler):
    alt = only_alt(compiler.core(HEADER + """
@pattern
def Tree(x, f: Op, g: Op):
    y, z = var(), var()
    assert x <= f(y, z)
    assert y <= g(z)
    return x
"""))
    assert alt.vars == (Var("x", TERM), Var("f", OP), Var("g", OP), Var("y", TERM),
                        Var("z", TERM))
    assert alt.body == PVar(0)
    assert alt.constraints == (
        Match(7, 0, PApp(HeadVar(1), 0, (PVar(3), PVar(4)), ())),
        Match(8, 3, PApp(HeadVar(2), 0, (PVar(4),), ())),
    )


def test_reflected_match_constraint_and_local_op_var(compiler):
    alt = only_alt(compiler.core(HEADER + """
@pattern
def P(x):
    h = op_var()
    a = var("leaf")
    assert h(a) >= x
    return x
"""))
    assert alt.vars == (Var("x", TERM), Var("h", OP), Var("leaf", TERM))
    assert alt.constraints == (Match(8, 0, PApp(HeadVar(1), 0, (PVar(2),), ())),)


def test_guard_expressions(compiler):
    alt = only_alt(compiler.core(HEADER + """
@pattern
def P(x, f: Op):
    assert x.shape.rank == 2
    assert x.shape[-1] % 8 == 0
    assert x.shape.numel > 1024 // 2
    assert x.dtype != "f64"
    assert x.op == "relu"
    assert x.attrs.perm == [1, 0]
    assert f.name in ("relu", "tanh")
    assert f.attrs.axis not in (0, 1)
    assert x.shape == [2, 3]
    assert -x.shape[0] + 1 < x.shape[1] * 2.5 - 1 / 2
    assert x.shape[0] >= 1 or not x.shape[1] <= 3
    return f(x)
"""))
    x, fv = 0, 1
    dims = [c.expr for c in alt.constraints]
    assert all(isinstance(c, Guard) for c in alt.constraints)
    assert [c.line for c in alt.constraints] == list(range(6, 17))
    assert dims == [
        EBinary(EQ, ERank(x), EInt(2)),
        EBinary(EQ, EBinary(MOD, EDim(x, EInt(-1)), EInt(8)), EInt(0)),
        EBinary(GT, ENumel(x), EInt(512)),
        EBinary(NE, EDtype(x), EString("f64")),
        EBinary(EQ, EOpName(x), EString("relu")),
        EBinary(EQ, EAttr(x, "perm"), EInts((1, 0))),
        EIn(EOpName(fv), (EString("relu"), EString("tanh"))),
        ENot(EIn(EAttr(fv, "axis"), (EInt(0), EInt(1)))),
        EBinary(EQ, EShape(x), EInts((2, 3))),
        EBinary(LT, EBinary(ADD, ENeg(EDim(x, EInt(0))), EInt(1)),
                EBinary(SUB, EBinary(MUL, EDim(x, EInt(1)), EFloat(2.5)), EFloat(0.5))),
        EBinary(OR, EBinary(GE, EDim(x, EInt(0)), EInt(1)),
                ENot(EBinary(LE, EDim(x, EInt(1)), EInt(3)))),
    ]


def test_assert_and_splits_and_chained_comparisons(compiler):
    alt = only_alt(compiler.core(HEADER + """
@pattern
def P(x, y):
    assert x.shape.rank == 2 and y.shape.rank == 2 and 1 <= x.shape[0] < y.shape[0] <= 64
    return Add(x, y)
"""))
    r0, r1 = ERank(0), ERank(1)
    d0, d1 = EDim(0, EInt(0)), EDim(1, EInt(0))
    assert alt.constraints == (
        Guard(6, EBinary(EQ, r0, EInt(2))),
        Guard(6, EBinary(EQ, r1, EInt(2))),
        Guard(6, EBinary(AND, EBinary(AND, EBinary(GE, d0, EInt(1)), EBinary(LT, d0, d1)),
                         EBinary(LE, d1, EInt(64)))),
    )


def test_concrete_conditions_run_as_python(compiler):
    alt = only_alt(compiler.core(HEADER + """
LIMIT = 3

@pattern
def P(x):
    assert LIMIT > 2 and not LIMIT in (1, 2)  # concrete: no guard
    perm = [1, 0] if LIMIT == 3 else [0, 1]
    if LIMIT < 0:
        return Relu(x)
    return Transpose(x, perm=perm)
"""))
    assert alt.constraints == ()
    assert alt.body == app("transpose", PVar(0), attrs=[("perm", EInts((1, 0)))])


def test_concrete_false_assert_is_a_false_guard(compiler):
    alt = only_alt(compiler.core(HEADER + """
@pattern
def P(x):
    assert 1 > 2
    return Relu(x)
"""))
    assert alt.constraints == (Guard(6, EBool(False)),)


def test_if_else_paths_become_alternates_in_source_order(compiler):
    (d,) = compiler.core(HEADER + """
@pattern
def P(x):
    if x.shape.rank == 2:
        y = Relu(x)
    elif x.shape.rank == 3:
        assert x.shape[0] == 1
        y = Tanh(x)
    else:
        y = Sigmoid(x)
    return Exp(y)
""").definitions
    cond1 = EBinary(EQ, ERank(0), EInt(2))
    cond2 = EBinary(EQ, ERank(0), EInt(3))
    assert [a.body for a in d.alternates] == [app("exp", app(op, PVar(0)))
                                              for op in ("relu", "tanh", "sigmoid")]
    assert [a.constraints for a in d.alternates] == [
        (Guard(6, cond1),),
        (Guard(6, ENot(cond1)), Guard(8, cond2), Guard(9, EBinary(EQ, EDim(0, EInt(0)),
                                                                   EInt(1)))),
        (Guard(6, ENot(cond1)), Guard(8, ENot(cond2))),
    ]
    assert all(a.line == 5 for a in d.alternates)


def test_if_expression_and_paths_across_alternates(compiler):
    f = compiler.core(HEADER + """
@pattern
def P(x):
    return Relu(x) if x.dtype == "f32" else Tanh(x)

@pattern
def P(x):
    return Exp(x)
""")
    (d,) = f.definitions
    assert [a.body for a in d.alternates] == [app("relu", PVar(0)), app("tanh", PVar(0)),
                                              app("exp", PVar(0))]
    assert [len(a.constraints) for a in d.alternates] == [1, 1, 0]


def test_nested_ifs_enumerate_every_path(compiler):
    (d,) = compiler.core(HEADER + """
@pattern
def P(x, y):
    a = x
    if x.shape.rank == 1:
        a = Relu(a)
    if y.shape.rank == 1:
        a = Tanh(a)
    return Add(a, y)
""").definitions
    assert [a.body.args[0] for a in d.alternates] == [
        app("tanh", app("relu", PVar(0))), app("relu", PVar(0)), app("tanh", PVar(0)), PVar(0)]


def test_inline_choice(compiler):
    alt = only_alt(compiler.core(HEADER + """
@pattern
def P(x):
    return Div(x, 2.0) | Mul(x, 0.5) | Mul(0.5, x)
"""))
    assert alt.body == PAlt((app("div", PVar(0), PConst(2.0)), app("mul", PVar(0), PConst(0.5)),
                             app("mul", PConst(0.5), PVar(0))))


def test_output_index(compiler):
    alt = only_alt(compiler.core(HEADER + """
@pattern
def P(x):
    return Relu(Split(x, axis=0, sizes=[2, 2])[1])
"""))
    assert alt.body == app("relu", app("split", PVar(0), output=1,
                                       attrs=[("axis", EInt(0)), ("sizes", EInts((2, 2)))]))


def test_shared_subpattern_is_one_value(compiler):
    alt = only_alt(compiler.core(HEADER + """
@pattern
def P(x):
    d = Sub(x, ReduceMean(x, axes=[-1]))
    return Div(d, Sqrt(Mul(d, d)))
"""))
    assert alt.vars == (Var("x", TERM), Var("d", TERM))
    assert alt.body == app("div", PVar(1), app("sqrt", app("mul", PVar(1), PVar(1))))
    assert alt.constraints == (
        Match(6, 1, app("sub", PVar(0), app("reduce_mean", PVar(0),
                                            attrs=[("axes", EInts((-1,)))]))),
    )


def test_shared_subpatterns_nest_and_come_before_user_constraints(compiler):
    alt = only_alt(compiler.core(HEADER + """
@pattern
def P(x, y):
    inner = Relu(x)
    outer = Add(inner, inner)
    assert x.shape.rank == 2
    assert y <= Mul(outer, outer)
    return Add(outer, y)
"""))
    # outer: var 2, inner: var 3.
    assert alt.vars == (Var("x", TERM), Var("y", TERM), Var("outer", TERM), Var("inner", TERM))
    assert alt.body == app("add", PVar(2), PVar(1))
    assert alt.constraints == (
        Match(7, 2, app("add", PVar(3), PVar(3))),
        Match(6, 3, app("relu", PVar(0))),
        Guard(8, EBinary(EQ, ERank(0), EInt(2))),
        Match(9, 1, app("mul", PVar(2), PVar(2))),
    )


def test_repeated_expression_is_two_subpatterns(compiler):
    alt = only_alt(compiler.core(HEADER + """
@pattern
def P(x):
    return Mul(Relu(x), Relu(x))
"""))
    assert alt.body == app("mul", app("relu", PVar(0)), app("relu", PVar(0)))
    assert len(alt.vars) == 1


def test_helpers_and_loops_run_as_python(compiler):
    alt = only_alt(compiler.core(HEADER + """
def twice(op, v):
    return op(op(v))

@pattern
def P(x, f: Op):
    def inner(v):
        assert x.shape.rank > 0
        return f(v)
    y = x
    for _ in range(2):
        y = inner(y)
    return twice(Relu, [y][0])
"""))
    assert alt.body == app("relu", app("relu", PApp(HeadVar(1), 0, (PApp(
        HeadVar(1), 0, (PVar(0),), ()),), ())))
    assert alt.constraints == (Guard(10, EBinary(GT, ERank(0), EInt(0))),) * 2


def test_operator_variable_with_attributes(compiler):
    alt = only_alt(compiler.core(HEADER + """
@pattern
def P(x, f: Op):
    return f(x, axis=1)
"""))
    assert alt.body == PApp(HeadVar(1), 0, (PVar(0),), (("axis", EInt(1)),))


def test_unnamed_and_colliding_local_names_are_made_unique(compiler):
    alt = only_alt(compiler.core(HEADER + """
@pattern
def P(x):
    vs = [var() for _ in range(2)]
    a = var("x")
    assert x <= Add(vs[0], vs[1])
    assert vs[0] <= Relu(a)
    return x
"""))
    assert [v.name for v in alt.vars] == ["x", "_v", "_v_2", "x_2"]


def test_rules(compiler):
    f = compiler.core(HEADER + """
@pattern
def P(x, y, f: Op, s):
    return f(MatMul(x, y), s)

@rule(P)
def swap(y, x, s, f):
    assert s.op == "constant"
    return f(Transpose(MatMul(y, x), perm=[1, 0]), Mul(s, 2), axis=x.shape.rank - 1)

@rule("P")
def keep(x):
    return x
""")
    swap, keep = f.rules
    assert swap == Rule("swap", 0, 9, (1, 0, 3, 2), (EBinary(EQ, EOpName(2), EString("constant")),),
                        TApp(HeadVar(3), 0, (
                            tapp("transpose", tapp("matmul", TVar(0), TVar(1)),
                                 attrs=[("perm", EInts((1, 0)))]),
                            tapp("mul", TVar(2), TConst(2.0))),
                            (("axis", EBinary(SUB, ERank(1), EInt(1))),)))
    assert keep == Rule("keep", 0, 14, (0,), (), TVar(0))


def test_rule_with_if_becomes_rules_in_order(compiler):
    f = compiler.core(HEADER + """
@pattern
def P(x):
    return Relu(Relu(x))

@rule(P)
def r(x):
    if x.shape.rank == 2:
        return Relu(x)
    return Clip(x, min=0, max=1e30)
""")
    first, second = f.rules
    cond = EBinary(EQ, ERank(0), EInt(2))
    assert (first.name, first.guards, first.replacement) == ("r", (cond,),
                                                             tapp("relu", TVar(0)))
    assert second.guards == (ENot(cond),)
    assert second.replacement == tapp("clip", TVar(0),
                                      attrs=[("min", EFloat(0.0)), ("max", EFloat(1e30))])


def test_proven_makes_both_paths_of_an_if_decided(compiler):
    f = compiler.core(HEADER + """
@pattern
def P(x, y):
    return Add(x, y)

@rule(P)
def r(x, y):
    if pypm.proven(x.shape[0] == y.shape[0]):
        return Relu(x)
    return Relu(y)
""")
    first, second = f.rules
    cond = EProven(EBinary(EQ, EDim(0, EInt(0)), EDim(1, EInt(0))))
    assert first.guards == (cond,) and second.guards == (ENot(cond),)
    assert (first.replacement, second.replacement) == (tapp("relu", TVar(0)), tapp("relu", TVar(1)))
    assert pypm.core.format_expr(cond, ["x", "y"]) == "proven(x.shape[0] == y.shape[0])"


def test_a_list_of_dims_is_a_shape_attribute(compiler):
    f = compiler.core(HEADER + """
@pattern
def P(x):
    return Relu(x)

@rule(P)
def r(x):
    return Reshape(Relu(x), shape=[x.shape[0] * x.shape[1], -1])
""")
    (r,) = f.rules
    shape = dict(r.replacement.attrs)["shape"]
    assert shape == EList((EBinary(MUL, EDim(0, EInt(0)), EDim(0, EInt(1))), EInt(-1)))
    assert pypm.core.format_expr(shape, ["x"]) == "[x.shape[0] * x.shape[1], -1]"
    error = compiler.error(HEADER + """
@pattern
def P(x):
    return Relu(x)

@rule(P)
def r(x):
    return Reshape(Relu(x), shape=[x.shape[0], x.dtype])
""")
    assert "holds ints" in str(error)


def test_proven_of_a_python_value_is_bool_and_of_a_number_an_error(compiler):
    assert pypm.proven(3 == 3) is True and pypm.proven([]) is False
    error = compiler.error(HEADER + """
@pattern
def P(x):
    assert pypm.proven(x.shape[0])
    return Relu(x)
""")
    assert "pypm.proven()" in str(error)


def test_rule_attribute_from_guard_expression(compiler):
    f = compiler.core(HEADER + """
@pattern
def P(x, eps):
    return Add(x, eps)

@rule(P)
def r(x, eps):
    return LayerNorm(x, x, x, epsilon=eps.attrs.value / 2)
""")
    (r,) = f.rules
    assert r.replacement.attrs == (("epsilon", EBinary(DIV, EAttr(1, "value"), EInt(2))),)


def test_trans_alias_and_every_constructor_exists():
    assert pypm.Trans.info is pypm.Transpose.info
    for name in ["MatMul", "Conv2d", "EwAdd", "EwMul", "ReduceMean", "LayerNorm", "PoolMax",
                 "PoolAvg", "Attention", "BatchNorm", "Softmax", "Concat", "Split", "Gelu"]:
        assert hasattr(pypm, name)
    assert pypm.ReduceMean.info.name == "reduce_mean"
    assert pypm.Attention.info.attr("scale").default == 1.0


def test_variadic_concat(compiler):
    alt = only_alt(compiler.core(HEADER + """
@pattern
def P(a, b, c):
    return Concat(a, b, c, axis=1)
"""))
    assert alt.body == app("concat", PVar(0), PVar(1), PVar(2), attrs=[("axis", EInt(1))])


def test_serialize_in_process_registers_in_order(tmp_path):
    from saturate.pypm import Relu, pattern, rule

    @pattern
    def Twice(x):
        return Relu(Relu(x))

    @rule(Twice)
    def once(x):
        return Relu(x)

    path = tmp_path / "in_process.pmb"
    data = pypm.serialize(str(path))
    assert path.read_bytes() == data
    f = pypm.from_bytes(data)
    assert f.source_file == "test_pypm_constructs.py"
    assert [d.name for d in f.definitions] == ["Twice"]
    assert f.rules[0].replacement == tapp("relu", TVar(0))


def test_closures_are_visible(tmp_path):
    from saturate.pypm import Add, pattern

    k = 3.0

    @pattern
    def Inner(x):
        return Add(x, k)

    @pattern
    def Outer(x):
        return Inner(Inner(x))

    f = pypm.build_core()
    assert f.definitions[0].alternates[0].body == app("add", PVar(0), PConst(3.0))
    assert f.definitions[1].alternates[0].body == PCall(0, (PCall(0, (PVar(0),)),))


def test_alternate_dataclass_shape():
    # vars[0..nparams) are the parameters; the core objects are hashable values.
    a = Alternate(1, (Var("x", TERM),), PVar(0), ())
    assert hash(a) == hash(Alternate(1, (Var("x", TERM),), PVar(0), ()))


def test_postponed_annotations(compiler):
    f = compiler.core("""
from __future__ import annotations
from saturate import pypm
from saturate.pypm import Op, pattern

@pattern
def P(x, f: Op, g: pypm.Op):
    return f(g(x))
""")
    assert [v.kind for v in f.definitions[0].alternates[0].vars] == [TERM, OP, OP]


def test_empty_registry_serializes_to_an_empty_file():
    f = pypm.from_bytes(pypm.serialize())
    assert (f.definitions, f.rules) == ((), ())


def test_forward_reference_to_a_later_pattern(compiler):
    f = compiler.core(HEADER + """
@pattern
def First(x):
    return Relu(Later(x))

@pattern
def Later(x):
    return Tanh(x)
""")
    assert f.definitions[0].alternates[0].body == app("relu", PCall(1, (PVar(0),)))


def test_a_rewritten_file_is_read_again(compiler):
    first = compiler.core(HEADER + "@pattern\ndef P(x):\n    return Relu(x)\n", "same.py")
    second = compiler.core(HEADER + "@pattern\ndef P(x):\n    return Tanh(x)\n", "same.py")
    assert first.definitions[0].alternates[0].body == app("relu", PVar(0))
    assert second.definitions[0].alternates[0].body == app("tanh", PVar(0))
