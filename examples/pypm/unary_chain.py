"""Chains of one idempotent unary operator collapse to one application (the paper's Figure 3).

`UnaryChain(x, f)` matches f(f(...f(x)...)) for any one-input operator f (an operator
variable): the first alternate recurses, the second is the base case. Matching tries the
recursive alternate first, so x ends up bound to the input of the innermost f.

`RepeatedUnary` asks for at least two applications, so that a lone relu(x) is not "rewritten"
to itself; the rule's guard keeps it to operators known to be idempotent.

Compile: python -m saturate.pypm compile examples/pypm/unary_chain.py -o unary_chain.pmb
"""
import sys

from saturate import pypm
from saturate.pypm import Op, pattern, rule


@pattern
def UnaryChain(x, f: Op):
    return f(UnaryChain(x, f))


@pattern
def UnaryChain(x, f: Op):  # noqa: F811 - the base case
    return f(x)


@pattern
def RepeatedUnary(x, f: Op):
    return f(UnaryChain(x, f))


@rule(RepeatedUnary)
def collapse_idempotent_chain(x, f: Op):
    assert f.name in ("relu",)
    return f(x)


if __name__ == "__main__":
    pypm.serialize(sys.argv[1] if len(sys.argv) > 1 else "unary_chain.pmb")
