"""The product of two transposes is the transpose of the product, in the opposite order:

    MatMul(Trans(x), Trans(y)) = Trans(MatMul(y, x))       for rank-2 x and y

The guards keep it to matrices (for batched operands the permutation would differ), and the
pattern only matches a product without a fused activation.

Compile: python -m saturate.pypm compile examples/pypm/transpose_matmul.py -o transpose_matmul.pmb
"""
import sys

from saturate import pypm
from saturate.pypm import MatMul, Trans, pattern, rule


@pattern
def TransposedProduct(x, y):
    assert x.shape.rank == 2 and y.shape.rank == 2
    return MatMul(Trans(x, perm=[1, 0]), Trans(y, perm=[1, 0]), activation="none")


@rule(TransposedProduct)
def product_of_transposes(x, y):
    return Trans(MatMul(y, x), perm=[1, 0])


if __name__ == "__main__":
    pypm.serialize(sys.argv[1] if len(sys.argv) > 1 else "transpose_matmul.pmb")
