"""The Python package has no import circles: every import of a saturate module, at the top of a
file or inside a function, is an edge, and the graph must be acyclic (a late import that closes a
circle hides the circle, it does not remove it)."""
from __future__ import annotations

import ast
import pathlib

PACKAGE = pathlib.Path(__file__).resolve().parents[2] / "python" / "saturate"


def module_name(path: pathlib.Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of(path: pathlib.Path, modules: set[str]) -> set[str]:
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[:len(anchor) - (node.level - 1)]
                base = ".".join(anchor + ([base] if base else []))
            found.add(base)
            # `from saturate import onnx_check` names a module, not a symbol.
            found.update(f"{base}.{alias.name}" for alias in node.names)
    # A package's __init__ runs before its modules: importing saturate.x imports saturate.
    return {module for module in found if module in modules and module != name}


def import_graph() -> dict[str, set[str]]:
    paths = sorted(PACKAGE.rglob("*.py"))
    modules = {module_name(path) for path in paths}
    return {module_name(path): imports_of(path, modules) for path in paths}


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    found, state, stack = [], {}, []

    def visit(module: str) -> None:
        state[module] = "open"
        stack.append(module)
        for target in sorted(graph[module]):
            # A package's own __init__ importing its submodules is how packages are built.
            if module == target.rpartition(".")[0] or module.rpartition(".")[0] == target:
                continue
            if state.get(target) == "open":
                found.append(stack[stack.index(target):] + [target])
            elif target not in state:
                visit(target)
        stack.pop()
        state[module] = "done"

    for module in sorted(graph):
        if module not in state:
            visit(module)
    return found


def test_the_graph_is_read():
    graph = import_graph()
    assert "saturate.ort_helper" in graph
    assert {"saturate.ort_check", "saturate.ort_timer"} <= graph["saturate.ort_helper"]
    assert "saturate.pypm.symbolic" in graph["saturate.pypm.ops"]


def test_the_package_has_no_import_circle():
    assert circles(import_graph()) == []


def test_a_circle_is_found():
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == [["a", "b", "c", "a"]]
