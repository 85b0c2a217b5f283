"""Scaled dot-product attention, decomposed, fused into one Attention node:

    MatMul(Softmax(Div(MatMul(q, k), s), axis=-1), v)  ->  Attention(q, k, v, scale=s)

k comes already transposed, as the IR's attention expects. `s` is a term variable with guards:
it must be produced by a `constant` node (a tensor filled with one value, read back through
s.attrs.value) with one element, so dividing by it is dividing by a scalar. The products must
not carry a fused activation.

Compile: python -m saturate.pypm compile examples/pypm/attention.py -o attention.pmb
"""
import sys

from saturate import pypm
from saturate.pypm import Attention, Div, MatMul, Softmax, pattern, rule


@pattern
def DecomposedAttention(q, k, v, s):
    assert s.op == "constant" and s.shape.numel == 1
    scores = MatMul(q, k, activation="none")
    return MatMul(Softmax(Div(scores, s), axis=-1), v, activation="none")


@rule(DecomposedAttention)
def fuse_attention(q, k, v, s):
    return Attention(q, k, v, scale=s.attrs.value)


if __name__ == "__main__":
    pypm.serialize(sys.argv[1] if len(sys.argv) > 1 else "attention.pmb")
