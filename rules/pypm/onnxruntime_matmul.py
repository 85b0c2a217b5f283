"""FusedMatMul (ONNX Runtime's com.microsoft.FusedMatMul), for `--target onnxruntime`:

    c * (Transpose(a) @ Transpose(b))   ->  FusedMatMul(a, b, alpha=c, transA=1, transB=1)

each transpose (of the last two axes, ranks 2 to 5) optional, the scale a Mul (either order) or
Div of the product by a scalar constant, or a Mul of either operand (SDPA's sqrt of the scale on
the query and the transposed key), one step at a time: the first from a plain matmul, each
further one from the fused product the step before wrote, so greedy rewriting composes them too.
A scale must not raise the product's rank.

A library of its own, loaded into the e-graph with rules/pypm/onnxruntime.py: greedy rewriting
(`saturate pm apply`) visits values in topological order, so in one library it would fold an
attention's scores product into FusedMatMul before the attention pattern, rooted further down,
is tried. In the e-graph both stay and extraction chooses by cost. ONNX Runtime fuses MatMul
with transposes and scales itself at session creation (MatMulTransposeFusion,
MatMulScaleFusion), so on a CPU this gains nothing over its own.

Compile: saturate pm compile rules/pypm/onnxruntime_matmul.py -o onnxruntime_matmul.pmb (the
build does it).
"""
import sys

from saturate import pypm
from saturate.pypm import Div, EwMul, FusedMatMul, Mul, Transpose, pattern, rule


@pattern
def Times(a, b):
    """a * b in either order; import writes EwMul when the two shapes are equal."""
    return Mul(a, b)


@pattern
def Times(a, b):  # noqa: F811
    return Mul(b, a)


@pattern
def Times(a, b):  # noqa: F811
    return EwMul(a, b)


@pattern
def Times(a, b):  # noqa: F811
    return EwMul(b, a)


# A transpose of an operand's last two axes and a scalar scale (on the product or on either
# operand) folded into FusedMatMul, one at a time: the first from a plain matmul, each further one
# from the fused product the step before wrote (so greedy rewriting composes them too).
@pattern
def LastTwoSwapped(a):
    """a with its last two axes swapped (ranks 2 to 5)."""
    return Transpose(a, perm=[1, 0])


@pattern
def LastTwoSwapped(a):  # noqa: F811
    return Transpose(a, perm=[0, 2, 1])


@pattern
def LastTwoSwapped(a):  # noqa: F811
    return Transpose(a, perm=[0, 1, 3, 2])


@pattern
def LastTwoSwapped(a):  # noqa: F811
    return Transpose(a, perm=[0, 1, 2, 4, 3])


@pattern
def ScaledOperand(s, a, c):
    """a * c, c a scalar constant that does not raise a's rank."""
    assert s <= Times(a, c)
    assert c.op == "constant" and c.shape.numel == 1 and c.shape.rank <= a.shape.rank
    return s


@pattern
def TransposedA(a, b, m: pypm.Op):
    return m(LastTwoSwapped(a), b)


@pattern
def TransposedB(a, b, m: pypm.Op):
    return m(a, LastTwoSwapped(b))


@pattern
def ScaledA(s, a, b, c, m: pypm.Op):
    return m(ScaledOperand(s, a, c), b)


@pattern
def ScaledB(s, a, b, c, m: pypm.Op):
    return m(a, ScaledOperand(s, b, c))


@pattern
def ScaledProduct(y, a, b, c, m: pypm.Op):
    """m(a, b) * c, c a scalar constant that does not raise the product's rank."""
    assert y <= m(a, b)
    assert c.op == "constant" and c.shape.numel == 1 and c.shape.rank <= y.shape.rank
    return Times(y, c)


@pattern
def DividedProduct(y, a, b, c, m: pypm.Op):
    assert y <= m(a, b)
    assert c.op == "constant" and c.shape.numel == 1 and c.shape.rank <= y.shape.rank
    assert c.attrs.value != 0
    return Div(y, c)


@rule(TransposedA)
def fuse_matmul_transposed_a(a, b, m: pypm.Op):
    assert m.name == "matmul" and m.attrs.activation == "none"
    return FusedMatMul(a, b, trans_a=1)


@rule(TransposedB)
def fuse_matmul_transposed_b(a, b, m: pypm.Op):
    assert m.name == "matmul" and m.attrs.activation == "none"
    return FusedMatMul(a, b, trans_b=1)


@rule(ScaledA)
def fuse_matmul_scaled_a(s, a, b, c, m: pypm.Op):
    assert m.name == "matmul" and m.attrs.activation == "none"
    return FusedMatMul(a, b, alpha=c.attrs.value)


@rule(ScaledB)
def fuse_matmul_scaled_b(s, a, b, c, m: pypm.Op):
    assert m.name == "matmul" and m.attrs.activation == "none"
    return FusedMatMul(a, b, alpha=c.attrs.value)


@rule(ScaledProduct)
def fuse_matmul_scaled(y, a, b, c, m: pypm.Op):
    assert m.name == "matmul" and m.attrs.activation == "none"
    return FusedMatMul(a, b, alpha=c.attrs.value)


@rule(DividedProduct)
def fuse_matmul_divided(y, a, b, c, m: pypm.Op):
    assert m.name == "matmul" and m.attrs.activation == "none"
    return FusedMatMul(a, b, alpha=1.0 / c.attrs.value)


@rule(TransposedA)
def fuse_fused_matmul_transposed_a(a, b, m: pypm.Op):
    assert m.name == "fused_matmul" and m.attrs.trans_a == 0
    return FusedMatMul(a, b, alpha=m.attrs.alpha, trans_a=1, trans_b=m.attrs.trans_b)


@rule(TransposedB)
def fuse_fused_matmul_transposed_b(a, b, m: pypm.Op):
    assert m.name == "fused_matmul" and m.attrs.trans_b == 0
    return FusedMatMul(a, b, alpha=m.attrs.alpha, trans_a=m.attrs.trans_a, trans_b=1)


@rule(ScaledA)
def fuse_fused_matmul_scaled_a(s, a, b, c, m: pypm.Op):
    assert m.name == "fused_matmul"
    return FusedMatMul(a, b, alpha=m.attrs.alpha * c.attrs.value, trans_a=m.attrs.trans_a,
                       trans_b=m.attrs.trans_b)


@rule(ScaledB)
def fuse_fused_matmul_scaled_b(s, a, b, c, m: pypm.Op):
    assert m.name == "fused_matmul"
    return FusedMatMul(a, b, alpha=m.attrs.alpha * c.attrs.value, trans_a=m.attrs.trans_a,
                       trans_b=m.attrs.trans_b)


@rule(ScaledProduct)
def fuse_fused_matmul_scaled(y, a, b, c, m: pypm.Op):
    assert m.name == "fused_matmul"
    return FusedMatMul(a, b, alpha=m.attrs.alpha * c.attrs.value, trans_a=m.attrs.trans_a,
                       trans_b=m.attrs.trans_b)


@rule(DividedProduct)
def fuse_fused_matmul_divided(y, a, b, c, m: pypm.Op):
    assert m.name == "fused_matmul"
    return FusedMatMul(a, b, alpha=m.attrs.alpha / c.attrs.value, trans_a=m.attrs.trans_a,
                       trans_b=m.attrs.trans_b)


if __name__ == "__main__":
    pypm.serialize(sys.argv[1] if len(sys.argv) > 1 else "onnxruntime_matmul.pmb")
