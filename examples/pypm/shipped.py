"""The shipped fusion library: every rewriting example in one module.

Compiling this file registers the patterns and rules of the files it imports, in import order
(which is the order the greedy rewriter tries them):

    saturate pm compile examples/pypm/shipped.py -o shipped.pmb
    saturate pm apply shipped.pmb transformer_decomposed --verify

phase_ordering.py is left out: it is a demonstration of a trap, not a library rule set.
"""
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

import attention  # noqa: E402,F401
import gelu  # noqa: E402,F401
import layernorm  # noqa: E402,F401
import transpose_matmul  # noqa: E402,F401
import unary_chain  # noqa: E402,F401

if __name__ == "__main__":
    from saturate import pypm

    out = sys.argv[1] if len(sys.argv) > 1 else "shipped.pmb"
    pypm.serialize(out, source_file=pathlib.Path(__file__).name)
