"""The operator constructors: one per IR operator (src/ir/operators.cpp), in CamelCase.

Each constructor (symbolic.OpConstructor) knows its operator's IR name, input arity and
attributes (operator_info.py), so that misuse is reported at the line of the pattern file.
"""
from __future__ import annotations

from .operator_info import BY_NAME, OPERATORS
from .symbolic import OpConstructor

CONSTRUCTORS: dict[str, OpConstructor] = {op.constructor: OpConstructor(op, op.constructor)
                                          for op in OPERATORS}
# Aliases.
CONSTRUCTORS["Trans"] = OpConstructor(BY_NAME["transpose"], "Trans")

__all__ = sorted(CONSTRUCTORS)
globals().update(CONSTRUCTORS)
