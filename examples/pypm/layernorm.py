"""Layer normalization over the last axis, as exporters decompose it, fused into LayerNorm:

    m = ReduceMean(x, axes=[-1], keepdims=1)
    d = Sub(x, m)
    v = ReduceMean(Mul(d, d), axes=[-1], keepdims=1)      (or Pow(d, 2.0))
    y = Div(d, Sqrt(Add(v, eps)))
    out = Add(Mul(y, scale), bias)   ->   LayerNorm(x, scale, bias, epsilon=eps)

Nonlinearity: `d` is used three times (twice in the variance, once in the numerator), and
every use must be the *same* graph value. In PyPM a Python object used more than once is one
graph value: the front end turns `d` into a local term variable at each use plus a match
constraint `d <= Sub(x, ReduceMean(x, ...))` checked right after the body binds it. (Writing
the expression Sub(x, m) out again instead would make independent subpatterns, which could
match two distinct, if equal, nodes.) The variance is a pattern of its own with two
alternates, called with d, so the call's argument must be that same value again.

`eps` must be a one-element constant; the rule reads its value. The guards on scale and bias
make the fused operator well-typed (it wants them shaped like the normalized axis).

Compile: python -m saturate.pypm compile examples/pypm/layernorm.py -o layernorm.pmb
"""
import sys

from saturate import pypm
from saturate.pypm import Add, Div, LayerNorm, Mul, Pow, ReduceMean, Sqrt, Sub, pattern, rule


@pattern
def MeanSquare(d):
    return ReduceMean(Mul(d, d), axes=[-1], keepdims=1)


@pattern
def MeanSquare(d):  # noqa: F811 - the same with an explicit square
    return ReduceMean(Pow(d, 2.0), axes=[-1], keepdims=1)


@pattern
def DecomposedLayerNorm(x, scale, bias, eps):
    m = ReduceMean(x, axes=[-1], keepdims=1)
    d = Sub(x, m)
    y = Div(d, Sqrt(Add(MeanSquare(d), eps)))
    assert eps.op == "constant" and eps.shape.numel == 1
    return Add(Mul(y, scale), bias)


@rule(DecomposedLayerNorm)
def fuse_layernorm(x, scale, bias, eps):
    assert scale.shape.rank == 1 and scale.shape[0] == x.shape[-1]
    assert bias.shape.rank == 1 and bias.shape[0] == x.shape[-1]
    return LayerNorm(x, scale, bias, epsilon=eps.attrs.value)


if __name__ == "__main__":
    pypm.serialize(sys.argv[1] if len(sys.argv) > 1 else "layernorm.pmb")
