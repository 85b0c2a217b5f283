"""Why PyPM rules also run inside the e-graph: a phase-ordering trap.

`scale_last` moves a scalar factor outward, (x * c) * y -> (x * y) * c: a harmless
canonicalization, listed first. Greedy rewriting applies it to the GELU's outer product
x * 0.5 * (1 + erf(x / sqrt 2)) before the GELU fusion gets a chance, and the fusion never
matches again. In the e-graph (`saturate optimize --pypm`) both forms live side by side, the
fusion still matches the original form, and extraction picks the fused GELU.

Compile: python -m saturate.pypm compile examples/pypm/phase_ordering.py -o phase_ordering.pmb
"""
import sys

from saturate import pypm
from saturate.pypm import Add, Div, Erf, Mul, pattern, rule

SQRT2 = 1.4142135623730951


@pattern
def ScaledProduct(x, y, c):
    assert c.op == "constant" and c.shape.numel == 1
    return Mul(Mul(x, c), y)


@rule(ScaledProduct)
def scale_last(x, y, c):
    return Mul(Mul(x, y), c)


@pattern
def OnePlus(e):
    return Add(1.0, e)


@pattern
def OnePlus(e):  # noqa: F811 - the 1 on the right
    return Add(e, 1.0)


@pattern
def HalfGelu(x):
    return Mul(Mul(x, 0.5), OnePlus(Erf(Div(x, SQRT2))))


@rule(HalfGelu)
def fuse_gelu(x):
    return pypm.Gelu(x)


if __name__ == "__main__":
    pypm.serialize(sys.argv[1] if len(sys.argv) > 1 else "phase_ordering.pmb")
