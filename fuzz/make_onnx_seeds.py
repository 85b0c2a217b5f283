"""Writes the hand-made ONNX seeds of fuzz/corpus/onnx_import: tiny models that cover the
importer's main paths (convolution, matmul chains, shape folding, concat/split/pooling, Gemm and
LayerNormalization, an If subgraph with a non-float value). Usage: make_onnx_seeds.py OUT_DIR"""
import pathlib
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

FLOAT = TensorProto.FLOAT
value = helper.make_tensor_value_info
rng = np.random.default_rng(0)


def constant(array, name):
    return numpy_helper.from_array(np.asarray(array), name)


def save(out_dir, name, nodes, inputs, outputs, initializers=()):
    graph = helper.make_graph(nodes, name, inputs, outputs, initializer=list(initializers))
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    onnx.save(model, str(out_dir / f"{name}.onnx"))


def main(out_dir):
    out_dir.mkdir(parents=True, exist_ok=True)
    weights = rng.standard_normal
    save(out_dir, "conv_relu",
         [helper.make_node("Conv", ["x", "w", "b"], ["c"], strides=[1, 1], pads=[1, 1, 1, 1]),
          helper.make_node("Relu", ["c"], ["y"])],
         [value("x", FLOAT, [1, 3, 8, 8])], [value("y", FLOAT, [1, 4, 8, 8])],
         [constant(weights((4, 3, 3, 3)).astype(np.float32), "w"),
          constant(np.zeros(4, np.float32), "b")])
    save(out_dir, "matmul_add_gelu",
         [helper.make_node("MatMul", ["x", "m1"], ["h"]),
          helper.make_node("Add", ["h", "bias"], ["a"]),
          helper.make_node("Mul", ["a", "a"], ["square"]),
          helper.make_node("Tanh", ["square"], ["t"]),
          helper.make_node("Softmax", ["t"], ["y"], axis=-1)],
         [value("x", FLOAT, [2, 16])], [value("y", FLOAT, [2, 8])],
         [constant(weights((16, 8)).astype(np.float32), "m1"),
          constant(weights(8).astype(np.float32), "bias")])
    save(out_dir, "reshape_transpose",
         [helper.make_node("Shape", ["x"], ["s"]),
          helper.make_node("Gather", ["s", "index"], ["d"]),
          helper.make_node("Reshape", ["x", "shape"], ["r"]),
          helper.make_node("Transpose", ["r"], ["y"], perm=[1, 0])],
         [value("x", FLOAT, [4, 4])],
         [value("y", FLOAT, [8, 2]), value("d", TensorProto.INT64, [])],
         [constant(np.array([2, 8], np.int64), "shape"), constant(np.array(0, np.int64), "index")])
    save(out_dir, "concat_split_pool",
         [helper.make_node("Concat", ["x", "x"], ["c"], axis=1),
          helper.make_node("Split", ["c"], ["s1", "s2"], axis=1),
          helper.make_node("MaxPool", ["s1"], ["p"], kernel_shape=[2, 2], strides=[2, 2]),
          helper.make_node("AveragePool", ["s2"], ["q"], kernel_shape=[2, 2], strides=[2, 2]),
          helper.make_node("Sub", ["p", "q"], ["y"])],
         [value("x", FLOAT, [1, 2, 4, 4])], [value("y", FLOAT, [1, 2, 2, 2])])
    save(out_dir, "gemm_layernorm",
         [helper.make_node("Gemm", ["x", "gw"], ["g"]),
          helper.make_node("LayerNormalization", ["g", "scale", "shift"], ["y"], axis=-1,
                           epsilon=1e-5)],
         [value("x", FLOAT, [3, 8])], [value("y", FLOAT, [3, 4])],
         [constant(weights((8, 4)).astype(np.float32), "gw"),
          constant(np.ones(4, np.float32), "scale"), constant(np.zeros(4, np.float32), "shift")])
    then_branch = helper.make_graph([helper.make_node("Relu", ["x"], ["t"])], "then", [],
                                    [value("t", FLOAT, [2, 2])])
    else_branch = helper.make_graph([helper.make_node("Neg", ["x"], ["e"])], "else", [],
                                    [value("e", FLOAT, [2, 2])])
    save(out_dir, "if_cast",
         [helper.make_node("If", ["condition"], ["y"], then_branch=then_branch,
                           else_branch=else_branch),
          helper.make_node("Cast", ["y"], ["z"], to=TensorProto.DOUBLE)],
         [value("x", FLOAT, [2, 2]), value("condition", TensorProto.BOOL, [])],
         [value("z", TensorProto.DOUBLE, [2, 2])])


if __name__ == "__main__":
    main(pathlib.Path(sys.argv[1]))
