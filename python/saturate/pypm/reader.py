"""Reads ``.pmb`` v1 bytes back into core objects (round-trip tests, ``dump``).

Structural checks only (magic, version, truncation, trailing bytes, tags, string, variable and
definition indices, variable kinds, call arity and argument kinds); operator names and
attributes are the C++ loader's business.
"""
from __future__ import annotations

import struct

from . import core
from .serialize import (CALLARG_HEAD, CALLARG_PATTERN, CON_GUARD, CON_MATCH, EX_ATTR, EX_BINARY,
                        EX_BOOL, EX_DIM, EX_DTYPE, EX_FLOAT, EX_IN, EX_INT, EX_INTS, EX_LIST, EX_NEG,
                        EX_NOT, EX_NUMEL, EX_OPNAME, EX_PROVEN, EX_RANK, EX_SHAPE, EX_STRING, HEAD_NAME,
                        HEAD_VAR, MAGIC, PAT_ALT, PAT_APP, PAT_CALL, PAT_CONST, PAT_VAR,
                        TERM_APP, TERM_CONST, TERM_VAR, VERSION)


class FormatError(Exception):
    def __init__(self, offset: int, message: str):
        super().__init__(f"offset {offset}: {message}")
        self.offset = offset
        self.message = message


class _Reader:
    def __init__(self, data: bytes):
        self.data = data
        self.pos = 0
        self.strings: list[str] = []
        # The variables in scope: kinds, for checks.
        self.kinds: list[int] = []

    def fail(self, message: str, offset: int | None = None):
        raise FormatError(self.pos if offset is None else offset, message)

    def take(self, n: int) -> bytes:
        if self.pos + n > len(self.data):
            self.fail(f"truncated: {n} more bytes needed, {len(self.data) - self.pos} left")
        chunk = self.data[self.pos:self.pos + n]
        self.pos += n
        return chunk

    def u8(self) -> int:
        return self.take(1)[0]

    def u16(self) -> int:
        return struct.unpack("<H", self.take(2))[0]

    def u32(self) -> int:
        return struct.unpack("<I", self.take(4))[0]

    def i64(self) -> int:
        return struct.unpack("<q", self.take(8))[0]

    def f64(self) -> float:
        return struct.unpack("<d", self.take(8))[0]

    def bool(self) -> bool:
        at = self.pos
        v = self.u8()
        if v not in (0, 1):
            self.fail(f"bool must be 0 or 1, got {v}", at)
        return v == 1

    def str(self) -> str:
        at = self.pos
        index = self.u32()
        if index >= len(self.strings):
            self.fail(f"string index {index} out of range ({len(self.strings)} strings)", at)
        return self.strings[index]

    def count(self, what: str, min_item_size: int = 1) -> int:
        at = self.pos
        n = self.u32()
        if n * min_item_size > len(self.data) - self.pos:
            self.fail(f"{what} count {n} exceeds the remaining bytes", at)
        return n

    def var(self, want: int | None = None, what: str = "variable") -> int:
        at = self.pos
        index = self.u32()
        if index >= len(self.kinds):
            self.fail(f"{what} index {index} out of range ({len(self.kinds)} variables)", at)
        if want is not None and self.kinds[index] != want:
            kind = "an operator" if want == core.OP else "a term"
            self.fail(f"{what} {index} must be {kind} variable", at)
        return index

    # ---- expressions
    def expr(self):
        at = self.pos
        tag = self.u8()
        if tag == EX_INT:
            return core.EInt(self.i64())
        if tag == EX_FLOAT:
            return core.EFloat(self.f64())
        if tag == EX_BOOL:
            return core.EBool(self.bool())
        if tag == EX_STRING:
            return core.EString(self.str())
        if tag == EX_INTS:
            n = self.count("ints", 8)
            return core.EInts(tuple(self.i64() for _ in range(n)))
        if tag == EX_LIST:
            n = self.count("list items", 1)
            return core.EList(tuple(self.expr() for _ in range(n)))
        if tag == EX_RANK:
            return core.ERank(self.var(core.TERM))
        if tag == EX_DIM:
            v = self.var(core.TERM)
            return core.EDim(v, self.expr())
        if tag == EX_NUMEL:
            return core.ENumel(self.var(core.TERM))
        if tag == EX_DTYPE:
            return core.EDtype(self.var(core.TERM))
        if tag == EX_OPNAME:
            return core.EOpName(self.var())
        if tag == EX_ATTR:
            v = self.var()
            return core.EAttr(v, self.str())
        if tag == EX_SHAPE:
            return core.EShape(self.var(core.TERM))
        if tag == EX_NOT:
            return core.ENot(self.expr())
        if tag == EX_PROVEN:
            return core.EProven(self.expr())
        if tag == EX_NEG:
            return core.ENeg(self.expr())
        if tag == EX_BINARY:
            op_at = self.pos
            op = self.u8()
            if op >= len(core.BINARY_OPS):
                self.fail(f"unknown binary operator {op}", op_at)
            lhs = self.expr()
            return core.EBinary(op, lhs, self.expr())
        if tag == EX_IN:
            operand = self.expr()
            n = self.count("in items")
            return core.EIn(operand, tuple(self.expr() for _ in range(n)))
        self.fail(f"unknown expression tag {tag}", at)

    def head(self):
        at = self.pos
        tag = self.u8()
        if tag == HEAD_NAME:
            return core.HeadName(self.str())
        if tag == HEAD_VAR:
            return core.HeadVar(self.var(core.OP, "head variable"))
        self.fail(f"unknown head tag {tag}", at)

    def attrs(self):
        n = self.count("attributes", 5)
        out = []
        for _ in range(n):
            name = self.str()
            out.append((name, self.expr()))
        return tuple(out)

    def pattern(self, calls: list):
        at = self.pos
        tag = self.u8()
        if tag == PAT_VAR:
            return core.PVar(self.var(core.TERM, "pattern variable"))
        if tag == PAT_APP:
            head = self.head()
            output = self.u32()
            n = self.count("arguments")
            args = tuple(self.pattern(calls) for _ in range(n))
            return core.PApp(head, output, args, self.attrs())
        if tag == PAT_CONST:
            return core.PConst(self.f64())
        if tag == PAT_CALL:
            definition = self.u32()
            n = self.count("call arguments")
            args = []
            for _ in range(n):
                kind_at = self.pos
                kind = self.u8()
                if kind == CALLARG_PATTERN:
                    args.append(self.pattern(calls))
                elif kind == CALLARG_HEAD:
                    args.append(self.head())
                else:
                    self.fail(f"unknown call argument kind {kind}", kind_at)
            call = core.PCall(definition, tuple(args))
            calls.append((at, call))
            return call
        if tag == PAT_ALT:
            n = self.count("options")
            if n == 0:
                self.fail("an inline choice needs at least one option", at)
            return core.PAlt(tuple(self.pattern(calls) for _ in range(n)))
        self.fail(f"unknown pattern tag {tag}", at)

    def term(self):
        at = self.pos
        tag = self.u8()
        if tag == TERM_VAR:
            return core.TVar(self.var(core.TERM, "term variable"))
        if tag == TERM_APP:
            head = self.head()
            output = self.u32()
            n = self.count("arguments")
            args = tuple(self.term() for _ in range(n))
            return core.TApp(head, output, args, self.attrs())
        if tag == TERM_CONST:
            return core.TConst(self.f64())
        self.fail(f"unknown term tag {tag}", at)

    # ---- structure
    def alternate(self, nparams: int, calls: list) -> core.Alternate:
        line = self.u32()
        at = self.pos
        n = self.count("variables", 5)
        if n < nparams:
            self.fail(f"an alternate has {n} variables, fewer than the {nparams} parameters", at)
        vars_ = []
        for _ in range(n):
            name = self.str()
            kind_at = self.pos
            kind = self.u8()
            if kind not in (core.TERM, core.OP):
                self.fail(f"unknown variable kind {kind}", kind_at)
            vars_.append(core.Var(name, kind))
        self.kinds = [v.kind for v in vars_]
        body = self.pattern(calls)
        constraints = []
        for _ in range(self.count("constraints", 6)):
            tag_at = self.pos
            tag = self.u8()
            cline = self.u32()
            if tag == CON_GUARD:
                constraints.append(core.Guard(cline, self.expr()))
            elif tag == CON_MATCH:
                v = self.var(core.TERM, "match constraint variable")
                constraints.append(core.Match(cline, v, self.pattern(calls)))
            else:
                self.fail(f"unknown constraint tag {tag}", tag_at)
        return core.Alternate(line, tuple(vars_), body, tuple(constraints))

    def read(self) -> core.PatternFile:
        if self.take(4) != MAGIC:
            self.fail("bad magic (not a .pmb file)", 0)
        version = self.u16()
        if version not in (1, VERSION):
            self.fail(f"unsupported version {version} (this reader reads 1 and {VERSION})", 4)
        flags = self.u16()
        if flags != 0:
            self.fail(f"unknown flags {flags}", 6)
        for _ in range(self.count("strings", 4)):
            n = self.u32()
            at = self.pos
            try:
                self.strings.append(self.take(n).decode("utf-8"))
            except UnicodeDecodeError:
                self.fail("a string is not valid UTF-8", at)
        source = self.str()
        definitions = []
        calls: list = []
        for _ in range(self.count("definitions", 16)):
            name = self.str()
            line = self.u32()
            nparams = self.u32()
            alts = []
            for _ in range(self.count("alternates", 9)):
                alt_calls: list = []
                alt = self.alternate(nparams, alt_calls)
                calls.extend((at, call, alt) for at, call in alt_calls)
                alts.append(alt)
            if alts:
                kinds = [v.kind for v in alts[0].vars[:nparams]]
                for alt in alts[1:]:
                    if [v.kind for v in alt.vars[:nparams]] != kinds:
                        self.fail(f"the alternates of {name} disagree on parameter kinds")
            definitions.append(core.Definition(name, line, nparams, tuple(alts)))
        for at, call, _alt in calls:
            if call.definition >= len(definitions):
                self.fail(f"call of definition {call.definition}, out of range "
                          f"({len(definitions)} definitions)", at)
            callee = definitions[call.definition]
            if len(call.args) != callee.nparams:
                self.fail(f"call of {callee.name} with {len(call.args)} arguments; it has "
                          f"{callee.nparams} parameters", at)
            for arg, param in zip(call.args, callee.params()):
                is_head = isinstance(arg, (core.HeadName, core.HeadVar))
                if is_head != (param.kind == core.OP):
                    self.fail(f"call of {callee.name}: the argument for {param.name} has the "
                              "wrong kind", at)
        rules = []
        for _ in range(self.count("rules", 21)):
            name = self.str()
            at = self.pos
            definition = self.u32()
            if definition >= len(definitions):
                self.fail(f"rule {name} names definition {definition}, out of range", at)
            params_of = definitions[definition].params()
            line = self.u32()
            params = []
            for _ in range(self.count("rule parameters", 4)):
                p_at = self.pos
                p = self.u32()
                if p >= len(params_of):
                    self.fail(f"rule {name}: parameter {p} out of range", p_at)
                params.append(p)
            self.kinds = [params_of[p].kind for p in params]
            guards = tuple(self.expr() for _ in range(self.count("guards")))
            replacement = self.term()
            also = []
            if version >= 2:
                for _ in range(self.count("further replacements", 5)):
                    v_at = self.pos
                    var = self.u32()
                    if var >= len(params) or self.kinds[var] != core.TERM:
                        self.fail(f"rule {name}: further replacement of variable {var}, which is "
                                  "not a term variable of the rule", v_at)
                    if any(var == replaced for replaced, _ in also):
                        self.fail(f"rule {name} replaces variable {var} twice", v_at)
                    also.append((var, self.term()))
            rules.append(core.Rule(name, definition, line, tuple(params), guards, replacement,
                                   tuple(also)))
        if self.pos != len(self.data):
            self.fail(f"{len(self.data) - self.pos} trailing bytes")
        return core.PatternFile(source, tuple(definitions), tuple(rules))


def from_bytes(data: bytes) -> core.PatternFile:
    """Parses ``.pmb`` bytes (version 1 or 2); raises FormatError naming the byte offset."""
    return _Reader(bytes(data)).read()


def read_file(path: str) -> core.PatternFile:
    with open(path, "rb") as f:
        return from_bytes(f.read())
