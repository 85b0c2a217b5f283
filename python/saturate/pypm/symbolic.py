"""Symbolic values: what pattern and rule bodies compute with while ``serialize`` runs them.

A *tracer* is active while one path of one body runs. Term variables, operator variables,
operator applications, calls and inline choices build a tree of symbolic nodes (lowered to the
core calculus afterwards, see ``compiler.py``); ``x.shape.rank``, ``x.attrs.perm``, ``f.name`` and
arithmetic, comparisons, ``and``/``or``/``not``/``in`` build core expressions directly. The
AST transformation (``transform.py``) turns ``assert``, ``if``, ``and``/``or``/``not``, ``in`` and
chained comparisons into calls of ``RUNTIME`` (bound to ``__pypm__`` in the transformed code).
"""
from __future__ import annotations

import contextlib
import operator as _operator
from typing import Any, Iterator, Optional

from . import core
from .errors import PyPMError, user_location
from .operator_info import (ACTIVATION, ACTIVATIONS, ATTRIBUTE_KINDS, FLOAT, INT, INTS, PADDING,
                            PADDINGS, STRING, AttrInfo, OpInfo)

PATTERN = "pattern"
RULE = "rule"

MAX_DECISIONS_PER_PATH = 256
_I64_MIN, _I64_MAX = -(2**63), 2**63 - 1


class Op:
    """Annotation for an operator-variable parameter: ``def P(x, f: pypm.Op)``."""

    def __init__(self):
        raise PyPMError("pypm.Op is an annotation (def P(x, f: pypm.Op)); use op_var() for a "
                        "local operator variable")


# ---- the active tracer ------------------------------------------------------------------------
class Tracer:
    """State of one path through one pattern or rule body."""

    def __init__(self, mode: str, owner: str, decisions: Optional[list[bool]] = None):
        self.mode = mode
        self.owner = owner  # "pattern P" / "rule r", for messages
        self.vars: list[Symbol] = []
        # ("guard", core expr, line) | ("match", TermVar, node-or-var, line)
        self.constraints: list[tuple] = []
        self.decisions: list[bool] = list(decisions or [])
        self.pos = 0

    def new_var(self, cls, name: Optional[str], param: bool, line: Optional[int],
                filename: Optional[str]) -> "Symbol":
        v = cls(self, len(self.vars), name, param, line, filename)
        self.vars.append(v)
        return v

    def decide(self) -> bool:
        if self.pos < len(self.decisions):
            d = self.decisions[self.pos]
        else:
            if len(self.decisions) >= MAX_DECISIONS_PER_PATH:
                raise PyPMError(f"more than {MAX_DECISIONS_PER_PATH} symbolic branches on one "
                                "path (a loop on a symbolic condition?)")
            d = True
            self.decisions.append(d)
        self.pos += 1
        return d


_current: Optional[Tracer] = None


@contextlib.contextmanager
def tracing(tracer: Tracer) -> Iterator[Tracer]:
    global _current
    saved = _current
    _current = tracer
    try:
        yield tracer
    finally:
        _current = saved


def current() -> Optional[Tracer]:
    return _current


def _require(what: str, mode: Optional[str] = None) -> Tracer:
    t = _current
    if t is None:
        raise PyPMError(f"{what} can only be used inside a @pattern or @rule body "
                        "(pypm.serialize() runs them)")
    if mode is not None and t.mode != mode:
        if mode == PATTERN:
            raise PyPMError(f"{what} cannot be used in a rule ({t.owner}); a rule only builds "
                            "operators from the pattern's parameters")
        raise PyPMError(f"{what} can only be used in a rule")
    return t


# ---- variables --------------------------------------------------------------------------------
class Symbol:
    __slots__ = ("_tracer", "_index", "_name", "_param", "_line", "_file")

    def __init__(self, tracer, index, name, param, line, filename):
        self._tracer = tracer
        self._index = index
        self._name = name
        self._param = param
        self._line = line
        self._file = filename

    def _display(self) -> str:
        return self._name or "var()"

    def _idx(self) -> int:
        t = _current
        if t is None or self._tracer is not t:
            owner = self._tracer.owner
            if t is not None and t.mode == RULE and self._tracer.mode == PATTERN:
                raise PyPMError(f"the rule uses '{self._display()}', a variable of {owner}; a "
                                "rule can only use its own parameters (a subset of the "
                                "pattern's parameters)")
            raise PyPMError(f"variable '{self._display()}' belongs to {owner} and cannot be "
                            "used here")
        return self._index

    def __hash__(self):
        return id(self)

    def __bool__(self):
        raise PyPMError(f"'{self._display()}' is a pattern variable, not a condition")

    def __iter__(self):
        raise PyPMError(f"'{self._display()}' is a pattern variable and cannot be iterated")

    @property
    def attrs(self) -> "Attrs":
        self._idx()
        return Attrs(self)

    def __getattr__(self, name: str):
        if name.startswith("__"):
            raise AttributeError(name)
        raise PyPMError(self._unknown_property(name))

    def _unknown_property(self, name: str) -> str:
        raise NotImplementedError  # each kind of variable names what it has


class Attrs:
    """``x.attrs.name``: an attribute of the node producing ``x`` (or of op variable ``f``)."""

    __slots__ = ("_var",)

    def __init__(self, var: Symbol):
        self._var = var

    def __getattr__(self, name: str) -> "Expr":
        if name.startswith("__"):
            raise AttributeError(name)
        return self[name]

    def __getitem__(self, name: str) -> "Expr":
        if not isinstance(name, str):
            raise PyPMError("attribute names are strings: x.attrs.perm or x.attrs['perm']")
        if name not in ATTRIBUTE_KINDS:
            raise PyPMError(f"unknown attribute '{name}': no operator has it (known: "
                            + ", ".join(sorted(ATTRIBUTE_KINDS)) + ")")
        return Expr(core.EAttr(self._var._idx(), name))


class TermVar(Symbol):
    """A term variable: binds to one value of the graph."""

    __slots__ = ()

    @property
    def shape(self) -> "Shape":
        return Shape(self)

    @property
    def dtype(self) -> "Expr":
        return Expr(core.EDtype(self._idx()))

    @property
    def op(self) -> "Expr":
        return Expr(core.EOpName(self._idx()))

    def _unknown_property(self, name: str) -> str:
        if name == "name":
            return (f"'{self._display()}' is a term variable: use "
                    f"{self._display()}.op for the producing operator's name")
        return (f"term variable '{self._display()}' has no property '{name}' (use "
                "shape, dtype, op or attrs)")

    def __le__(self, pattern) -> "MatchConstraint":
        _require("a match constraint (x <= p)", PATTERN)
        self._idx()
        p = to_value(pattern, "the right side of a match constraint")
        return MatchConstraint(self, p)

    def __eq__(self, other):
        raise PyPMError(f"'{self._display()}' is a graph value: it cannot be compared with ==; "
                        "use a match constraint (x <= p) or repeat the variable in the pattern")

    __ne__ = __eq__
    __hash__ = Symbol.__hash__

    def __lt__(self, other):
        raise PyPMError("only `x <= p` (a match constraint) applies to a graph value")

    __gt__ = __ge__ = __lt__

    def __call__(self, *args, **kwargs):
        raise PyPMError(f"term variable '{self._display()}' used as an operator: annotate the "
                        "parameter with pypm.Op (or use op_var())")

    def _arith(self, *other):
        raise PyPMError(f"arithmetic on the graph value '{self._display()}': use operators "
                        "(Add, Mul, ...) to build graph computations, and x.shape / x.attrs in "
                        "guards")

    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = _arith
    __truediv__ = __rtruediv__ = __floordiv__ = __rfloordiv__ = __mod__ = __rmod__ = _arith
    __neg__ = __pow__ = __rpow__ = _arith

    def __or__(self, other):
        return Alt.make(self, other)

    def __ror__(self, other):
        return Alt.make(other, self)

    def __getitem__(self, k):
        raise PyPMError(f"'{self._display()}' is a graph value; use "
                        f"{self._display()}.shape[i] for a dimension")

    def __repr__(self):
        return f"<pypm term variable {self._display()}>"


class OpVar(Symbol):
    """An operator variable (a function pattern): ``f(x)`` matches any one-input operator."""

    __slots__ = ()

    @property
    def name(self) -> "Expr":
        return Expr(core.EOpName(self._idx()))

    def _unknown_property(self, name: str) -> str:
        if name in ("shape", "dtype", "op"):
            return (f"'{self._display()}' is an operator variable: it has name and "
                    f"attrs, not {name} (an op variable used as a term?)")
        return (f"operator variable '{self._display()}' has no property '{name}' (use "
                "name or attrs)")

    def __call__(self, *args, **attrs) -> "App":
        t = _require(f"{self._display()}(...)")
        head = core.HeadVar(self._idx())
        values = tuple(to_value(a, f"input {i} of {self._display()}(...)")
                       for i, a in enumerate(args))
        converted = []
        for name, value in attrs.items():
            if name not in ATTRIBUTE_KINDS:
                raise PyPMError(f"unknown attribute '{name}': no operator has it")
            converted.append((name, attr_value(None, name, value, t.mode)))
        return App(head, 0, values, tuple(converted), None)

    def __le__(self, other):
        raise PyPMError(f"'{self._display()}' is an operator variable; a match constraint "
                        "needs a term variable on the left")

    def __eq__(self, other):
        raise PyPMError(f"compare operator variables by name: {self._display()}.name == ...")

    __ne__ = __eq__
    __hash__ = Symbol.__hash__

    def __repr__(self):
        return f"<pypm operator variable {self._display()}>"


def var(name: Optional[str] = None) -> TermVar:
    """A fresh local term variable (bound by the pattern, e.g. by a match constraint)."""
    t = _require("var()", PATTERN)
    if name is not None and not isinstance(name, str):
        raise PyPMError("var(name): the name must be a string literal")
    filename, line = user_location()
    return t.new_var(TermVar, name, False, line, filename)


def op_var(name: Optional[str] = None) -> OpVar:
    """A fresh local operator variable."""
    t = _require("op_var()", PATTERN)
    if name is not None and not isinstance(name, str):
        raise PyPMError("op_var(name): the name must be a string literal")
    filename, line = user_location()
    return t.new_var(OpVar, name, False, line, filename)


# ---- pattern and term nodes -------------------------------------------------------------------
class Node:
    __slots__ = ("tracer", "line", "file", "bind_name")

    def __init__(self):
        t = _current
        self.tracer = t
        self.file, self.line = user_location(2)
        self.bind_name: Optional[str] = None

    def __bool__(self):
        raise PyPMError("a pattern is not a condition (use a match constraint: assert x <= p)")

    def __getattr__(self, name: str):
        if name in ("shape", "dtype", "op", "attrs", "name"):
            raise PyPMError(f"a pattern has no '{name}': bind a variable to the value it "
                            f"matches (v = var(); assert v <= p) and use v.{name}")
        if name.startswith("__"):
            raise AttributeError(name)  # Python's own protocol lookups (copy, pickle, ...)
        # A user's typo, not a lookup by Python: say what a pattern is instead of a bare
        # AttributeError from inside the front end.
        raise PyPMError(f"a pattern has no attribute '{name}' (a pattern is an operator "
                        "application, a constant or a pattern call; it has no properties)")

    def __eq__(self, other):
        raise PyPMError("patterns cannot be compared with ==; bind a variable and use a match "
                        "constraint (assert x <= p)")

    __ne__ = __eq__

    def __hash__(self):
        return id(self)

    def __le__(self, other):
        raise PyPMError("a match constraint needs a term variable on the left: assert x <= p")

    def __lt__(self, other):
        raise PyPMError("patterns cannot be ordered")

    __gt__ = __lt__

    def __ge__(self, other):
        if isinstance(other, TermVar):  # p >= x is x <= p
            return other.__le__(self)
        raise PyPMError("a match constraint needs a term variable on the left: assert x <= p")

    def __or__(self, other):
        return Alt.make(self, other)

    def __ror__(self, other):
        return Alt.make(other, self)

    def __iter__(self):
        raise PyPMError("a pattern cannot be iterated")

    def _arith(self, *other):
        raise PyPMError("arithmetic on a pattern: use operators (Add, Mul, ...) to describe "
                        "graph computations")

    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = _arith
    __truediv__ = __rtruediv__ = __floordiv__ = __rfloordiv__ = __neg__ = _arith


class App(Node):
    __slots__ = ("head", "output", "args", "attrs", "info")

    def __init__(self, head, output, args, attrs, info):
        super().__init__()
        self.head = head  # core.HeadName or core.HeadVar
        self.output = output
        self.args = args
        self.attrs = attrs  # tuple of (name, core expr)
        self.info = info  # OpInfo for a named head

    def __getitem__(self, k) -> "App":
        if isinstance(k, bool) or not isinstance(k, int):
            raise PyPMError("an output index must be an int literal: Split(x, ...)[1]")
        if k < 0:
            raise PyPMError(f"output index {k} is negative")
        if self.output != 0:
            raise PyPMError("the output index is already set")
        if self.info is not None and k > 0:
            outputs = self.info.outputs
            if outputs is not None and k >= outputs:
                count = "one output" if outputs == 1 else f"{outputs} outputs"
                raise PyPMError(f"{self.info.constructor} has {count}; there is no output {k}")
            for name, value in self.attrs:
                if name == "sizes" and isinstance(value, core.EInts) and k >= len(value.values):
                    raise PyPMError(f"split has {len(value.values)} outputs; there is no "
                                    f"output {k}")
        node = App(self.head, k, self.args, self.attrs, self.info)
        return node

    def __repr__(self):
        return f"<pypm application {self.head}>"


class Const(Node):
    __slots__ = ("value",)

    def __init__(self, value: float):
        super().__init__()
        self.value = value


class Call(Node):
    __slots__ = ("handle", "args")

    def __init__(self, handle, args):
        super().__init__()
        self.handle = handle
        self.args = args  # values (term params) or core heads (op params)


class Alt(Node):
    __slots__ = ("options",)

    def __init__(self, options):
        super().__init__()
        self.options = options

    @staticmethod
    def make(a, b) -> "Alt":
        _require("an inline choice (p1 | p2)", PATTERN)
        options = []
        for side in (a, b):
            v = to_value(side, "an option of an inline choice")
            options.extend(v.options if isinstance(v, Alt) else [v])
        return Alt(tuple(options))


class MatchConstraint:
    """``x <= p``: recorded by ``assert``."""

    __slots__ = ("var", "pattern")

    def __init__(self, var: TermVar, pattern):
        self.var = var
        self.pattern = pattern

    def __bool__(self):
        raise PyPMError("a match constraint (x <= p) must be asserted: assert x <= p")


def to_value(v: Any, what: str):
    """A pattern (or term) operand: a variable, a node or a number (a constant)."""
    t = _current
    if isinstance(v, TermVar):
        v._idx()
        return v
    if isinstance(v, Node):
        if v.tracer is not t:
            raise PyPMError(f"{what}: this pattern was built in another body (patterns cannot "
                            "be shared between bodies through globals)")
        return v
    if isinstance(v, bool):
        raise PyPMError(f"{what}: {v} is not a graph value")
    if isinstance(v, (int, float)):
        if v != v:
            raise PyPMError(f"{what}: a NaN constant never matches")
        return Const(float(v))
    if isinstance(v, OpVar):
        raise PyPMError(f"operator variable '{v._display()}' used as a term ({what}); apply it "
                        f"to inputs, {v._display()}(x), or pass it to an operator parameter")
    if isinstance(v, OpConstructor):
        raise PyPMError(f"operator {v.__name__} used as a term ({what}); call it: "
                        f"{v.__name__}(...)")
    if type(v).__name__ == "PatternHandle":
        raise PyPMError(f"pattern {v.name} used as a term ({what}); call it: {v.name}(...)")
    if isinstance(v, Expr):
        raise PyPMError(f"{what}: an expression is not a graph value (a literal number or a "
                        "pattern is required here; to test a computed value, bind a var() and "
                        "guard it)")
    if isinstance(v, MatchConstraint):
        raise PyPMError(f"{what}: a match constraint is not a pattern")
    if v is None:
        raise PyPMError(f"{what}: None is not a pattern (a missing return?)")
    raise PyPMError(f"{what}: a {type(v).__name__} is not a pattern")


def to_head(v: Any, what: str):
    if isinstance(v, OpVar):
        return core.HeadVar(v._idx())
    if isinstance(v, OpConstructor):
        return core.HeadName(v.info.name)
    if isinstance(v, TermVar):
        raise PyPMError(f"term variable '{v._display()}' used as an operator ({what}); "
                        "annotate the parameter with pypm.Op")
    if isinstance(v, Node):
        raise PyPMError(f"{what} is an operator parameter: pass an op variable or an operator "
                        "constructor (e.g. Relu), not a pattern")
    raise PyPMError(f"{what} is an operator parameter: pass an op variable or an operator "
                    f"constructor, not a {type(v).__name__}")


class OpConstructor:
    """``MatMul(a, b, activation="relu")``: an application of an IR operator.

    Positional arguments are the inputs, keyword arguments the attributes. In a pattern an
    attribute is an equality constraint; in a rule it sets the attribute. Usable only while
    ``serialize`` runs a pattern or rule body.
    """

    def __init__(self, info: OpInfo, python_name: str):
        self.info = info
        self.__name__ = python_name
        self.__qualname__ = python_name
        self.__doc__ = (f"The IR operator '{info.name}' ({info.arity_text()}"
                        + (", attributes " + ", ".join(a.name for a in info.attrs)
                           if info.attrs else "") + ").")

    def __call__(self, *args, **attrs):
        return apply_operator(self, args, attrs)

    def __repr__(self) -> str:
        return f"<pypm operator {self.__name__} ({self.info.name})>"

    def __bool__(self) -> bool:
        return True



def apply_operator(ctor: OpConstructor, args: tuple, attrs: dict) -> App:
    info = ctor.info
    t = _require(f"{ctor.__name__}(...)")
    n = len(args)
    if n < info.min_inputs or (info.max_inputs is not None and n > info.max_inputs):
        raise PyPMError(f"{ctor.__name__} ({info.name}) takes {info.arity_text()}, got {n}")
    values = tuple(to_value(a, f"input {i} of {ctor.__name__}") for i, a in enumerate(args))
    converted = {}
    for name, value in attrs.items():
        a = info.attr(name)
        if a is None:
            known = ", ".join(x.name for x in info.attrs) or "none"
            raise PyPMError(f"{ctor.__name__} ({info.name}) has no attribute '{name}' "
                            f"(its attributes: {known})")
        converted[name] = attr_value(a, name, value, t.mode)
    if t.mode == RULE:
        missing = [a.name for a in info.attrs if a.required and a.name not in converted]
        if missing:
            raise PyPMError(f"{ctor.__name__} ({info.name}) in a rule needs the attribute"
                            f"{'s' if len(missing) > 1 else ''} " + ", ".join(missing))
    ordered = tuple((a.name, converted[a.name]) for a in info.attrs if a.name in converted)
    return App(core.HeadName(info.name), 0, values, ordered, info)


def attr_value(a: Optional[AttrInfo], name: str, value: Any, mode: str):
    """An attribute value as a core expression, checked against the attribute's kind."""
    kind = a.kind if a is not None else ATTRIBUTE_KINDS.get(name)
    if isinstance(value, (Expr, Symbol)) or isinstance(value, (list, tuple)) and any(
            isinstance(x, (Expr, Symbol)) for x in value):
        if mode == PATTERN:
            raise PyPMError(f"attribute '{name}' in a pattern must be a literal constant (to "
                            f"test a computed value, use a guard such as "
                            f"assert x.attrs.{name} == ...)")
        e = to_expr(value)
        k = expr_kind(e)
        want = _value_kind(kind)
        if k is not None and want is not None and not _kinds_compatible(k, want):
            raise PyPMError(f"attribute '{name}' takes {want} values, got a {k} expression")
        return e
    return literal_attr(name, kind, value)


def _value_kind(attr_kind: Optional[str]) -> Optional[str]:
    return {INT: "int", INTS: "ints", FLOAT: "float", STRING: "string", ACTIVATION: "string",
            PADDING: "string", None: None}[attr_kind]


def literal_attr(name: str, kind: Optional[str], value: Any):
    def fail(expected: str):
        raise PyPMError(f"attribute '{name}' takes {expected}, got {value!r}")

    if kind == INT:
        if isinstance(value, bool) or not isinstance(value, int):
            fail("an int")
        return core.EInt(_check_i64(value))
    if kind == INTS:
        if not isinstance(value, (list, tuple)) or any(
                isinstance(x, bool) or not isinstance(x, int) for x in value):
            fail("a list of ints")
        return core.EInts(tuple(_check_i64(x) for x in value))
    if kind == FLOAT:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            fail("a number")
        return core.EFloat(float(value))
    if kind == STRING:
        if not isinstance(value, str):
            fail("a string")
        return core.EString(value)
    if kind == ACTIVATION:
        if value not in ACTIVATIONS:
            fail("one of " + ", ".join(repr(x) for x in ACTIVATIONS))
        return core.EString(value)
    if kind == PADDING:
        if value not in PADDINGS:
            fail("one of " + ", ".join(repr(x) for x in PADDINGS))
        return core.EString(value)
    try:
        return to_expr(value)
    except PyPMError:
        fail("a literal (int, float, string or list of ints)")


# ---- expressions ------------------------------------------------------------------------------
def _check_i64(v: int) -> int:
    if not _I64_MIN <= v <= _I64_MAX:
        raise PyPMError(f"integer {v} does not fit in 64 bits")
    return v


def to_expr(v: Any):
    """A core expression from an Expr or a Python literal."""
    if isinstance(v, Expr):
        return v.core
    if isinstance(v, bool):
        return core.EBool(v)
    if isinstance(v, int):
        return core.EInt(_check_i64(v))
    if isinstance(v, float):
        return core.EFloat(v)
    if isinstance(v, str):
        return core.EString(v)
    if isinstance(v, (list, tuple)):
        if all(isinstance(x, int) and not isinstance(x, bool) for x in v):
            return core.EInts(tuple(_check_i64(x) for x in v))
        if all(isinstance(x, Expr) or isinstance(x, int) and not isinstance(x, bool) for x in v):
            # A shape built from matched dims: [x.shape[0], x.shape[1] * x.shape[2]].
            items = tuple(to_expr(x) for x in v)
            for item in items:
                if expr_kind(item) not in ("int", None):
                    raise PyPMError(f"a list expression holds ints, got a {expr_kind(item)}")
            return core.EList(items)
        raise PyPMError("a list expression holds ints and int expressions only")
    if isinstance(v, TermVar):
        raise PyPMError(f"'{v._display()}' is a graph value, not an expression: use "
                        f"{v._display()}.shape, .dtype, .op or .attrs.name")
    if isinstance(v, OpVar):
        raise PyPMError(f"'{v._display()}' is an operator variable, not an expression: use "
                        f"{v._display()}.name or .attrs.name")
    if isinstance(v, MatchConstraint):
        raise PyPMError("a match constraint (x <= p) can only be asserted on its own (or joined "
                        "to others by `and` at the top of an assert)")
    if isinstance(v, Node):
        raise PyPMError("a pattern is not an expression")
    raise PyPMError(f"a {type(v).__name__} is not an expression value")


_ARITH = {core.ADD, core.SUB, core.MUL, core.DIV, core.FLOORDIV, core.MOD}
_ORDER = {core.LT, core.LE, core.GT, core.GE}
_NUMERIC = ("int", "float")


def expr_kind(e) -> Optional[str]:
    """int, float, bool, string, ints, or None when only the graph knows."""
    if isinstance(e, core.EBool):
        return "bool"
    if isinstance(e, core.EInt):
        return "int"
    if isinstance(e, core.EFloat):
        return "float"
    if isinstance(e, core.EString):
        return "string"
    if isinstance(e, (core.EInts, core.EList, core.EShape)):
        return "ints"
    if isinstance(e, (core.ERank, core.EDim, core.ENumel)):
        return "int"
    if isinstance(e, (core.EDtype, core.EOpName)):
        return "string"
    if isinstance(e, core.EAttr):
        return _value_kind(ATTRIBUTE_KINDS.get(e.name))
    if isinstance(e, (core.ENot, core.EProven, core.EIn)):
        return "bool"
    if isinstance(e, core.ENeg):
        return expr_kind(e.operand)
    if isinstance(e, core.EBinary):
        if e.op in _ARITH:
            a, b = expr_kind(e.lhs), expr_kind(e.rhs)
            if e.op == core.DIV:
                return "float"
            if a == "int" and b == "int":
                return "int"
            if "float" in (a, b):
                return "float"
            return None
        return "bool"
    return None


def _kinds_compatible(a: str, b: str) -> bool:
    return a == b or (a in _NUMERIC and b in _NUMERIC)


def _binary(op: int, lhs: Any, rhs: Any) -> "Expr":
    a, b = to_expr(lhs), to_expr(rhs)
    ka, kb = expr_kind(a), expr_kind(b)
    sym = core.BINARY_OPS[op]
    if op in _ARITH:
        for k in (ka, kb):
            if k is not None and k not in _NUMERIC:
                raise PyPMError(f"'{sym}' needs numbers, got a {k}")
    elif op in (core.AND, core.OR):
        for k in (ka, kb):
            if k is not None and k != "bool":
                raise PyPMError(f"'{sym}' needs conditions, got a {k}")
    elif ka is not None and kb is not None:
        if not _kinds_compatible(ka, kb):
            raise PyPMError(f"comparing a {ka} with a {kb} ('{sym}') is always an error")
        if op in _ORDER and ka == "bool":
            raise PyPMError(f"'{sym}' does not order conditions")
    return Expr(core.EBinary(op, a, b))


class Expr:
    """A symbolic expression over the matched graph (a guard, or a rule's attribute value)."""

    __slots__ = ("core",)
    __hash__ = None  # type: ignore[assignment]

    def __init__(self, c):
        self.core = c

    def __add__(self, o): return _binary(core.ADD, self, o)
    def __radd__(self, o): return _binary(core.ADD, o, self)
    def __sub__(self, o): return _binary(core.SUB, self, o)
    def __rsub__(self, o): return _binary(core.SUB, o, self)
    def __mul__(self, o): return _binary(core.MUL, self, o)
    def __rmul__(self, o): return _binary(core.MUL, o, self)
    def __truediv__(self, o): return _binary(core.DIV, self, o)
    def __rtruediv__(self, o): return _binary(core.DIV, o, self)
    def __floordiv__(self, o): return _binary(core.FLOORDIV, self, o)
    def __rfloordiv__(self, o): return _binary(core.FLOORDIV, o, self)
    def __mod__(self, o): return _binary(core.MOD, self, o)
    def __rmod__(self, o): return _binary(core.MOD, o, self)
    def __eq__(self, o): return _binary(core.EQ, self, o)  # type: ignore[override]
    def __ne__(self, o): return _binary(core.NE, self, o)  # type: ignore[override]
    def __lt__(self, o): return _binary(core.LT, self, o)
    def __le__(self, o): return _binary(core.LE, self, o)
    def __gt__(self, o): return _binary(core.GT, self, o)
    def __ge__(self, o): return _binary(core.GE, self, o)

    def __neg__(self):
        k = expr_kind(self.core)
        if k is not None and k not in _NUMERIC:
            raise PyPMError(f"unary '-' needs a number, got a {k}")
        return Expr(core.ENeg(self.core))

    def __pos__(self):
        return self

    def __bool__(self):
        raise PyPMError("a symbolic condition was used where Python needs a real True/False "
                        "(in code that pypm does not transform, e.g. a helper defined outside "
                        "the pattern, or a loop over a symbolic value)")

    def __iter__(self):
        raise PyPMError("a symbolic value cannot be iterated (loop over constants instead)")

    def __len__(self):
        raise PyPMError("len() of a symbolic value: use x.shape.rank")

    def __contains__(self, item):
        raise PyPMError("`in` needs a tuple or list of values on its right side")

    def __repr__(self):
        return f"<pypm expression {self.core}>"


class Shape(Expr):
    """``x.shape``: the dimensions of ``x`` (an ints expression), with rank, numel and [i]."""

    __slots__ = ("_var",)

    def __init__(self, v: TermVar):
        super().__init__(core.EShape(v._idx()))
        self._var = v

    @property
    def rank(self) -> Expr:
        return Expr(core.ERank(self._var._idx()))

    @property
    def numel(self) -> Expr:
        return Expr(core.ENumel(self._var._idx()))

    def __getitem__(self, i) -> Expr:
        if isinstance(i, slice):
            raise PyPMError("shape slices are not supported; index one dimension: x.shape[i]")
        index = to_expr(i)
        k = expr_kind(index)
        if k is not None and k != "int":
            raise PyPMError(f"a dimension index must be an int, got a {k}")
        return Expr(core.EDim(self._var._idx(), index))


def proven(condition):
    """``pypm.proven(c)``: True where ``c`` holds for every size the model accepts, False where it
    fails at some size or cannot be decided over symbolic dimensions. A guard or branch on
    ``c`` itself fails when undecided; ``proven`` lets a rule pick a form that is sound at every
    size instead (``if pypm.proven(k_len == q_len): self-attention else: cached attention``).
    On a plain Python value it is ``bool``."""
    if not _is_symbolic(condition):
        return bool(condition)
    _require("pypm.proven()")
    return Expr(core.EProven(_condition(condition, "the operand of pypm.proven()")))


# ---- the runtime the transformed code calls (as __pypm__) -------------------------------------
def _is_symbolic(v) -> bool:
    return isinstance(v, (Expr, MatchConstraint, Symbol, Node))


def _condition(v, what: str):
    """The core expression of a symbolic condition (a bool-valued Expr)."""
    if isinstance(v, MatchConstraint):
        raise PyPMError(f"a match constraint (x <= p) cannot be {what}; assert it on its own "
                        "(`assert x <= p`, possibly joined to others by `and`)")
    if isinstance(v, (Symbol, Node)):
        raise PyPMError(f"a graph value or pattern cannot be {what}")
    k = expr_kind(v.core)
    if k is not None and k != "bool":
        raise PyPMError(f"a {k} expression cannot be {what}; compare it with something")
    return v.core


def _fold(op: int, parts: list):
    e = parts[0]
    for p in parts[1:]:
        e = core.EBinary(op, e, p)
    return Expr(e)


_COMPARE = {"==": _operator.eq, "!=": _operator.ne, "<": _operator.lt, "<=": _operator.le,
            ">": _operator.gt, ">=": _operator.ge, "is": _operator.is_,
            "is not": _operator.is_not}


class Runtime:
    """Calls inserted by the AST transformation."""

    @staticmethod
    def assert_(value, line: int) -> None:
        t = _require("assert")
        if isinstance(value, MatchConstraint):
            if t.mode != PATTERN:
                raise PyPMError("match constraints are not allowed in a rule")
            t.constraints.append(("match", value.var, value.pattern, line))
        elif isinstance(value, Expr):
            t.constraints.append(("guard", _condition(value, "a guard"), line))
        elif isinstance(value, (Symbol, Node)):
            raise PyPMError("assert needs a condition or a match constraint (x <= p), not a "
                            "pattern")
        elif not value:
            t.constraints.append(("guard", core.EBool(False), line))

    @staticmethod
    def branch(value, line: int) -> bool:
        if not _is_symbolic(value):
            return bool(value)
        t = _require("a condition on a symbolic value")
        cond = _condition(value, "the condition of an if")
        taken = t.decide()
        t.constraints.append(("guard", cond if taken else core.ENot(cond), line))
        return taken

    @staticmethod
    def and_(*thunks):
        parts: list = []
        value: Any = True
        for thunk in thunks:
            value = thunk()
            if _is_symbolic(value):
                parts.append(_condition(value, "an operand of `and`"))
            elif not value:
                if not parts:
                    return value
                parts.append(core.EBool(False))
                break
        return _fold(core.AND, parts) if parts else value

    @staticmethod
    def or_(*thunks):
        parts: list = []
        value: Any = False
        for thunk in thunks:
            value = thunk()
            if _is_symbolic(value):
                parts.append(_condition(value, "an operand of `or`"))
            elif value:
                if not parts:
                    return value
                parts.append(core.EBool(True))
                break
        return _fold(core.OR, parts) if parts else value

    @staticmethod
    def not_(value):
        if _is_symbolic(value):
            return Expr(core.ENot(_condition(value, "an operand of `not`")))
        return not value

    @staticmethod
    def compare(first, *rest):
        """A comparison chain ``a < b <= c`` or one ``in``: ``first, op1, thunk1, op2, ...``."""
        left = first()
        parts: list = []
        result: Any = True
        for i in range(0, len(rest), 2):
            op, right = rest[i], rest[i + 1]()
            result = Runtime._compare_one(op, left, right)
            if _is_symbolic(result):
                parts.append(_condition(result, "part of a comparison chain"))
            elif not result:
                if not parts:
                    return result
                parts.append(core.EBool(False))
                break
            left = right
        if not parts:
            return result
        return _fold(core.AND, parts)

    @staticmethod
    def _compare_one(op: str, left, right):
        if op in ("in", "not in"):
            result = Runtime._in(left, right)
            if op == "not in":
                return Expr(core.ENot(result.core)) if isinstance(result, Expr) else not result
            return result
        return _COMPARE[op](left, right)

    @staticmethod
    def _in(item, collection):
        if _is_symbolic(collection):
            raise PyPMError("`in` needs a tuple or list of values on its right side")
        symbolic_items = isinstance(collection, (list, tuple)) and any(
            _is_symbolic(x) for x in collection)
        if not _is_symbolic(item) and not symbolic_items:
            return item in collection
        if not isinstance(collection, (list, tuple)):
            raise PyPMError(f"`in` on a symbolic value needs a tuple or list on its right side, "
                            f"not a {type(collection).__name__}")
        operand = to_expr(item)
        items = tuple(to_expr(x) for x in collection)
        ko = expr_kind(operand)
        for x in items:
            kx = expr_kind(x)
            if ko is not None and kx is not None and not _kinds_compatible(ko, kx):
                raise PyPMError(f"`in` compares a {ko} with a {kx}")
        return Expr(core.EIn(operand, items))

    @staticmethod
    def bind_names(names: dict) -> None:
        """After ``name = value``: names an unnamed variable or pattern after its Python name."""
        t = _current
        for name, value in names.items():
            if isinstance(value, Symbol) and value._tracer is t and value._name is None:
                value._name = name
            elif isinstance(value, Node) and value.tracer is t and value.bind_name is None:
                value.bind_name = name


RUNTIME = Runtime()
