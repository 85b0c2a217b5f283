"""The IR's operators as PyPM sees them: names, input arity, attributes (kind and default).

The table itself, operator_table.py, is generated from the IR's registry (src/ir/operators.cpp,
generate_operators.py); tests fail while it is stale. Plain data: the tracer (symbolic.py) and
the constructors (ops.py) read it.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional

from .operator_table import OPERATORS as _TABLE

# Attribute kinds (the IR's AttrKind).
INT = "int"
INTS = "ints"
FLOAT = "float"
STRING = "string"
ACTIVATION = "activation"  # read and written as a name, one of ACTIVATIONS
PADDING = "padding"  # read and written as a name: same, valid

# The IR's fused activation codes in order (src/ir/attribute.h); the last three take fused_conv's
# activation_alpha and activation_beta.
ACTIVATIONS = ("none", "sigmoid", "relu", "tanh", "clip", "leaky_relu", "hard_sigmoid")
PADDINGS = ("same", "valid")


class _Required:
    def __repr__(self) -> str:
        return "REQUIRED"


REQUIRED: Any = _Required()


@dataclass(frozen=True)
class AttrInfo:
    name: str
    kind: str
    default: Any = REQUIRED

    @property
    def required(self) -> bool:
        return self.default is REQUIRED


@dataclass(frozen=True)
class OpInfo:
    name: str  # the IR name, e.g. "matmul"
    constructor: str  # the Python name, e.g. "MatMul"
    min_inputs: int
    max_inputs: Optional[int]  # None: variadic
    inputs: tuple[str, ...]
    attrs: tuple[AttrInfo, ...] = ()
    outputs: Optional[int] = 1  # None: the attributes decide (split's sizes, opaque's types)

    def attr(self, name: str) -> Optional[AttrInfo]:
        for a in self.attrs:
            if a.name == name:
                return a
        return None

    def arity_text(self) -> str:
        if self.max_inputs is None:
            return f"at least {self.min_inputs} input{'s' if self.min_inputs != 1 else ''}"
        if self.min_inputs == self.max_inputs:
            n = self.min_inputs
            return f"{n} input{'s' if n != 1 else ''}"
        return f"{self.min_inputs} to {self.max_inputs} inputs"


OPERATORS: tuple[OpInfo, ...] = tuple(
    OpInfo(name, constructor, least, most, inputs, tuple(AttrInfo(*a) for a in attributes),
           outputs)
    for name, constructor, least, most, inputs, attributes, outputs in _TABLE)

BY_NAME: dict[str, OpInfo] = {op.name: op for op in OPERATORS}

# Every attribute name some operator has, with its kind (the same kind wherever it appears).
ATTRIBUTE_KINDS: dict[str, str] = {}
for _op in OPERATORS:
    for _a in _op.attrs:
        ATTRIBUTE_KINDS.setdefault(_a.name, _a.kind)
