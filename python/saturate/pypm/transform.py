"""The AST transformation that makes a pattern or rule body symbolically executable.

As in the paper's implementation section: the method's source is found with ``inspect``
machinery (the defining file, through ``linecache``), parsed with ``ast`` and rewritten so that
Python operations that cannot be overloaded are intercepted:

- ``assert e`` (``assert a and b`` is split into one assert per conjunct) ->
  ``__pypm__.assert_(e, LINE)``: records a guard or a match constraint;
- ``if c:`` / ``while c:`` / ``a if c else b`` / comprehension filters ->
  ``__pypm__.branch(c, LINE)``: a concrete condition runs as Python does; a symbolic one is a
  choice point, and the driver runs the body once per path (``True`` first: source order),
  recording the condition, or its negation, as a guard;
- ``a and b`` / ``a or b`` -> ``__pypm__.and_(lambda: a, lambda: b)`` (short-circuit kept for
  concrete values), ``not a`` -> ``__pypm__.not_(a)``;
- ``a in b``, ``a not in b`` and chained comparisons -> ``__pypm__.compare(...)``;
- ``name = value`` is followed by ``__pypm__.bind_names({"name": name})``, which names fresh
  variables and shared patterns after the Python variable.

The transformed definition is compiled with the original file name and line numbers, so
tracebacks and error messages point at the user's source, and executed in a namespace holding
the function's globals and closure (read when ``serialize`` runs).
"""
from __future__ import annotations

import ast
import copy
import linecache
from typing import Callable

from .errors import PyPMError
from .symbolic import RUNTIME

RUNTIME_NAME = "__pypm__"

_COMPARE_NAMES = {ast.Eq: "==", ast.NotEq: "!=", ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">",
                  ast.GtE: ">=", ast.Is: "is", ast.IsNot: "is not", ast.In: "in",
                  ast.NotIn: "not in"}


def _runtime_call(method: str, *args: ast.expr) -> ast.Call:
    return ast.Call(func=ast.Attribute(value=ast.Name(id=RUNTIME_NAME, ctx=ast.Load()),
                                       attr=method, ctx=ast.Load()),
                    args=list(args), keywords=[])


def _thunk(expr: ast.expr) -> ast.Lambda:
    return ast.Lambda(args=ast.arguments(posonlyargs=[], args=[], vararg=None, kwonlyargs=[],
                                         kw_defaults=[], kwarg=None, defaults=[]),
                      body=expr)


def _split_and(test: ast.expr) -> list[ast.expr]:
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
        parts: list[ast.expr] = []
        for value in test.values:
            parts.extend(_split_and(value))
        return parts
    return [test]


def _target_names(target: ast.expr, out: list[str]) -> None:
    if isinstance(target, ast.Name):
        if target.id not in out:
            out.append(target.id)
    elif isinstance(target, (ast.Tuple, ast.List)):
        for element in target.elts:
            _target_names(element, out)
    elif isinstance(target, ast.Starred):
        _target_names(target.value, out)


class _Transformer(ast.NodeTransformer):
    def _located(self, new: ast.AST, old: ast.AST) -> ast.AST:
        return ast.copy_location(new, old)

    def visit_Assert(self, node: ast.Assert):
        out = []
        for part in _split_and(node.test):
            test = self.visit(part)
            call = _runtime_call("assert_", test, ast.Constant(part.lineno))
            out.append(ast.copy_location(ast.Expr(value=ast.copy_location(call, part)), node))
        return out

    def visit_BoolOp(self, node: ast.BoolOp):
        self.generic_visit(node)
        method = "and_" if isinstance(node.op, ast.And) else "or_"
        return self._located(_runtime_call(method, *[_thunk(v) for v in node.values]), node)

    def visit_UnaryOp(self, node: ast.UnaryOp):
        self.generic_visit(node)
        if isinstance(node.op, ast.Not):
            return self._located(_runtime_call("not_", node.operand), node)
        return node

    def visit_Compare(self, node: ast.Compare):
        self.generic_visit(node)
        if len(node.ops) == 1 and not isinstance(node.ops[0], (ast.In, ast.NotIn)):
            return node  # overloaded operators do the work (x <= p, e == 2, ...)
        args: list[ast.expr] = [_thunk(node.left)]
        for op, right in zip(node.ops, node.comparators):
            args += [ast.Constant(_COMPARE_NAMES[type(op)]), _thunk(right)]
        return self._located(_runtime_call("compare", *args), node)

    def _branch(self, test: ast.expr, line: int) -> ast.Call:
        return ast.copy_location(_runtime_call("branch", test, ast.Constant(line)), test)

    def visit_If(self, node: ast.If):
        self.generic_visit(node)
        node.test = self._branch(node.test, node.lineno)
        return node

    def visit_While(self, node: ast.While):
        self.generic_visit(node)
        node.test = self._branch(node.test, node.lineno)
        return node

    def visit_IfExp(self, node: ast.IfExp):
        self.generic_visit(node)
        node.test = self._branch(node.test, node.lineno)
        return node

    def visit_comprehension(self, node: ast.comprehension):
        self.generic_visit(node)
        node.ifs = [self._branch(test, test.lineno) for test in node.ifs]
        return node

    def _bind(self, node: ast.stmt, targets: list[ast.expr]):
        names: list[str] = []
        for target in targets:
            _target_names(target, names)
        if not names:
            return node
        mapping = ast.Dict(keys=[ast.Constant(n) for n in names],
                           values=[ast.Name(id=n, ctx=ast.Load()) for n in names])
        bind = ast.Expr(value=_runtime_call("bind_names", mapping))
        return [node, ast.copy_location(bind, node)]

    def visit_Assign(self, node: ast.Assign):
        self.generic_visit(node)
        return self._bind(node, node.targets)

    def visit_AnnAssign(self, node: ast.AnnAssign):
        self.generic_visit(node)
        if node.value is None:
            return node
        return self._bind(node, [node.target])


_parsed: dict[tuple[str, str], ast.Module] = {}


def _first_line(node: ast.FunctionDef) -> int:
    return node.decorator_list[0].lineno if node.decorator_list else node.lineno


def find_definition(fn: Callable) -> tuple[ast.FunctionDef, str]:
    """The ``def`` of ``fn`` in its source file, and that file's name."""
    code = fn.__code__
    filename = code.co_filename
    linecache.checkcache(filename)
    lines = linecache.getlines(filename, getattr(fn, "__globals__", None))
    if not lines:
        raise PyPMError(f"the source of {fn.__name__} is not available (pypm reads pattern "
                        "bodies from their file)", filename, code.co_firstlineno)
    source = "".join(lines)
    key = (filename, source)
    tree = _parsed.get(key)
    if tree is None:
        try:
            tree = ast.parse(source, filename)
        except SyntaxError as e:
            raise PyPMError(f"syntax error: {e.msg}", filename, e.lineno) from None
        _parsed[key] = tree
    for node in ast.walk(tree):
        if (isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
                and node.name == fn.__name__ and _first_line(node) == code.co_firstlineno):
            if isinstance(node, ast.AsyncFunctionDef):
                raise PyPMError(f"{fn.__name__}: a pattern or rule cannot be async", filename,
                                node.lineno)
            return node, filename
    raise PyPMError(f"cannot find the definition of {fn.__name__} in its source file", filename,
                    code.co_firstlineno)


def def_line(fn: Callable) -> int:
    """The line of ``def`` (not of the decorator) of ``fn``."""
    try:
        node, _ = find_definition(fn)
        return node.lineno
    except PyPMError:
        return fn.__code__.co_firstlineno


def instrument(fn: Callable) -> Callable:
    """``fn`` with its body transformed, ready to run with symbolic arguments."""
    node, filename = find_definition(fn)
    fdef = copy.deepcopy(node)
    fdef.decorator_list = []
    # Defined under another name, so that the body's own name keeps meaning the pattern (a
    # recursive call) rather than this function.
    fdef.name = "__pypm_body__"
    fdef.returns = None
    for arg in fdef.args.posonlyargs + fdef.args.args + fdef.args.kwonlyargs:
        arg.annotation = None  # annotations were read from the original function already
    new_def = _Transformer().visit(fdef)
    module = ast.Module(body=[new_def], type_ignores=[])
    ast.fix_missing_locations(module)
    try:
        code = compile(module, filename, "exec")
    except SyntaxError as e:
        raise PyPMError(f"syntax error after the pypm transformation: {e.msg}", filename,
                        e.lineno or node.lineno) from None
    namespace = dict(fn.__globals__)
    if fn.__closure__:
        for name, cell in zip(fn.__code__.co_freevars, fn.__closure__):
            try:
                namespace[name] = cell.cell_contents
            except ValueError:  # an empty cell: a name assigned later in the enclosing scope
                pass
    namespace[RUNTIME_NAME] = RUNTIME
    exec(code, namespace)
    body = namespace[fdef.name]
    body.__name__ = body.__qualname__ = fn.__name__
    return body
