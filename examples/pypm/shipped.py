"""The shipped fusion library: every rewriting example in one module.

Compiling this file registers the patterns and rules of the files it runs, in that order
(which is the order the greedy rewriter tries them):

    saturate pm compile examples/pypm/shipped.py -o shipped.pmb
    saturate pm apply shipped.pmb transformer_decomposed --verify

The files are run, not imported, so that every compilation registers them afresh (an import
happens once per process). phase_ordering.py is left out: it demonstrates a trap, it is not a
library rule set.
"""
import pathlib
import runpy
import sys

HERE = pathlib.Path(__file__).resolve().parent
for name in ["attention", "gelu", "layernorm", "transpose_matmul", "unary_chain"]:
    runpy.run_path(str(HERE / f"{name}.py"))

if __name__ == "__main__":
    from saturate import pypm

    out = sys.argv[1] if len(sys.argv) > 1 else "shipped.pmb"
    pypm.serialize(out, source_file=pathlib.Path(__file__).name)
