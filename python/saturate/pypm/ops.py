"""The operator table: one constructor per IR operator (src/ir/operators.cpp), in CamelCase.

Each constructor knows its operator's IR name, input arity and attributes (kind and default), so
that misuse is reported at the line of the pattern file. Keep this table in step with the IR's
registry; tests/python/pypm/test_ops_table.py compares the two.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional

# Attribute kinds (the IR's AttrKind).
INT = "int"
INTS = "ints"
FLOAT = "float"
STRING = "string"
ACTIVATION = "activation"  # read and written as a name: none, sigmoid, relu, tanh
PADDING = "padding"  # read and written as a name: same, valid

ACTIVATIONS = ("none", "sigmoid", "relu", "tanh")
PADDINGS = ("same", "valid")


class _Required:
    def __repr__(self) -> str:
        return "REQUIRED"


REQUIRED: Any = _Required()


@dataclass(frozen=True)
class AttrInfo:
    name: str
    kind: str
    default: Any = REQUIRED

    @property
    def required(self) -> bool:
        return self.default is REQUIRED


@dataclass(frozen=True)
class OpInfo:
    name: str  # the IR name, e.g. "matmul"
    constructor: str  # the Python name, e.g. "MatMul"
    min_inputs: int
    max_inputs: Optional[int]  # None: variadic
    inputs: tuple[str, ...]
    attrs: tuple[AttrInfo, ...] = ()

    def attr(self, name: str) -> Optional[AttrInfo]:
        for a in self.attrs:
            if a.name == name:
                return a
        return None

    def arity_text(self) -> str:
        if self.max_inputs is None:
            return f"at least {self.min_inputs} input{'s' if self.min_inputs != 1 else ''}"
        if self.min_inputs == self.max_inputs:
            n = self.min_inputs
            return f"{n} input{'s' if n != 1 else ''}"
        return f"{self.min_inputs} to {self.max_inputs} inputs"


def _leaf(extra: tuple[AttrInfo, ...] = ()) -> tuple[AttrInfo, ...]:
    return (AttrInfo("shape", INTS),) + extra + (AttrInfo("dtype", STRING, "f32"),)


_ACTIVATION = AttrInfo("activation", ACTIVATION, "none")


def _window(with_kernel: bool) -> tuple[AttrInfo, ...]:
    kernel = (AttrInfo("kernel_h", INT), AttrInfo("kernel_w", INT)) if with_kernel else ()
    return kernel + (AttrInfo("stride_h", INT, 1), AttrInfo("stride_w", INT, 1),
                     AttrInfo("padding", PADDING, "same"), _ACTIVATION)


def _unary(name: str, constructor: str) -> OpInfo:
    return OpInfo(name, constructor, 1, 1, ("x",))


def _binary(name: str, constructor: str) -> OpInfo:
    return OpInfo(name, constructor, 2, 2, ("a", "b"))


OPERATORS: tuple[OpInfo, ...] = (
    OpInfo("input", "Input", 0, 0, (), _leaf()),
    OpInfo("weight", "Weight", 0, 0, (), _leaf()),
    OpInfo("constant", "Constant", 0, 0, (), _leaf((AttrInfo("value", FLOAT),))),
    _binary("ewadd", "EwAdd"),
    _binary("ewmul", "EwMul"),
    OpInfo("matmul", "MatMul", 2, 2, ("a", "b"), (_ACTIVATION,)),
    OpInfo("conv2d", "Conv2d", 2, 2, ("input", "weight"), _window(False)),
    _unary("relu", "Relu"),
    _unary("tanh", "Tanh"),
    _unary("sigmoid", "Sigmoid"),
    OpInfo("poolmax", "PoolMax", 1, 1, ("input",), _window(True)),
    OpInfo("poolavg", "PoolAvg", 1, 1, ("input",), _window(True)),
    OpInfo("transpose", "Transpose", 1, 1, ("x",), (AttrInfo("perm", INTS),)),
    OpInfo("enlarge", "Enlarge", 2, 2, ("kernel", "reference")),
    OpInfo("concat", "Concat", 1, None, ("inputs",), (AttrInfo("axis", INT),)),
    OpInfo("split", "Split", 1, 1, ("x",), (AttrInfo("axis", INT), AttrInfo("sizes", INTS))),
    OpInfo("merge", "Merge", 1, 1, ("weight",), (AttrInfo("count", INT),)),
    OpInfo("reshape", "Reshape", 1, 1, ("x",), (AttrInfo("shape", INTS),)),
    OpInfo("batchnorm", "BatchNorm", 5, 5, ("input", "scale", "bias", "mean", "var"),
           (AttrInfo("epsilon", FLOAT, 1e-5),)),
    OpInfo("noop", "Noop", 2, 2, ("a", "b")),
    _binary("add", "Add"),
    _binary("mul", "Mul"),
    _binary("sub", "Sub"),
    _binary("div", "Div"),
    _binary("pow", "Pow"),
    _unary("sqrt", "Sqrt"),
    _unary("erf", "Erf"),
    _unary("exp", "Exp"),
    _unary("gelu", "Gelu"),
    OpInfo("clip", "Clip", 1, 1, ("x",), (AttrInfo("min", FLOAT), AttrInfo("max", FLOAT))),
    OpInfo("softmax", "Softmax", 1, 1, ("x",), (AttrInfo("axis", INT, -1),)),
    OpInfo("layernorm", "LayerNorm", 3, 3, ("x", "scale", "bias"),
           (AttrInfo("axis", INT, -1), AttrInfo("epsilon", FLOAT, 1e-5))),
    OpInfo("rms_norm", "RMSNorm", 2, 2, ("x", "scale"),
           (AttrInfo("axis", INT, -1), AttrInfo("epsilon", FLOAT, 1e-5))),
    OpInfo("bias_gelu", "BiasGelu", 2, 2, ("x", "bias")),
    _unary("fast_gelu", "FastGelu"),
    OpInfo("quick_gelu", "QuickGelu", 1, 1, ("x",), (AttrInfo("alpha", FLOAT, 1.702),)),
    OpInfo("reduce_mean", "ReduceMean", 1, 1, ("x",),
           (AttrInfo("axes", INTS), AttrInfo("keepdims", INT, 1))),
    OpInfo("attention", "Attention", 3, 3, ("q", "k", "v"), (AttrInfo("scale", FLOAT, 1.0),)),
    OpInfo("multi_head_attention", "MultiHeadAttention", 3, 4, ("q", "k", "v", "bias"),
           (AttrInfo("num_heads", INT), AttrInfo("scale", FLOAT))),
    OpInfo("pad", "Pad", 1, 1, ("x",), (AttrInfo("pads", INTS),)),
    OpInfo("opaque", "Opaque", 0, None, ("inputs",),
           (AttrInfo("op_type", STRING), AttrInfo("domain", STRING, ""),
            AttrInfo("onnx_attributes", STRING, ""), AttrInfo("output_types", STRING))),
)

BY_NAME: dict[str, OpInfo] = {op.name: op for op in OPERATORS}

# Every attribute name some operator has, with its kind (the same kind wherever it appears).
ATTRIBUTE_KINDS: dict[str, str] = {}
for _op in OPERATORS:
    for _a in _op.attrs:
        ATTRIBUTE_KINDS.setdefault(_a.name, _a.kind)


class OpConstructor:
    """``MatMul(a, b, activation="relu")``: an application of an IR operator.

    Positional arguments are the inputs, keyword arguments the attributes. In a pattern an
    attribute is an equality constraint; in a rule it sets the attribute. Usable only while
    ``serialize`` runs a pattern or rule body.
    """

    def __init__(self, info: OpInfo, python_name: str):
        self.info = info
        self.__name__ = python_name
        self.__qualname__ = python_name
        self.__doc__ = (f"The IR operator '{info.name}' ({info.arity_text()}"
                        + (", attributes " + ", ".join(a.name for a in info.attrs)
                           if info.attrs else "") + ").")

    def __call__(self, *args, **attrs):
        from . import symbolic  # late: symbolic imports this module

        return symbolic.apply_operator(self, args, attrs)

    def __repr__(self) -> str:
        return f"<pypm operator {self.__name__} ({self.info.name})>"

    def __bool__(self) -> bool:
        return True


CONSTRUCTORS: dict[str, OpConstructor] = {op.constructor: OpConstructor(op, op.constructor)
                                          for op in OPERATORS}
# Aliases.
CONSTRUCTORS["Trans"] = OpConstructor(BY_NAME["transpose"], "Trans")

__all__ = sorted(CONSTRUCTORS)
globals().update(CONSTRUCTORS)
