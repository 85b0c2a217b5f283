"""pypm's operator table agrees with the IR's registry (src/ir/operators.cpp)."""
import pathlib
import re

import pytest

from saturate.pypm import ops

OPERATORS_CPP = pathlib.Path(__file__).resolve().parents[3] / "src" / "ir" / "operators.cpp"

_ENTRY = re.compile(r"\{OpKind::\w+,|unary\(OpKind::\w+,|binary\(OpKind::\w+,")
_ATTR = re.compile(r'required\("(\w+)", AttrKind::(\w+)\)'
                   r'|with_default\("(\w+)", AttrKind::(\w+), ([^;]*?)\)(?=[,}\s])'
                   r"|(leaf_attrs\(\))|(activation_attr\(\))|window_attrs\((true|false)\)")


def _default(text: str):
    text = text.strip()
    m = re.fullmatch(r"int64_t\{(-?\d+)\}", text)
    if m:
        return int(m.group(1))
    if text.startswith('"'):
        return text.strip('"')
    return float(text)


def _parse_attrs(chunk: str):
    attrs = []
    for m in _ATTR.finditer(chunk):
        if m.group(1):
            attrs.append((m.group(1), m.group(2).lower(), ops.REQUIRED))
        elif m.group(3):
            attrs.append((m.group(3), m.group(4).lower(), _default(m.group(5))))
        elif m.group(6):
            attrs += [("shape", "ints", ops.REQUIRED), ("dtype", "string", "f32")]
        elif m.group(7):
            attrs.append(("activation", "activation", 0))
        else:
            if m.group(8) == "true":
                attrs += [("kernel_h", "int", ops.REQUIRED), ("kernel_w", "int", ops.REQUIRED)]
            attrs += [("stride_h", "int", 1), ("stride_w", "int", 1), ("padding", "padding", 0),
                      ("activation", "activation", 0)]
    return attrs


def parse_registry(text: str):
    table = text[text.index("make_operator_table"):]
    starts = [m.start() for m in _ENTRY.finditer(table)] + [len(table)]
    out = {}
    for begin, end in zip(starts, starts[1:]):
        chunk = table[begin:end]
        name = re.search(r'"(\w+)"', chunk).group(1)
        if chunk.startswith("unary("):
            out[name] = (1, 1, [])
        elif chunk.startswith("binary("):
            out[name] = (2, 2, [])
        else:
            m = re.search(r'"\w+",\s*(\d+),\s*(\w+),', chunk)
            low = int(m.group(1))
            high = None if m.group(2) == "kVariadic" else int(m.group(2))
            signature = chunk[:chunk.index("OpCategory::")]
            # The attributes come after the input names, the 5th field.
            after_inputs = signature[signature.index("}") + 1:]
            out[name] = (low, high, _parse_attrs(after_inputs))
    return out


@pytest.fixture(scope="module")
def registry():
    if not OPERATORS_CPP.exists():
        pytest.skip("src/ir/operators.cpp is not in this checkout")
    return parse_registry(OPERATORS_CPP.read_text())


def test_every_ir_operator_has_a_constructor(registry):
    assert set(registry) <= set(ops.BY_NAME), set(registry) - set(ops.BY_NAME)


def test_arity_and_attributes_agree(registry):
    for name, (low, high, attrs) in registry.items():
        info = ops.BY_NAME[name]
        assert (info.min_inputs, info.max_inputs) == (low, high), name
        ours = []
        for a in info.attrs:
            default = a.default
            if a.kind == ops.ACTIVATION and default is not ops.REQUIRED:
                default = ops.ACTIVATIONS.index(default)
            if a.kind == ops.PADDING and default is not ops.REQUIRED:
                default = ops.PADDINGS.index(default)
            ours.append((a.name, a.kind, default))
        assert sorted(ours, key=str) == sorted(attrs, key=str), name


def test_constructor_names_are_camel_case():
    expected = {"matmul": "MatMul", "conv2d": "Conv2d", "ewadd": "EwAdd", "ewmul": "EwMul",
                "reduce_mean": "ReduceMean", "layernorm": "LayerNorm", "poolmax": "PoolMax",
                "poolavg": "PoolAvg", "batchnorm": "BatchNorm", "attention": "Attention",
                "transpose": "Transpose"}
    for name, constructor in expected.items():
        assert ops.BY_NAME[name].constructor == constructor
    assert ops.CONSTRUCTORS["Trans"].info is ops.BY_NAME["transpose"]
