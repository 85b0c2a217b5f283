"""From the registry to the core calculus: symbolic execution, lowering and static checks."""
from __future__ import annotations

import os
from collections import deque
from typing import Callable, Iterator, Optional

from . import core
from .errors import PyPMError, locate
from .registry import DefEntry, Param, Registry, RuleEntry, signature_params
from .symbolic import (PATTERN, RULE, Alt, App, Call, Const, OpVar, TermVar, Tracer, to_value,
                       tracing)
from .transform import instrument

MAX_PATHS = 1024


# ---- running a body once per path -------------------------------------------------------------
def _explore(fn: Callable, mode: str, owner: str, params: tuple[Param, ...], filename: str,
             line: int, finish: Callable[[Tracer, object], object]) -> Iterator[object]:
    """Runs ``fn`` once per path through its symbolic branches (``if`` first, then ``else``)."""
    prefix: list[bool] = []
    for _ in range(MAX_PATHS):
        tracer = Tracer(mode, owner, prefix)
        with tracing(tracer):
            try:
                args = [tracer.new_var(OpVar if p.kind == core.OP else TermVar, p.name, True,
                                       line, filename) for p in params]
                result = fn(*args)
                lowered = finish(tracer, result)
            except Exception as e:  # noqa: BLE001 - every error becomes a located PyPMError
                raise locate(e, filename, line)
        yield lowered
        decisions = tracer.decisions[: tracer.pos]
        while decisions and not decisions[-1]:
            decisions.pop()
        if not decisions:
            return
        decisions[-1] = False
        prefix = decisions
    raise PyPMError(f"{owner} has more than {MAX_PATHS} paths through its if/else branches",
                    filename, line)


# ---- lowering a pattern alternate -------------------------------------------------------------
def _children(v) -> list:
    if isinstance(v, App):
        return list(v.args)
    if isinstance(v, Call):
        return [a for a in v.args if not isinstance(a, (core.HeadName, core.HeadVar))]
    if isinstance(v, Alt):
        return list(v.options)
    return []


class _AlternateLowering:
    """Lowers one path of a pattern body to a core alternate.

    A pattern object used more than once (``d = Sub(x, m)`` then ``Mul(d, d)``) is one graph
    value: it becomes a local term variable at every use, and a match constraint
    ``d <= Sub(x, m)`` right after the body (or the constraint) where it first appears.
    Writing the expression twice instead makes two separate subpatterns, which may match two
    different (structurally equal) nodes.
    """

    def __init__(self, tracer: Tracer, def_index: dict[str, int], filename: str):
        self.tracer = tracer
        self.def_index = def_index
        self.filename = filename
        self.shared: set[int] = set()
        self.var_for: dict[int, int] = {}
        self.pending: deque = deque()
        self.constraints: list = []

    def count(self, roots: list) -> None:
        seen: dict[int, int] = {}
        stack = list(reversed(roots))
        while stack:
            v = stack.pop()
            if not isinstance(v, (App, Call, Alt)):
                continue
            seen[id(v)] = seen.get(id(v), 0) + 1
            if seen[id(v)] == 1:
                stack.extend(reversed(_children(v)))
        self.shared = {k for k, n in seen.items() if n > 1}

    def low(self, v, top: bool = False):
        if isinstance(v, TermVar):
            return core.PVar(v._idx())
        if isinstance(v, Const):
            return core.PConst(v.value)
        if id(v) in self.shared and not top:
            index = self.var_for.get(id(v))
            if index is None:
                fresh = self.tracer.new_var(TermVar, v.bind_name, False, v.line, v.file)
                index = fresh._index
                fresh._name = fresh._name or "_shared"
                self.var_for[id(v)] = index
                self.pending.append((index, v))
            return core.PVar(index)
        if isinstance(v, App):
            return core.PApp(v.head, v.output, tuple(self.low(a) for a in v.args), v.attrs)
        if isinstance(v, Call):
            name = v.handle.name
            if name not in self.def_index:
                raise PyPMError(f"pattern {name} is not registered (defined before "
                                "pypm.reset()?)", v.file, v.line)
            args = tuple(a if isinstance(a, (core.HeadName, core.HeadVar)) else self.low(a)
                         for a in v.args)
            return core.PCall(self.def_index[name], args)
        if isinstance(v, Alt):
            return core.PAlt(tuple(self.low(o) for o in v.options))
        raise PyPMError(f"internal: cannot lower {v!r}")

    def flush(self) -> None:
        while self.pending:
            index, node = self.pending.popleft()
            self.constraints.append(core.Match(node.line or 0, index, self.low(node, top=True)))

    def run(self, result, alt_line: int) -> tuple:
        if result is None:
            raise PyPMError("a pattern must return the pattern it matches (the body returned "
                            "None: a missing return?)", self.filename, alt_line)
        body_value = to_value(result, "the value returned by the pattern")
        self.count([body_value] + [c[2] for c in self.tracer.constraints if c[0] == "match"])
        body = self.low(body_value)
        self.flush()
        for c in self.tracer.constraints:
            if c[0] == "guard":
                self.constraints.append(core.Guard(c[2], c[1]))
            else:
                _, subject, pattern_value, line = c
                self.constraints.append(core.Match(line, subject._idx(), self.low(pattern_value)))
            self.flush()
        return body, tuple(self.constraints)


def _name_vars(tracer: Tracer) -> tuple[core.Var, ...]:
    used: set[str] = set()
    out = []
    for v in tracer.vars:
        base = v._name or ("_f" if isinstance(v, OpVar) else "_v")
        name, k = base, 2
        while name in used:
            name, k = f"{base}_{k}", k + 1
        used.add(name)
        out.append(core.Var(name, core.OP if isinstance(v, OpVar) else core.TERM))
    return tuple(out)


def _binds(p) -> set[int]:
    if isinstance(p, core.PVar):
        return {p.var}
    if isinstance(p, core.PConst):
        return set()
    if isinstance(p, core.PApp):
        out = {p.head.var} if isinstance(p.head, core.HeadVar) else set()
        for a in p.args:
            out |= _binds(a)
        return out
    if isinstance(p, core.PCall):
        out = set()
        for a in p.args:
            if isinstance(a, core.HeadVar):
                out.add(a.var)
            elif not isinstance(a, core.HeadName):
                out |= _binds(a)
        return out
    if isinstance(p, core.PAlt):
        sets = [_binds(o) for o in p.options]
        return set.intersection(*sets) if sets else set()
    raise TypeError(p)


def expr_vars(e) -> set[int]:
    if isinstance(e, (core.ERank, core.ENumel, core.EDtype, core.EOpName, core.EAttr,
                      core.EShape)):
        return {e.var}
    if isinstance(e, core.EDim):
        return {e.var} | expr_vars(e.index)
    if isinstance(e, (core.ENot, core.EProven, core.ENeg)):
        return expr_vars(e.operand)
    if isinstance(e, core.EBinary):
        return expr_vars(e.lhs) | expr_vars(e.rhs)
    if isinstance(e, core.EList):
        return set().union(*(expr_vars(i) for i in e.items))
    if isinstance(e, core.EIn):
        out = expr_vars(e.operand)
        for i in e.items:
            out |= expr_vars(i)
        return out
    return set()


def _check_binding(tracer: Tracer, names: tuple[core.Var, ...], body, constraints, owner: str,
                   filename: str, alt_line: int) -> None:
    """Static version of "every variable is bound, and guards read bound variables only"."""
    bound = _binds(body)
    for c in constraints:
        if isinstance(c, core.Guard):
            for v in sorted(expr_vars(c.expr)):
                if v not in bound:
                    raise PyPMError(f"the guard reads '{names[v].name}' before it is bound (a "
                                    "guard runs after the body and the constraints before it; "
                                    "bind the variable first)", filename, c.line)
        else:
            if c.var not in bound:
                raise PyPMError(f"the match constraint on '{names[c.var].name}' comes before "
                                f"'{names[c.var].name}' is bound (bind it in the body or in an "
                                "earlier match constraint)", filename, c.line)
            bound |= _binds(c.pattern)
    for i, v in enumerate(tracer.vars):
        if i in bound:
            continue
        kind = "operator variable" if isinstance(v, OpVar) else "variable"
        if v._param:
            raise PyPMError(f"parameter '{names[i].name}' of {owner} is never bound by this "
                            "alternate (every variable must be bound by a successful match)",
                            filename, alt_line)
        raise PyPMError(f"local {kind} '{names[i].name}' is never bound (use it in the pattern "
                        "or on the right of a match constraint)", v._file or filename,
                        v._line or alt_line)


# ---- lowering a rule --------------------------------------------------------------------------
def _to_term(v):
    if isinstance(v, TermVar):
        return core.TVar(v._idx())
    if isinstance(v, Const):
        return core.TConst(v.value)
    if isinstance(v, App):
        return core.TApp(v.head, v.output, tuple(_to_term(a) for a in v.args), v.attrs)
    if isinstance(v, (Call, Alt)):
        raise PyPMError("a rule builds operators; it cannot call patterns or use inline choices")
    raise PyPMError(f"internal: cannot lower {v!r}")


# ---- the whole file ---------------------------------------------------------------------------
def build(registry: Registry, source_file: Optional[str] = None) -> core.PatternFile:
    """Runs every registered body symbolically and returns the core-calculus file."""
    entries = list(registry.defs.values())
    def_index = {e.name: i for i, e in enumerate(entries)}
    definitions = [_build_definition(e, def_index) for e in entries]
    _check_recursion(definitions, entries)
    rules: list[core.Rule] = []
    for r in registry.rules:
        rules.extend(_build_rules(r, registry, def_index, definitions))
    if source_file is None:
        first = registry.first_file()
        source_file = os.path.basename(first) if first else ""
    return core.PatternFile(source_file, tuple(definitions), tuple(rules))


def _build_definition(entry: DefEntry, def_index: dict[str, int]) -> core.Definition:
    alternates = []
    owner = f"pattern {entry.name}"
    for alt in entry.alts:
        fn = _instrumented(alt.fn, alt.filename, alt.line)

        def finish(tracer: Tracer, result, alt=alt):
            lowering = _AlternateLowering(tracer, def_index, alt.filename)
            body, constraints = lowering.run(result, alt.line)
            names = _name_vars(tracer)
            _check_binding(tracer, names, body, constraints, owner, alt.filename, alt.line)
            return core.Alternate(alt.line, names, body, constraints)

        alternates.extend(_explore(fn, PATTERN, owner, entry.params, alt.filename, alt.line,
                                   finish))
    return core.Definition(entry.name, entry.line, len(entry.params), tuple(alternates))


def _instrumented(fn: Callable, filename: str, line: int) -> Callable:
    try:
        return instrument(fn)
    except Exception as e:  # noqa: BLE001
        raise locate(e, filename, line)


def _build_rules(r: RuleEntry, registry: Registry, def_index: dict[str, int],
                 definitions: list[core.Definition]) -> list[core.Rule]:
    target = r.target if isinstance(r.target, str) else r.target.name
    if target not in def_index or (not isinstance(r.target, str)
                                   and registry.defs[target].handle is not r.target):
        raise PyPMError(f"rule {r.name} is for the pattern '{target}', which is not defined",
                        r.filename, r.line)
    entry = registry.defs[target]
    definition = definitions[def_index[target]]
    declared = signature_params(r.fn, "rule", r.filename, r.line)
    locals_ = {v.name for alt in definition.alternates for v in alt.vars[definition.nparams:]}
    params: list[Param] = []
    indices: list[int] = []
    for p in declared:
        index = next((i for i, q in enumerate(entry.params) if q.name == p.name), None)
        if index is None:
            if p.name in locals_:
                raise PyPMError(f"rule {r.name} uses '{p.name}', a local variable of pattern "
                                f"{target}; a rule can only use the pattern's parameters "
                                f"({', '.join(q.name for q in entry.params)})", r.filename,
                                r.line)
            raise PyPMError(f"rule {r.name} has the parameter '{p.name}', which pattern {target} "
                            f"lacks (its parameters: "
                            f"{', '.join(q.name for q in entry.params)})", r.filename, r.line)
        kind = entry.params[index].kind
        if p.kind == core.OP and kind != core.OP:
            raise PyPMError(f"rule {r.name}: '{p.name}' is annotated pypm.Op but is a term "
                            f"parameter of pattern {target}", r.filename, r.line)
        params.append(Param(p.name, kind))
        indices.append(index)
    fn = _instrumented(r.fn, r.filename, r.line)

    def finish(tracer: Tracer, result):
        guards = []
        for c in tracer.constraints:
            if c[0] != "guard":
                raise PyPMError("match constraints are not allowed in a rule", r.filename, c[3])
            guards.append(c[1])
        if result is None:
            raise PyPMError(f"rule {r.name} must return the replacement (it returned None: a "
                            "missing return?)", r.filename, r.line)
        further = ()
        if isinstance(result, tuple):
            if not result:
                raise PyPMError(f"rule {r.name} returned an empty tuple; it must return the "
                                "replacement", r.filename, r.line)
            result, further = result[0], result[1:]
        replacement = _to_term(to_value(result, "the value returned by the rule"))
        also = _further_replacements(r, further)
        return core.Rule(r.name, def_index[target], r.line, tuple(indices), tuple(guards),
                         replacement, also)

    return list(_explore(fn, RULE, f"rule {r.name}", tuple(params), r.filename, r.line, finish))


def _further_replacements(r: RuleEntry, pairs: tuple) -> tuple:
    """``return root, (s, t), ...``: each pair replaces the value bound to the rule's term
    parameter ``s`` by the term ``t`` as well (a fused kernel that also computes a value the
    pattern matched on the way, such as the residual sum of a pre-norm block)."""
    also = []
    seen: set[int] = set()
    for pair in pairs:
        if not (isinstance(pair, tuple) and len(pair) == 2 and isinstance(pair[0], TermVar)):
            raise PyPMError(f"rule {r.name} returned a tuple: after the replacement each element "
                            "must be a pair (variable, replacement), the variable one of the "
                            "rule's term parameters", r.filename, r.line)
        var, value = pair
        index = var._idx()
        if index in seen:
            raise PyPMError(f"rule {r.name} replaces '{var._display()}' twice", r.filename,
                            r.line)
        seen.add(index)
        also.append((index, _to_term(to_value(value, f"the replacement of {var._display()}"))))
    return tuple(also)


# ---- recursion checks -------------------------------------------------------------------------
def _productive(p, prod: list[bool]) -> bool:
    if isinstance(p, (core.PVar, core.PConst)):
        return True
    if isinstance(p, core.PApp):
        return all(_productive(a, prod) for a in p.args)
    if isinstance(p, core.PCall):
        return prod[p.definition] and all(
            _productive(a, prod) for a in p.args
            if not isinstance(a, (core.HeadName, core.HeadVar)))
    if isinstance(p, core.PAlt):
        return any(_productive(o, prod) for o in p.options)
    raise TypeError(p)


def _calls(p, out: set[int]) -> None:
    if isinstance(p, core.PApp):
        for a in p.args:
            _calls(a, out)
    elif isinstance(p, core.PCall):
        out.add(p.definition)
        for a in p.args:
            if not isinstance(a, (core.HeadName, core.HeadVar)):
                _calls(a, out)
    elif isinstance(p, core.PAlt):
        for o in p.options:
            _calls(o, out)


def _root_calls(alt: core.Alternate) -> set[int]:
    """Definitions called at the very value the alternate matches (no node consumed)."""
    out: set[int] = set()
    seen_vars: set[int] = set()

    def go(p) -> None:
        if isinstance(p, core.PCall):
            out.add(p.definition)
        elif isinstance(p, core.PAlt):
            for o in p.options:
                go(o)
        elif isinstance(p, core.PVar) and p.var not in seen_vars:
            seen_vars.add(p.var)
            for c in alt.constraints:
                if isinstance(c, core.Match) and c.var == p.var:
                    go(c.pattern)

    go(alt.body)
    return out


def _check_recursion(definitions: list[core.Definition], entries: list[DefEntry]) -> None:
    n = len(definitions)
    prod = [False] * n
    changed = True
    while changed:
        changed = False
        for i, d in enumerate(definitions):
            if prod[i]:
                continue
            for alt in d.alternates:
                patterns = [alt.body] + [c.pattern for c in alt.constraints
                                         if isinstance(c, core.Match)]
                if all(_productive(p, prod) for p in patterns):
                    prod[i] = changed = True
                    break
    for i, d in enumerate(definitions):
        if prod[i]:
            continue
        called: set[int] = set()
        for alt in d.alternates:
            for p in [alt.body] + [c.pattern for c in alt.constraints
                                   if isinstance(c, core.Match)]:
                _calls(p, called)
        blocked = sorted(definitions[j].name for j in called if not prod[j] and j != i)
        if i in called and not blocked:
            message = (f"pattern {d.name} has no base case: every alternate calls {d.name}, so "
                       "a match can never finish; add an alternate that does not recurse")
        else:
            message = (f"pattern {d.name} has no base case: every alternate calls a pattern "
                       f"that cannot finish ({', '.join(blocked or [d.name])})")
        raise PyPMError(message, entries[i].filename, d.line)
    # Left recursion: a cycle of calls at the same value.
    edges = [set().union(*[_root_calls(a) for a in d.alternates]) if d.alternates else set()
             for d in definitions]
    state = [0] * n  # 0 new, 1 on the stack, 2 done

    def visit(i: int, path: list[int]) -> None:
        state[i] = 1
        for j in sorted(edges[i]):
            if state[j] == 1:
                cycle = path[path.index(j):] + [j] if j in path else [i, j]
                names = " -> ".join(definitions[k].name for k in cycle)
                raise PyPMError(f"left recursion: {names} calls back at the same value without "
                                "matching a node first, so matching would never finish",
                                entries[j].filename, definitions[j].line)
            if state[j] == 0:
                visit(j, path + [j])
        state[i] = 2

    for i in range(n):
        if state[i] == 0:
            visit(i, [i])
