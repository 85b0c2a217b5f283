"""GELU, as exporters decompose it, fused into one Gelu node (the paper's Figure 2).

    GELU(x) = x/2 * (1 + erf(x / sqrt(2)))

`Half(x)` has two alternates, because models write x/2 both as Div(x, 2) and as Mul(x, 0.5);
`ErfGelu` calls it, so it matches either way without writing every combination. ErfGelu's
second alternate accepts the commuted product.

Compile: python -m saturate.pypm compile examples/pypm/gelu.py -o gelu.pmb
"""
import sys

from saturate import pypm
from saturate.pypm import Add, Div, Erf, Mul, pattern, rule

SQRT2 = 1.4142135623730951


@pattern
def Half(x):
    return Div(x, 2.0)


@pattern
def Half(x):  # noqa: F811 - a second alternate of Half
    return Mul(x, 0.5)


# Not named Gelu: that name is the operator constructor the rule builds.
@pattern
def ErfGelu(x):
    return Mul(Half(x), Add(1.0, Erf(Div(x, SQRT2))))


@pattern
def ErfGelu(x):  # noqa: F811 - the commuted product
    return Mul(Add(1.0, Erf(Div(x, SQRT2))), Half(x))


@rule(ErfGelu)
def fuse_gelu(x):
    return pypm.Gelu(x)


if __name__ == "__main__":
    pypm.serialize(sys.argv[1] if len(sys.argv) > 1 else "gelu.pmb")
