"""Writes a core-calculus file as ``.pmb`` bytes (docs/PYPM.md §3): version 1, or version 2 when a
rule also replaces further values.

The string table lists strings in order of first use while writing (the source file name
first), so the same core objects always give the same bytes.
"""
from __future__ import annotations

import math
import struct

from . import core

MAGIC = b"SPMB"
VERSION = 2  # the newest version written and read; version 1 files are read too
FLAGS = 0

# Tags.
HEAD_NAME, HEAD_VAR = 0, 1
PAT_VAR, PAT_APP, PAT_CONST, PAT_CALL, PAT_ALT = 0, 1, 2, 3, 4
CALLARG_PATTERN, CALLARG_HEAD = 0, 1
CON_GUARD, CON_MATCH = 0, 1
TERM_VAR, TERM_APP, TERM_CONST = 0, 1, 2
(EX_INT, EX_FLOAT, EX_BOOL, EX_STRING, EX_INTS, EX_LIST) = (0, 1, 2, 3, 4, 5)
(EX_RANK, EX_DIM, EX_NUMEL, EX_DTYPE, EX_OPNAME, EX_ATTR, EX_SHAPE) = (10, 11, 12, 13, 14, 15, 16)
(EX_NOT, EX_NEG, EX_BINARY, EX_IN, EX_PROVEN) = (20, 21, 22, 23, 24)


class _Writer:
    def __init__(self) -> None:
        self.out = bytearray()
        self.strings: dict[str, int] = {}
        self.version = 1

    def u8(self, v: int) -> None:
        self.out += struct.pack("<B", v)

    def u32(self, v: int) -> None:
        if not 0 <= v <= 0xFFFFFFFF:
            raise ValueError(f"{v} does not fit in a u32")
        self.out += struct.pack("<I", v)

    def i64(self, v: int) -> None:
        self.out += struct.pack("<q", v)

    def f64(self, v: float) -> None:
        self.out += struct.pack("<d", v)

    def str(self, s: str) -> None:
        index = self.strings.get(s)
        if index is None:
            index = self.strings[s] = len(self.strings)
        self.u32(index)

    # ---- expressions
    def expr(self, e) -> None:
        if isinstance(e, core.EBool):
            self.u8(EX_BOOL)
            self.u8(1 if e.value else 0)
        elif isinstance(e, core.EInt):
            self.u8(EX_INT)
            self.i64(e.value)
        elif isinstance(e, core.EFloat):
            self.u8(EX_FLOAT)
            self.f64(e.value)
        elif isinstance(e, core.EString):
            self.u8(EX_STRING)
            self.str(e.value)
        elif isinstance(e, core.EList):
            self.u8(EX_LIST)
            self.u32(len(e.items))
            for item in e.items:
                self.expr(item)
        elif isinstance(e, core.EInts):
            self.u8(EX_INTS)
            self.u32(len(e.values))
            for v in e.values:
                self.i64(v)
        elif isinstance(e, core.ERank):
            self.u8(EX_RANK)
            self.u32(e.var)
        elif isinstance(e, core.EDim):
            self.u8(EX_DIM)
            self.u32(e.var)
            self.expr(e.index)
        elif isinstance(e, core.ENumel):
            self.u8(EX_NUMEL)
            self.u32(e.var)
        elif isinstance(e, core.EDtype):
            self.u8(EX_DTYPE)
            self.u32(e.var)
        elif isinstance(e, core.EOpName):
            self.u8(EX_OPNAME)
            self.u32(e.var)
        elif isinstance(e, core.EAttr):
            self.u8(EX_ATTR)
            self.u32(e.var)
            self.str(e.name)
        elif isinstance(e, core.EShape):
            self.u8(EX_SHAPE)
            self.u32(e.var)
        elif isinstance(e, core.ENot):
            self.u8(EX_NOT)
            self.expr(e.operand)
        elif isinstance(e, core.EProven):
            self.u8(EX_PROVEN)
            self.expr(e.operand)
        elif isinstance(e, core.ENeg):
            self.u8(EX_NEG)
            self.expr(e.operand)
        elif isinstance(e, core.EBinary):
            self.u8(EX_BINARY)
            self.u8(e.op)
            self.expr(e.lhs)
            self.expr(e.rhs)
        elif isinstance(e, core.EIn):
            self.u8(EX_IN)
            self.expr(e.operand)
            self.u32(len(e.items))
            for item in e.items:
                self.expr(item)
        else:
            raise TypeError(f"not an expression: {e!r}")

    def head(self, h) -> None:
        if isinstance(h, core.HeadName):
            self.u8(HEAD_NAME)
            self.str(h.op)
        elif isinstance(h, core.HeadVar):
            self.u8(HEAD_VAR)
            self.u32(h.var)
        else:
            raise TypeError(f"not a head: {h!r}")

    def attrs(self, attrs) -> None:
        self.u32(len(attrs))
        for name, value in attrs:
            self.str(name)
            self.expr(value)

    def const(self, value: float) -> None:
        if math.isnan(value):
            raise ValueError("a NaN constant")
        self.f64(value)

    # ---- patterns
    def pattern(self, p) -> None:
        if isinstance(p, core.PVar):
            self.u8(PAT_VAR)
            self.u32(p.var)
        elif isinstance(p, core.PApp):
            self.u8(PAT_APP)
            self.head(p.head)
            self.u32(p.output)
            self.u32(len(p.args))
            for a in p.args:
                self.pattern(a)
            self.attrs(p.attrs)
        elif isinstance(p, core.PConst):
            self.u8(PAT_CONST)
            self.const(p.value)
        elif isinstance(p, core.PCall):
            self.u8(PAT_CALL)
            self.u32(p.definition)
            self.u32(len(p.args))
            for a in p.args:
                if isinstance(a, (core.HeadName, core.HeadVar)):
                    self.u8(CALLARG_HEAD)
                    self.head(a)
                else:
                    self.u8(CALLARG_PATTERN)
                    self.pattern(a)
        elif isinstance(p, core.PAlt):
            if not p.options:
                raise ValueError("an inline choice needs at least one option")
            self.u8(PAT_ALT)
            self.u32(len(p.options))
            for o in p.options:
                self.pattern(o)
        else:
            raise TypeError(f"not a pattern: {p!r}")

    def term(self, t) -> None:
        if isinstance(t, core.TVar):
            self.u8(TERM_VAR)
            self.u32(t.var)
        elif isinstance(t, core.TApp):
            self.u8(TERM_APP)
            self.head(t.head)
            self.u32(t.output)
            self.u32(len(t.args))
            for a in t.args:
                self.term(a)
            self.attrs(t.attrs)
        elif isinstance(t, core.TConst):
            self.u8(TERM_CONST)
            self.const(t.value)
        else:
            raise TypeError(f"not a term: {t!r}")

    # ---- structure
    def alternate(self, a: core.Alternate) -> None:
        self.u32(a.line)
        self.u32(len(a.vars))
        for v in a.vars:
            self.str(v.name)
            self.u8(v.kind)
        self.pattern(a.body)
        self.u32(len(a.constraints))
        for c in a.constraints:
            if isinstance(c, core.Guard):
                self.u8(CON_GUARD)
                self.u32(c.line)
                self.expr(c.expr)
            elif isinstance(c, core.Match):
                self.u8(CON_MATCH)
                self.u32(c.line)
                self.u32(c.var)
                self.pattern(c.pattern)
            else:
                raise TypeError(f"not a constraint: {c!r}")

    def definition(self, d: core.Definition) -> None:
        self.str(d.name)
        self.u32(d.line)
        self.u32(d.nparams)
        self.u32(len(d.alternates))
        for a in d.alternates:
            self.alternate(a)

    def rule(self, r: core.Rule) -> None:
        self.str(r.name)
        self.u32(r.definition)
        self.u32(r.line)
        self.u32(len(r.params))
        for p in r.params:
            self.u32(p)
        self.u32(len(r.guards))
        for g in r.guards:
            self.expr(g)
        self.term(r.replacement)
        if self.version >= 2:
            self.u32(len(r.also))
            for var, term in r.also:
                self.u32(var)
                self.term(term)


def to_bytes(f: core.PatternFile) -> bytes:
    """The ``.pmb`` encoding of ``f``."""
    # Version 1 unless a rule replaces further values (version 2 adds them to each rule), so
    # files without such rules keep their bytes and stay readable by version-1 readers.
    version = 2 if any(r.also for r in f.rules) else 1
    body = _Writer()
    body.version = version
    body.str(f.source_file)
    body.u32(len(f.definitions))
    for d in f.definitions:
        body.definition(d)
    body.u32(len(f.rules))
    for r in f.rules:
        body.rule(r)
    head = _Writer()
    head.out += MAGIC
    head.out += struct.pack("<HH", version, FLAGS)
    head.u32(len(body.strings))
    for s in body.strings:  # insertion order = index order
        data = s.encode("utf-8")
        head.u32(len(data))
        head.out += data
    return bytes(head.out + body.out)
