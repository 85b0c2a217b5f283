"""GELU, as exporters decompose it, fused into one Gelu node (the paper's Figure 2).

    GELU(x) = x/2 * (1 + erf(x / sqrt(2)))

`Half(x)` has two alternates, because models write x/2 both as Div(x, 2) and as Mul(x, 0.5);
`OnePlus(e)` has two too, because the 1 appears on either side of the Add. `ErfGelu` calls
both, so it matches all four spellings without writing every combination; its second
alternate accepts the commuted product.

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


@pattern
def OnePlus(e):
    return Add(1.0, e)


@pattern
def OnePlus(e):  # noqa: F811 - the 1 on the right
    return Add(e, 1.0)


# Not named Gelu: that name is the operator constructor the rule builds.
@pattern
def ErfGelu(x):
    return Mul(Half(x), OnePlus(Erf(Div(x, SQRT2))))


@pattern
def ErfGelu(x):  # noqa: F811 - the commuted product
    return Mul(OnePlus(Erf(Div(x, SQRT2))), Half(x))


@rule(ErfGelu)
def fuse_gelu(x):
    return pypm.Gelu(x)


if __name__ == "__main__":
    pypm.serialize(sys.argv[1] if len(sys.argv) > 1 else "gelu.pmb")
