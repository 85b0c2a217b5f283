"""The global, ordered registry that ``@pattern`` and ``@rule`` fill."""
from __future__ import annotations

import inspect
from dataclasses import dataclass, field
from typing import Callable, Optional, Union

from . import core, symbolic
from .errors import PyPMError, user_location
from .transform import def_line


@dataclass(frozen=True)
class Param:
    name: str
    kind: int  # core.TERM or core.OP


@dataclass
class AltEntry:
    fn: Callable
    filename: str
    line: int


@dataclass
class DefEntry:
    name: str
    params: tuple[Param, ...]
    filename: str
    line: int
    alts: list[AltEntry] = field(default_factory=list)
    handle: Optional["PatternHandle"] = None


@dataclass
class RuleEntry:
    name: str
    fn: Callable
    target: Union["PatternHandle", str]
    filename: str
    line: int


class Registry:
    def __init__(self) -> None:
        self.defs: dict[str, DefEntry] = {}
        self.rules: list[RuleEntry] = []

    def first_file(self) -> Optional[str]:
        entries = [e.filename for e in self.defs.values()]
        entries += [r.filename for r in self.rules]
        return entries[0] if entries else None


REGISTRY = Registry()


def reset() -> None:
    """Forgets every registered pattern and rule (for tests and for compile_file)."""
    global REGISTRY
    REGISTRY = Registry()


def current_registry() -> Registry:
    return REGISTRY


def _is_op_annotation(annotation) -> bool:
    if annotation is symbolic.Op:
        return True
    if isinstance(annotation, str):
        return annotation.strip() in ("Op", "pypm.Op", "saturate.pypm.Op")
    return False


def signature_params(fn: Callable, what: str, filename: str, line: int) -> tuple[Param, ...]:
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError) as e:
        raise PyPMError(f"{what} {fn.__name__}: cannot read its parameters ({e})", filename,
                        line) from None
    params = []
    for p in sig.parameters.values():
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            raise PyPMError(f"{what} {fn.__name__}: *args and **kwargs are not allowed",
                            filename, line)
        if p.kind == p.KEYWORD_ONLY:
            raise PyPMError(f"{what} {fn.__name__}: keyword-only parameters are not allowed",
                            filename, line)
        if p.default is not p.empty:
            raise PyPMError(f"{what} {fn.__name__}: parameter '{p.name}' has a default value; "
                            "pattern parameters are variables and take none", filename, line)
        if p.annotation is p.empty:
            kind = core.TERM
        elif _is_op_annotation(p.annotation):
            kind = core.OP
        else:
            raise PyPMError(f"{what} {fn.__name__}: parameter '{p.name}' has the annotation "
                            f"{p.annotation!r}; only pypm.Op (an operator variable) is allowed",
                            filename, line)
        params.append(Param(p.name, kind))
    return tuple(params)


def _params_text(params: tuple[Param, ...]) -> str:
    return "(" + ", ".join(p.name + (": Op" if p.kind == core.OP else "") for p in params) + ")"


class PatternHandle:
    """What ``@pattern`` returns: the whole definition (all alternates of that name).

    Calling it inside a pattern body makes a call of the definition.
    """

    def __init__(self, name: str):
        self.name = name
        self.__name__ = name

    def entry(self) -> DefEntry:
        entry = REGISTRY.defs.get(self.name)
        if entry is None or entry.handle is not self:
            raise PyPMError(f"pattern {self.name} is not registered (defined before "
                            "pypm.reset()?)")
        return entry

    @property
    def params(self) -> tuple[Param, ...]:
        return self.entry().params

    def __call__(self, *args, **kwargs):
        symbolic._require(f"the pattern call {self.name}(...)", symbolic.PATTERN)
        params = self.entry().params
        if len(args) > len(params):
            raise PyPMError(f"pattern {self.name}{_params_text(params)} takes {len(params)} "
                            f"argument{'s' if len(params) != 1 else ''}, got {len(args)}")
        values: list = list(args) + [_MISSING] * (len(params) - len(args))
        for name, value in kwargs.items():
            index = next((i for i, p in enumerate(params) if p.name == name), None)
            if index is None:
                raise PyPMError(f"pattern {self.name}{_params_text(params)} has no parameter "
                                f"'{name}'")
            if values[index] is not _MISSING:
                raise PyPMError(f"pattern {self.name}: parameter '{name}' given twice")
            values[index] = value
        missing = [p.name for p, v in zip(params, values) if v is _MISSING]
        if missing:
            raise PyPMError(f"pattern {self.name}{_params_text(params)}: missing argument"
                            f"{'s' if len(missing) > 1 else ''} " + ", ".join(missing))
        converted = []
        for p, v in zip(params, values):
            what = f"argument '{p.name}' of {self.name}"
            if p.kind == core.OP:
                converted.append(symbolic.to_head(v, what))
            else:
                converted.append(symbolic.to_value(v, what))
        return symbolic.Call(self, tuple(converted))

    def __bool__(self) -> bool:
        return True

    def __repr__(self) -> str:
        return f"<pypm pattern {self.name}>"


class _Missing:
    pass


_MISSING = _Missing()


def pattern(fn: Optional[Callable] = None):
    """Registers ``fn`` as an alternate of the pattern named ``fn.__name__``.

    Returns the definition's handle, the same object for every alternate of one name.
    """
    if fn is None:
        return pattern
    if isinstance(fn, PatternHandle) or not callable(fn) or not hasattr(fn, "__code__"):
        filename, line = user_location()
        raise PyPMError("@pattern decorates a function (def P(x, ...): ...)", filename, line)
    filename = fn.__code__.co_filename
    line = def_line(fn)
    params = signature_params(fn, "pattern", filename, line)
    entry = REGISTRY.defs.get(fn.__name__)
    if entry is None:
        entry = DefEntry(fn.__name__, params, filename, line)
        entry.handle = PatternHandle(fn.__name__)
        REGISTRY.defs[fn.__name__] = entry
    elif entry.params != params:
        raise PyPMError(f"alternate of {fn.__name__} has the parameters {_params_text(params)} "
                        f"but its first alternate ({entry.filename}:{entry.line}) has "
                        f"{_params_text(entry.params)}; every alternate must have the same "
                        "parameter names, count and kinds", filename, line)
    entry.alts.append(AltEntry(fn, filename, line))
    return entry.handle


def rule(target):
    """``@rule(P)``: the decorated function is a rewrite rule for every match of pattern P.

    ``P`` is the pattern (its handle) or its name. The rule's parameters are a subset of P's.
    """
    if not isinstance(target, (PatternHandle, str)):
        filename, line = user_location()
        if callable(target):
            raise PyPMError("@rule needs the pattern: write @rule(P) above the rule", filename,
                            line)
        raise PyPMError(f"@rule(P): P must be a pattern or its name, not a "
                        f"{type(target).__name__}", filename, line)

    def register(fn: Callable):
        if not callable(fn) or not hasattr(fn, "__code__"):
            filename, line = user_location()
            raise PyPMError("@rule(P) decorates a function", filename, line)
        filename = fn.__code__.co_filename
        line = def_line(fn)
        REGISTRY.rules.append(RuleEntry(fn.__name__, fn, target, filename, line))
        return fn

    return register
