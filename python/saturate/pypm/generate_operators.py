"""Writes pypm's operator table, ``operator_table.py``, from the IR's registry as
``saturate ops --json`` prints it, so that the PyPM constructors cannot drift from the C++
operators (src/ir/operators.cpp is the one place an operator is declared).

    PYTHONPATH=python python3 -m saturate.pypm.generate_operators build/bin/saturate  # rewrites it
    PYTHONPATH=python python3 -m saturate.pypm.generate_operators build/bin/saturate --check
"""
from __future__ import annotations

import argparse
import json
import pathlib
import subprocess
import sys

TABLE = pathlib.Path(__file__).resolve().parent / "operator_table.py"

HEADER = '''"""pypm's operator table, generated from the IR's registry (src/ir/operators.cpp) by
``python3 -m saturate.pypm.generate_operators SATURATE`` from ``saturate ops --json``. Do not
edit: change the registry, rebuild and regenerate (tests/python/pypm/test_pypm_ops_table.py
fails while this file is stale).

Each entry: (IR name, constructor, least inputs, most inputs or None for variadic, input names,
attributes, outputs or None when the attributes decide); an attribute is (name, kind) when
required, (name, kind, default) otherwise.
"""

OPERATORS = (
'''

# The registry's kind names (ir::to_string(AttrKind)) as pypm spells them (ops.py).
KINDS = {"int": "int", "int list": "ints", "float": "float", "string": "string",
         "activation": "activation", "padding": "padding"}


def attribute_kind(text: str) -> str:
    base = text.split(" (")[0]  # "activation (none|sigmoid|relu|tanh)": the names follow
    if base not in KINDS:
        raise ValueError(f"unknown attribute kind {text!r}")
    return KINDS[base]


def default_value(text: str, kind: str):
    """A default as the registry writes it (ir::write_attribute), as a Python value."""
    if kind == "int":
        return int(text)
    if kind == "float":
        return float(text)
    if kind == "ints":
        return tuple(int(v) for v in text.strip("[]").split())
    if kind == "string" and len(text) >= 2 and text[0] == text[-1] == '"':
        return json.loads(text)
    return text  # strings, activation and padding names


def entry(op: dict) -> str:
    attributes = []
    for attribute in op["attributes"]:
        kind = attribute_kind(attribute["kind"])
        fields = (attribute["name"], kind)
        if "default" in attribute:
            fields += (default_value(attribute["default"], kind),)
        attributes.append(fields)
    most = None if op["max_inputs"] == -1 else op["max_inputs"]
    outputs = None if op["outputs"] == -1 else op["outputs"]
    fields = (op["name"], op["camel_name"], op["min_inputs"], most, tuple(op["input_names"]),
              tuple(attributes), outputs)
    line = f"    {fields!r},\n"
    if len(line) <= 100 or not attributes:
        return line
    # Long entries: one attribute per line.
    head = repr(fields[:5])[:-1]
    body = "".join(f"        {attribute!r},\n" for attribute in attributes)
    return f"    {head}, (\n{body}    ), {outputs!r}),\n"


def render(operators: list[dict]) -> str:
    return HEADER + "".join(entry(op) for op in operators) + ")\n"


def registry(saturate: str) -> list[dict]:
    result = subprocess.run([saturate, "ops", "--json"], capture_output=True, text=True,
                            check=True)
    return json.loads(result.stdout)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python3 -m saturate.pypm.generate_operators",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("saturate", help="the saturate program whose registry to read")
    parser.add_argument("--check", action="store_true",
                        help="only compare: exit 1 when operator_table.py is stale")
    args = parser.parse_args(argv)
    text = render(registry(args.saturate))
    if args.check:
        if TABLE.read_text() != text:
            print(f"{TABLE} is stale: regenerate it with python3 -m "
                  f"saturate.pypm.generate_operators {args.saturate}", file=sys.stderr)
            return 1
        return 0
    TABLE.write_text(text)
    print(f"wrote {TABLE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
