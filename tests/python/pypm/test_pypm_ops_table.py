"""pypm's operator table is generated from the IR's registry (saturate.pypm.generate_operators
reads `saturate ops --json`), and the committed table is what the built program generates."""
import json

from saturate.pypm import generate_operators, ops


def test_committed_table_is_what_the_registry_generates(saturate):
    result = saturate("ops", "--json")
    assert result.returncode == 0, result.stderr
    generated = generate_operators.render(json.loads(result.stdout))
    assert generated == generate_operators.TABLE.read_text(), (
        "python/saturate/pypm/operator_table.py is stale: run python3 -m "
        "saturate.pypm.generate_operators build/bin/saturate")


def test_every_registry_operator_has_its_constructor(saturate):
    registry = json.loads(saturate("ops", "--json").stdout)
    for op in registry:
        info = ops.BY_NAME[op["name"]]
        assert ops.CONSTRUCTORS[op["camel_name"]].info is info
        assert (info.min_inputs, info.max_inputs) == (
            op["min_inputs"], None if op["max_inputs"] == -1 else op["max_inputs"])
        assert [a.name for a in info.attrs] == [a["name"] for a in op["attributes"]]
        assert [a.required for a in info.attrs] == ["default" not in a for a in op["attributes"]]
    assert len(ops.OPERATORS) == len(registry)


def test_defaults_read_back_as_python_values():
    assert generate_operators.default_value("-1", "int") == -1
    assert generate_operators.default_value("1e-05", "float") == 1e-5
    assert generate_operators.default_value('""', "string") == ""
    assert generate_operators.default_value("f32", "string") == "f32"
    assert generate_operators.default_value("[1 2]", "ints") == (1, 2)
    assert generate_operators.attribute_kind("activation (none|sigmoid|relu|tanh)") == "activation"


def test_constructor_names_are_camel_case():
    expected = {"matmul": "MatMul", "conv2d": "Conv2d", "ewadd": "EwAdd", "ewmul": "EwMul",
                "reduce_mean": "ReduceMean", "layernorm": "LayerNorm", "poolmax": "PoolMax",
                "poolavg": "PoolAvg", "batchnorm": "BatchNorm", "attention": "Attention",
                "transpose": "Transpose", "rms_norm": "RMSNorm"}
    for name, constructor in expected.items():
        assert ops.BY_NAME[name].constructor == constructor
    assert ops.CONSTRUCTORS["Trans"].info is ops.BY_NAME["transpose"]
