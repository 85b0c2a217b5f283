"""Exports a Saturate graph to ONNX, for benchmarks only (not part of the package).

    import onnx_export
    model = onnx_export.export(graph)          # an onnx.ModelProto, opset 20

Built from ``Graph.nodes()`` (topological order) and ``Graph.outputs()`` with onnx.helper:

* ``input`` nodes become graph inputs, ``weight`` nodes initializers (zeros, since the values
  do not matter for pattern matching, or seeded random values), ``constant`` nodes
  initializers filled with their value (a 0-d tensor for a scalar constant).
* Operators map one to one: matmul -> MatMul, add/ewadd -> Add, mul/ewmul -> Mul, sub, div,
  pow, sqrt, erf, exp, relu, tanh, sigmoid; softmax -> Softmax(axis); reduce_mean ->
  ReduceMean with the axes as an int64 input (opset 18 and later) and keepdims; reshape ->
  Reshape with the shape as an int64 initializer; transpose -> Transpose(perm). The fused
  operators export too (gelu -> Gelu, opset 20; layernorm -> LayerNormalization; attention ->
  the custom-domain op saturate.Attention(q, k, v, scale)), so a rewritten graph exports.
* Every intermediate value gets a value_info with its float32 shape, so a consumer (a rewriter
  checking ranks, say) sees the shapes without running shape inference.
* A graph output takes the output's name: the value producing it is renamed (an Identity is
  added only when the output is an input or a parameter).

The same axes and shape tensors are shared between nodes (one initializer per distinct list).
A matmul with a fused activation other than "none" has no single ONNX operator and is refused,
as is any operator not listed above.
"""
from __future__ import annotations

import numpy as np

OPSET = 20  # Gelu is standard from 20; ReduceMean takes axes as an input from 18.
CUSTOM_DOMAIN = "saturate"

_SIMPLE = {
    "add": "Add", "ewadd": "Add", "sub": "Sub", "mul": "Mul", "ewmul": "Mul", "div": "Div",
    "pow": "Pow", "sqrt": "Sqrt", "erf": "Erf", "exp": "Exp", "relu": "Relu", "tanh": "Tanh",
    "sigmoid": "Sigmoid", "gelu": "Gelu",
}


def export(graph, name: str | None = None, nodes=None, opset: int = OPSET,
           seed: int | None = None):
    """Returns an onnx.ModelProto computing `graph`. `nodes` may pass graph.nodes() if known.

    Weights are zeros, or standard-normal values drawn with `seed` when one is given (for
    numerical checks).
    """
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    if nodes is None:
        nodes = graph.nodes()
    outputs = graph.outputs()
    float_type = TensorProto.FLOAT

    # Values that are graph outputs are renamed to the output's name where possible.
    rename: dict[str, str] = {}
    producer_op = {}
    for node in nodes:
        for value in node["outputs"]:
            producer_op[value] = node["op"]
    identities = []
    for out_name, value in outputs:
        if out_name == value:
            continue
        if producer_op.get(value) in ("input", "weight", "constant") or value in rename:
            identities.append((out_name, value))
        else:
            rename[value] = out_name

    def vname(value: str) -> str:
        return rename.get(value, value)

    onnx_nodes = []
    initializers = []
    inputs = []
    value_infos = []
    shared: dict[tuple, str] = {}
    rng = None if seed is None else np.random.default_rng(seed)

    def int64_tensor(kind: str, values) -> str:
        key = (kind, tuple(int(v) for v in values))
        if key not in shared:
            tensor_name = f"{kind}_" + "_".join(str(v).replace("-", "m") for v in key[1])
            initializers.append(numpy_helper.from_array(np.asarray(key[1], dtype=np.int64),
                                                        tensor_name))
            shared[key] = tensor_name
        return shared[key]

    def check_dtype(node):
        dtype = node["attrs"].get("dtype", "f32")
        if dtype != "f32":
            raise NotImplementedError(f"{node['outputs'][0]}: dtype {dtype} is not exported")

    for node in nodes:
        op, attrs = node["op"], node["attrs"]
        ins = [vname(v) for v in node["inputs"]]
        outs = [vname(v) for v in node["outputs"]]
        if op == "input":
            check_dtype(node)
            inputs.append(helper.make_tensor_value_info(outs[0], float_type, attrs["shape"]))
            continue
        if op == "weight":
            check_dtype(node)
            values = (np.zeros(attrs["shape"], dtype=np.float32) if rng is None else
                      rng.standard_normal(attrs["shape"]).astype(np.float32))
            initializers.append(numpy_helper.from_array(values, outs[0]))
            continue
        if op == "constant":
            check_dtype(node)
            initializers.append(numpy_helper.from_array(
                np.full(attrs["shape"], attrs["value"], dtype=np.float32), outs[0]))
            continue

        if op in _SIMPLE:
            made = helper.make_node(_SIMPLE[op], ins, outs, name=outs[0])
        elif op == "matmul":
            if attrs.get("activation", "none") != "none":
                raise NotImplementedError(
                    f"{outs[0]}: matmul with fused activation {attrs['activation']!r}")
            made = helper.make_node("MatMul", ins, outs, name=outs[0])
        elif op == "softmax":
            made = helper.make_node("Softmax", ins, outs, name=outs[0], axis=attrs["axis"])
        elif op == "reduce_mean":
            axes = int64_tensor("axes", attrs["axes"])
            made = helper.make_node("ReduceMean", ins + [axes], outs, name=outs[0],
                                    keepdims=attrs["keepdims"])
        elif op == "reshape":
            shape = int64_tensor("shape", attrs["shape"])
            made = helper.make_node("Reshape", ins + [shape], outs, name=outs[0])
        elif op == "transpose":
            made = helper.make_node("Transpose", ins, outs, name=outs[0], perm=attrs["perm"])
        elif op == "layernorm":
            made = helper.make_node("LayerNormalization", ins, outs, name=outs[0],
                                    axis=attrs["axis"], epsilon=attrs["epsilon"])
        elif op == "attention":
            made = helper.make_node("Attention", ins, outs, name=outs[0], domain=CUSTOM_DOMAIN,
                                    scale=attrs["scale"])
        else:
            raise NotImplementedError(f"{outs[0]}: operator {op!r} has no ONNX export here")
        onnx_nodes.append(made)
        for value, shape in zip(outs, node["shapes"]):
            value_infos.append(helper.make_tensor_value_info(value, float_type, shape))

    graph_outputs = []
    shapes = {}
    for node in nodes:
        for value, shape in zip(node["outputs"], node["shapes"]):
            shapes[value] = shape
    for out_name, value in identities:
        onnx_nodes.append(helper.make_node("Identity", [vname(value)], [out_name],
                                           name=out_name))
    for out_name, value in outputs:
        graph_outputs.append(helper.make_tensor_value_info(out_name, float_type, shapes[value]))
    output_names = {name for name, _ in outputs}
    value_infos = [info for info in value_infos if info.name not in output_names]

    onnx_graph = helper.make_graph(onnx_nodes, name or "saturate_graph", inputs, graph_outputs,
                                   initializer=initializers, value_info=value_infos)
    opsets = [helper.make_opsetid("", opset)]
    if any(n.domain == CUSTOM_DOMAIN for n in onnx_nodes):
        opsets.append(helper.make_opsetid(CUSTOM_DOMAIN, 1))
    model = helper.make_model(onnx_graph, opset_imports=opsets,
                              producer_name="saturate-bench")
    model.ir_version = min(model.ir_version, onnx.IR_VERSION)
    return model
