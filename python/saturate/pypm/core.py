"""The PyPM core calculus (docs/PYPM.md §2) as plain, immutable, comparable dataclasses.

These are what the front end produces, what ``serialize`` writes and what ``reader`` reads back.
Variables are indices: into an alternate's ``vars`` in patterns and constraints, into a rule's
``params`` in a rule's guards and replacement.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Union

TERM = 0
OP = 1


@dataclass(frozen=True)
class Var:
    name: str
    kind: int  # TERM or OP


# ---- heads -------------------------------------------------------------------------------------
@dataclass(frozen=True)
class HeadName:
    op: str  # an IR operator name, e.g. "matmul"


@dataclass(frozen=True)
class HeadVar:
    var: int  # an operator variable


Head = Union[HeadName, HeadVar]


# ---- expressions -------------------------------------------------------------------------------
@dataclass(frozen=True)
class EInt:
    value: int


@dataclass(frozen=True)
class EFloat:
    value: float


@dataclass(frozen=True)
class EBool:
    value: bool


@dataclass(frozen=True)
class EString:
    value: str


@dataclass(frozen=True)
class EInts:
    values: tuple[int, ...]


@dataclass(frozen=True)
class EList:
    """A list of int expressions (a shape built from matched dims: [b, s, h * d])."""
    items: tuple["Expr", ...]


@dataclass(frozen=True)
class ERank:
    var: int


@dataclass(frozen=True)
class EDim:
    var: int
    index: "Expr"


@dataclass(frozen=True)
class ENumel:
    var: int


@dataclass(frozen=True)
class EDtype:
    var: int


@dataclass(frozen=True)
class EOpName:
    var: int  # a term variable (the producing operator) or an op variable


@dataclass(frozen=True)
class EAttr:
    var: int
    name: str


@dataclass(frozen=True)
class EShape:
    var: int


@dataclass(frozen=True)
class ENot:
    operand: "Expr"


@dataclass(frozen=True)
class EProven:
    """True where the operand holds at every size; False where it fails at some (undecided
    included)."""
    operand: "Expr"


@dataclass(frozen=True)
class ENeg:
    operand: "Expr"


# BINARY operator codes (docs/PYPM.md §3).
BINARY_OPS = ("+", "-", "*", "/", "//", "%", "==", "!=", "<", "<=", ">", ">=", "and", "or")
ADD, SUB, MUL, DIV, FLOORDIV, MOD, EQ, NE, LT, LE, GT, GE, AND, OR = range(14)


@dataclass(frozen=True)
class EBinary:
    op: int
    lhs: "Expr"
    rhs: "Expr"


@dataclass(frozen=True)
class EIn:
    operand: "Expr"
    items: tuple["Expr", ...]


Expr = Union[EInt, EFloat, EBool, EString, EInts, EList, ERank, EDim, ENumel, EDtype, EOpName, EAttr,
             EShape, ENot, EProven, ENeg, EBinary, EIn]


# ---- patterns ----------------------------------------------------------------------------------
@dataclass(frozen=True)
class PVar:
    var: int  # a term variable


@dataclass(frozen=True)
class PApp:
    head: Head
    output: int
    args: tuple["Pattern", ...]
    attrs: tuple[tuple[str, Expr], ...]


@dataclass(frozen=True)
class PConst:
    value: float


@dataclass(frozen=True)
class PCall:
    definition: int
    args: tuple[Union["Pattern", Head], ...]  # a Head for an op parameter of the callee


@dataclass(frozen=True)
class PAlt:
    options: tuple["Pattern", ...]


Pattern = Union[PVar, PApp, PConst, PCall, PAlt]


# ---- constraints, alternates, definitions ------------------------------------------------------
@dataclass(frozen=True)
class Guard:
    line: int
    expr: Expr


@dataclass(frozen=True)
class Match:
    line: int
    var: int
    pattern: Pattern


Constraint = Union[Guard, Match]


@dataclass(frozen=True)
class Alternate:
    line: int
    vars: tuple[Var, ...]  # vars[:nparams] are the definition's parameters
    body: Pattern
    constraints: tuple[Constraint, ...]


@dataclass(frozen=True)
class Definition:
    name: str
    line: int
    nparams: int
    alternates: tuple[Alternate, ...]

    def params(self) -> tuple[Var, ...]:
        return self.alternates[0].vars[: self.nparams] if self.alternates else ()


# ---- rules -------------------------------------------------------------------------------------
@dataclass(frozen=True)
class TVar:
    var: int


@dataclass(frozen=True)
class TApp:
    head: Head
    output: int
    args: tuple["Term", ...]
    attrs: tuple[tuple[str, Expr], ...]


@dataclass(frozen=True)
class TConst:
    value: float


Term = Union[TVar, TApp, TConst]


@dataclass(frozen=True)
class Rule:
    name: str
    definition: int
    line: int
    params: tuple[int, ...]  # indices into the definition's parameters
    guards: tuple[Expr, ...]
    replacement: Term
    # Further values the match bound that the rule replaces too: (rule variable, term) pairs,
    # e.g. a residual sum that a fused kernel also computes (.pmb version 2).
    also: tuple[tuple[int, Term], ...] = ()


@dataclass(frozen=True)
class PatternFile:
    source_file: str
    definitions: tuple[Definition, ...]
    rules: tuple[Rule, ...]


# ---- text form (for `python -m saturate.pypm dump` and test messages) ---------------------------
_PRECEDENCE = {"or": 1, "and": 2, "not": 3, "in": 4, "==": 4, "!=": 4, "<": 4, "<=": 4, ">": 4,
               ">=": 4, "+": 5, "-": 5, "*": 6, "/": 6, "//": 6, "%": 6, "neg": 7}


def _float_text(value: float) -> str:
    return repr(float(value))


def format_expr(e: Expr, names: list[str], op_vars: frozenset[int] = frozenset()) -> str:
    """``names[i]`` names variable i; ``op_vars`` are the operator variables among them."""

    def go(e: Expr, outer: int) -> str:
        if isinstance(e, EBool):
            return "True" if e.value else "False"
        if isinstance(e, EInt):
            return str(e.value)
        if isinstance(e, EFloat):
            return _float_text(e.value)
        if isinstance(e, EString):
            return repr(e.value)
        if isinstance(e, EInts):
            return "[" + ", ".join(map(str, e.values)) + "]"
        if isinstance(e, EList):
            return "[" + ", ".join(go(i, 0) for i in e.items) + "]"
        if isinstance(e, ERank):
            return f"{names[e.var]}.shape.rank"
        if isinstance(e, EDim):
            return f"{names[e.var]}.shape[{go(e.index, 0)}]"
        if isinstance(e, ENumel):
            return f"{names[e.var]}.shape.numel"
        if isinstance(e, EDtype):
            return f"{names[e.var]}.dtype"
        if isinstance(e, EOpName):
            return f"{names[e.var]}.name" if e.var in op_vars else f"{names[e.var]}.op"
        if isinstance(e, EAttr):
            return f"{names[e.var]}.attrs.{e.name}"
        if isinstance(e, EShape):
            return f"{names[e.var]}.shape"
        if isinstance(e, EProven):
            return f"proven({go(e.operand, 0)})"
        if isinstance(e, ENot):
            text, prec = "not " + go(e.operand, 3), 3
        elif isinstance(e, ENeg):
            text, prec = "-" + go(e.operand, 7), 7
        elif isinstance(e, EBinary):
            op = BINARY_OPS[e.op]
            prec = _PRECEDENCE[op]
            text = f"{go(e.lhs, prec)} {op} {go(e.rhs, prec + 1)}"
        elif isinstance(e, EIn):
            prec = 4
            items = [go(i, 0) for i in e.items]
            trailing = "," if len(items) == 1 else ""
            text = f"{go(e.operand, 5)} in (" + ", ".join(items) + trailing + ")"
        else:
            raise TypeError(f"not an expression: {e!r}")
        return f"({text})" if prec < outer else text

    return go(e, 0)


def format_head(h: Head, names: list[str]) -> str:
    return h.op if isinstance(h, HeadName) else names[h.var]


def _format_app(head, output, args, attrs, names, arg_text, op_vars) -> str:
    parts = [arg_text(a) for a in args]
    parts += [f"{name}={format_expr(value, names, op_vars)}" for name, value in attrs]
    text = f"{format_head(head, names)}(" + ", ".join(parts) + ")"
    return text + (f"[{output}]" if output else "")


def format_pattern(p: Pattern, names: list[str], def_names: list[str],
                   op_vars: frozenset[int] = frozenset()) -> str:
    def go(p) -> str:
        if isinstance(p, PVar):
            return names[p.var]
        if isinstance(p, PConst):
            return _float_text(p.value)
        if isinstance(p, PApp):
            return _format_app(p.head, p.output, p.args, p.attrs, names, go, op_vars)
        if isinstance(p, PCall):
            args = [format_head(a, names) if isinstance(a, (HeadName, HeadVar)) else go(a)
                    for a in p.args]
            callee = (def_names[p.definition] if p.definition < len(def_names)
                      else f"#{p.definition}")
            return f"{callee}(" + ", ".join(args) + ")"
        if isinstance(p, PAlt):
            return "(" + " || ".join(go(o) for o in p.options) + ")"
        raise TypeError(f"not a pattern: {p!r}")

    return go(p)


def format_term(t: Term, names: list[str], op_vars: frozenset[int] = frozenset()) -> str:
    def go(t) -> str:
        if isinstance(t, TVar):
            return names[t.var]
        if isinstance(t, TConst):
            return _float_text(t.value)
        if isinstance(t, TApp):
            return _format_app(t.head, t.output, t.args, t.attrs, names, go, op_vars)
        raise TypeError(f"not a term: {t!r}")

    return go(t)


def _var_decl(v: Var) -> str:
    return f"{v.name}: Op" if v.kind == OP else v.name


def format_file(f: PatternFile) -> str:
    """A readable listing of a pattern file, one construct per line."""
    def_names = [d.name for d in f.definitions]
    out = [f"source {f.source_file}"]
    for index, d in enumerate(f.definitions):
        params = ", ".join(_var_decl(v) for v in d.params())
        out.append(f"def #{index} {d.name}({params})  # line {d.line}")
        for alt in d.alternates:
            names = [v.name for v in alt.vars]
            ops = frozenset(i for i, v in enumerate(alt.vars) if v.kind == OP)
            locals_ = alt.vars[d.nparams:]
            local_text = ("  locals " + ", ".join(_var_decl(v) for v in locals_)) if locals_ else ""
            out.append(f"  alt  # line {alt.line}{local_text}")
            out.append(f"    body {format_pattern(alt.body, names, def_names, ops)}")
            for c in alt.constraints:
                if isinstance(c, Guard):
                    out.append(f"    guard {format_expr(c.expr, names, ops)}  # line {c.line}")
                else:
                    out.append(f"    match {names[c.var]} <= "
                               f"{format_pattern(c.pattern, names, def_names, ops)}"
                               f"  # line {c.line}")
    for r in f.rules:
        d = f.definitions[r.definition] if r.definition < len(f.definitions) else None
        dparams = d.params() if d else ()
        names = [dparams[i].name if i < len(dparams) else f"#{i}" for i in r.params]
        ops = frozenset(k for k, i in enumerate(r.params)
                        if i < len(dparams) and dparams[i].kind == OP)
        target = d.name if d else f"#{r.definition}"
        out.append(f"rule {r.name} for {target}({', '.join(names)})  # line {r.line}")
        for g in r.guards:
            out.append(f"  guard {format_expr(g, names, ops)}")
        out.append(f"  => {format_term(r.replacement, names, ops)}")
        for var, term in r.also:
            out.append(f"  also {names[var] if var < len(names) else f'#{var}'} => "
                       f"{format_term(term, names, ops)}")
    return "\n".join(out) + "\n"
