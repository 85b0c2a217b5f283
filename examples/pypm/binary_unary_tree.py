"""Trees built from one binary operator f and one unary operator g (the paper's Figure 4).

The tree's root is the parameter x itself: each alternate binds x to the matched value (the
body just returns x) and describes its shape with a match constraint `x <= ...` over fresh
local variables (`var()`). Children are trees again (a call in an input position matches the
child and binds y to it), so the recursion always consumes a node.

Every variable, the operator parameters included, must be bound by a successful match, so
every alternate has to bind both f and g. The base case is the smallest such tree, a binary
node over two unary nodes over arbitrary leaves: f(g(a), g(b)). Larger trees put f or g nodes
above trees.

This file has no rule, on purpose: there is no sound generic replacement for "some tree of f
and g" in the IR (the tree could be fused into one kernel, but the IR has no such operator).
Patterns without rules are still useful: other patterns call them, and the C++ matcher can
report where they match. A pattern-only file is valid.

Compile: python -m saturate.pypm compile examples/pypm/binary_unary_tree.py -o tree.pmb
"""
import sys

from saturate import pypm
from saturate.pypm import Op, pattern, var


@pattern
def BinaryUnaryTree(x, f: Op, g: Op):  # a binary node over two trees
    y, z = var(), var()
    assert x <= f(BinaryUnaryTree(y, f, g), BinaryUnaryTree(z, f, g))
    return x


@pattern
def BinaryUnaryTree(x, f: Op, g: Op):  # noqa: F811 - a binary node over a tree and a unary node
    y, z = var(), var()
    assert x <= f(BinaryUnaryTree(y, f, g), g(z))
    return x


@pattern
def BinaryUnaryTree(x, f: Op, g: Op):  # noqa: F811 - a binary node over a unary node and a tree
    y, z = var(), var()
    assert x <= f(g(y), BinaryUnaryTree(z, f, g))
    return x


@pattern
def BinaryUnaryTree(x, f: Op, g: Op):  # noqa: F811 - a unary node over a tree
    y = var()
    assert x <= g(BinaryUnaryTree(y, f, g))
    return x


@pattern
def BinaryUnaryTree(x, f: Op, g: Op):  # noqa: F811 - the base case
    a, b = var(), var()
    assert x <= f(g(a), g(b))
    return x


if __name__ == "__main__":
    pypm.serialize(sys.argv[1] if len(sys.argv) > 1 else "binary_unary_tree.pmb")
