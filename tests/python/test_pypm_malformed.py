"""Malformed pattern files: every one gives a located PyPMError with a message, never an
exception from inside the front end (issue 15, "parsers that survive fuzzing").

Three families, all deterministic: hand-written mistakes of each kind the front end must reject
(syntax, decorator misuse, unsupported constructs, bad guards, unknown operators, wrong arities,
recursion without a base case, non-pattern return values), and seeded random token mutations of
the example files in examples/pypm. A mutation may still be a valid file; then it must compile.
"""
import io
import os
import pathlib
import random
import tokenize

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
PYTHON_DIR = REPO / "python"

from saturate import pypm  # noqa: E402

PACKAGE_DIR = str(PYTHON_DIR / "saturate" / "pypm") + os.sep
EXAMPLES = sorted((REPO / "examples" / "pypm").glob("*.py"))
HEADER = "from saturate import pypm\nfrom saturate.pypm import *\n"
# Exception types that, raised inside the front end, mean a bug there rather than a mistake in
# the pattern file that the front end failed to word.
INTERNAL_ERRORS = (AttributeError, KeyError, IndexError, RecursionError, TypeError, ValueError,
                   AssertionError, UnboundLocalError, ZeroDivisionError)


def raised_inside_front_end(error: BaseException) -> bool:
    """Whether the innermost frame of `error`'s traceback is in python/saturate/pypm."""
    tb = error.__traceback__
    if tb is None:
        return False
    while tb.tb_next is not None:
        tb = tb.tb_next
    return tb.tb_frame.f_code.co_filename.startswith(PACKAGE_DIR)


def compile_source(tmp_path: pathlib.Path, source: str, name: str = "patterns.py"):
    """Compiles `source`; returns None on success, else the PyPMError (any other exception
    fails the test)."""
    path = tmp_path / name
    path.write_text(source)
    pypm.reset()
    try:
        pypm.compile_file(str(path))
    except pypm.PyPMError as error:
        assert error.message and error.message.strip(), f"empty message for:\n{source}"
        assert error.filename is not None, f"unlocated error {error!r} for:\n{source}"
        cause = error.__cause__ or error.__context__
        if isinstance(cause, INTERNAL_ERRORS) and raised_inside_front_end(cause):
            pytest.fail(f"front-end bug wrapped as PyPMError: {error}\nsource:\n{source}")
        return error
    except RecursionError as error:  # a RecursionError is an Exception: caught below otherwise
        pytest.fail(f"RecursionError escaped: {error}\nsource:\n{source}")
    except Exception as error:  # noqa: BLE001 - exactly what the test looks for
        pytest.fail(f"{type(error).__name__} escaped the front end: {error}\nsource:\n{source}")
    finally:
        pypm.reset()
    return None


MALFORMED = {
    # Syntax errors.
    "missing_colon": "@pattern\ndef P(x)\n    return Relu(x)\n",
    "unbalanced_parenthesis": "@pattern\ndef P(x):\n    return Relu(Tanh(x)\n",
    "bad_indentation": "@pattern\ndef P(x):\nreturn Relu(x)\n",
    "stray_token": "@pattern\ndef P(x):\n    return Relu(x) )\n",
    "unterminated_string": "@pattern\ndef P(x):\n    return MatMul(x, x, activation=\"relu)\n",
    "tab_space_mix": "@pattern\ndef P(x):\n\tif x:\n        return x\n\treturn Relu(x)\n",
    "null_byte": "@pattern\ndef P(x):\n    return Relu(x)\x00\n",
    # Decorators used wrongly.
    "pattern_on_class": "@pattern\nclass P:\n    pass\n",
    "pattern_with_arguments": "@pattern(3)\ndef P(x):\n    return Relu(x)\n",
    "pattern_on_lambda": "P = pattern(lambda x: Relu(x))\n",
    "pattern_on_builtin": "P = pattern(len)\n",
    "pattern_on_none": "P = pattern(None)\n",
    "rule_without_target": "@rule\ndef r(x):\n    return Relu(x)\n",
    "rule_of_integer": "@rule(42)\ndef r(x):\n    return Relu(x)\n",
    "rule_of_function": "def f(x):\n    return x\n\n@rule(f)\ndef r(x):\n    return Relu(x)\n",
    "rule_of_string": "@rule('P')\ndef r(x):\n    return Relu(x)\n",
    "rule_on_class": "@pattern\ndef P(x):\n    return Relu(x)\n\n@rule(P)\nclass R:\n    pass\n",
    "rule_twice": ("@pattern\ndef P(x):\n    return Relu(x)\n\n@rule(P)\n@rule(P)\n"
                   "def r(x):\n    return Tanh(x)\n"),
    "rule_then_pattern": ("@pattern\ndef P(x):\n    return Relu(x)\n\n@pattern\n@rule(P)\n"
                          "def r(x):\n    return Tanh(x)\n"),
    "rule_of_rule": ("@pattern\ndef P(x):\n    return Relu(x)\n\n@rule(P)\ndef r(x):\n"
                     "    return Tanh(x)\n\n@rule(r)\ndef s(x):\n    return Tanh(x)\n"),
    "call_pattern_at_top_level": "@pattern\ndef P(x):\n    return Relu(x)\n\nP(1)\n",
    # Constructs a pattern body cannot hold.
    "while_loop": ("@pattern\ndef P(x):\n    while x.shape.rank == 2:\n        x = Relu(x)\n"
                   "    return x\n"),
    "for_loop": "@pattern\ndef P(x):\n    for i in range(3):\n        x = Relu(x)\n    return x\n",
    "try_block": "@pattern\ndef P(x):\n    try:\n        return Relu(x)\n    except Exception:\n"
                 "        return x\n",
    "with_block": "@pattern\ndef P(x):\n    with open('f'):\n        return Relu(x)\n",
    "yield": "@pattern\ndef P(x):\n    yield Relu(x)\n",
    "async_def": "@pattern\nasync def P(x):\n    return Relu(x)\n",
    "await": "@pattern\nasync def P(x):\n    return await Relu(x)\n",
    "nested_def": "@pattern\ndef P(x):\n    def g(y):\n        return Relu(y)\n    return g(x)\n",
    "lambda_in_body": "@pattern\ndef P(x):\n    g = lambda y: Relu(y)\n    return g(x)\n",
    "comprehension": "@pattern\ndef P(x):\n    return [Relu(x) for _ in range(2)][0]\n",
    "global_statement": "Y = 1\n@pattern\ndef P(x):\n    global Y\n    Y = x\n    return Relu(x)\n",
    "star_args": "@pattern\ndef P(*xs):\n    return Relu(xs[0])\n",
    "keyword_args": "@pattern\ndef P(**xs):\n    return Relu(xs['a'])\n",
    "default_argument": "@pattern\ndef P(x, y=3):\n    return Relu(x)\n",
    "keyword_only": "@pattern\ndef P(x, *, y):\n    return Add(x, y)\n",
    "no_parameters": "@pattern\ndef P():\n    return Relu(var())\n",
    "walrus": "@pattern\ndef P(x):\n    return Relu(y := x)\n",
    "if_on_variable": "@pattern\ndef P(x):\n    if x:\n        return Relu(x)\n    return Tanh(x)\n",
    "raise_in_body": "@pattern\ndef P(x):\n    raise ValueError('no')\n",
    "delete_parameter": "@pattern\ndef P(x):\n    del x\n    return Relu(var())\n",
    "import_in_body": "@pattern\ndef P(x):\n    import os\n    return Relu(x)\n",
    "fstring_attribute": "@pattern\ndef P(x):\n    return MatMul(x, x, activation=f'{x}')\n",
    # Guards.
    "guard_string": "@pattern\ndef P(x):\n    assert 'yes'\n    return Relu(x)\n",
    "guard_none": "@pattern\ndef P(x):\n    assert None\n    return Relu(x)\n",
    "guard_false": "@pattern\ndef P(x):\n    assert False\n    return Relu(x)\n",
    "guard_on_term": "@pattern\ndef P(x):\n    assert x\n    return Relu(x)\n",
    "guard_unknown_attribute": "@pattern\ndef P(x):\n    assert x.attrs.nope == 1\n    return Relu(x)\n",
    "guard_unknown_property": "@pattern\ndef P(x):\n    assert x.colour == 1\n    return Relu(x)\n",
    "guard_shape_index_string": ("@pattern\ndef P(x):\n    assert x.shape['a'] == 1\n"
                                 "    return Relu(x)\n"),
    "guard_shape_index_huge": ("@pattern\ndef P(x):\n    assert x.shape[10**30] == 1\n"
                               "    return Relu(x)\n"),
    "guard_shape_slice": "@pattern\ndef P(x):\n    assert x.shape[1:] == 1\n    return Relu(x)\n",
    "guard_compare_terms": "@pattern\ndef P(x, y):\n    assert x < y\n    return Add(x, y)\n",
    "guard_shape_of_operator": ("@pattern\ndef P(x, f: Op):\n    assert f.shape.rank == 1\n"
                                "    return f(x)\n"),
    "guard_with_message": "@pattern\ndef P(x):\n    assert x.shape.rank, 'r'\n    return Relu(x)\n",
    "guard_chained_compare": ("@pattern\ndef P(x):\n    assert 1 < x.shape.rank < 'a'\n"
                              "    return Relu(x)\n"),
    "guard_divide_by_zero": ("@pattern\ndef P(x):\n    assert x.shape.rank / 0 == 1\n"
                             "    return Relu(x)\n"),
    "guard_matches_integer": "@pattern\ndef P(x):\n    assert x <= 3\n    return Relu(x)\n",
    "guard_dtype_call": "@pattern\ndef P(x):\n    assert x.dtype() == 'f'\n    return Relu(x)\n",
    "guard_bool_of_shape": "@pattern\ndef P(x):\n    assert not x.shape\n    return Relu(x)\n",
    "guard_in_operator": "@pattern\ndef P(x):\n    assert 3 in x.shape\n    return Relu(x)\n",
    # Operators.
    "unknown_operator": "@pattern\ndef P(x):\n    return Frobnicate(x)\n",
    "unknown_module_operator": "@pattern\ndef P(x):\n    return pypm.Frobnicate(x)\n",
    "lowercase_operator": "@pattern\ndef P(x):\n    return relu(x)\n",
    "unknown_attribute": "@pattern\ndef P(x):\n    return Relu(x, alpha=1)\n",
    "attribute_wrong_type": "@pattern\ndef P(x):\n    return Transpose(x, perm='ab')\n",
    "attribute_nested_list": "@pattern\ndef P(x):\n    return Transpose(x, perm=[[1], [0]])\n",
    "attribute_huge_int": "@pattern\ndef P(x):\n    return Softmax(x, axis=10**40)\n",
    "attribute_float_for_int": "@pattern\ndef P(x):\n    return Softmax(x, axis=1.5)\n",
    "operator_of_string": "@pattern\ndef P(x):\n    return Relu('x')\n",
    "operator_of_none": "@pattern\ndef P(x):\n    return Relu(None)\n",
    "operator_of_list": "@pattern\ndef P(x):\n    return Relu([x])\n",
    "operator_of_pattern_handle": ("@pattern\ndef Q(x):\n    return Relu(x)\n\n@pattern\n"
                                   "def P(x):\n    return Relu(Q)\n"),
    "output_index_negative": ("@pattern\ndef P(x):\n    return Relu(Split(x, axis=0, sizes=[1, 1])[-7])\n"),
    "output_index_too_large": ("@pattern\ndef P(x):\n"
                               "    return Relu(Split(x, axis=0, sizes=[1, 1])[99])\n"),
    "output_index_of_single": "@pattern\ndef P(x):\n    return Relu(Relu(x)[1])\n",
    "output_index_string": ("@pattern\ndef P(x):\n"
                            "    return Relu(Split(x, axis=0, sizes=[1, 1])['a'])\n"),
    "operator_called_twice": "@pattern\ndef P(x):\n    return Relu(x)(x)\n",
    "operator_attribute_access": "@pattern\ndef P(x):\n    return Relu(x).nope\n",
    # Arity.
    "too_many_inputs": "@pattern\ndef P(x):\n    return Relu(x, x)\n",
    "too_few_inputs": "@pattern\ndef P(x):\n    return MatMul(x)\n",
    "no_inputs": "@pattern\ndef P(x):\n    return Relu()\n",
    "pattern_call_too_many": ("@pattern\ndef Q(x):\n    return Relu(x)\n\n@pattern\n"
                              "def P(x):\n    return Q(x, x)\n"),
    "pattern_call_too_few": ("@pattern\ndef Q(x, y):\n    return Add(x, y)\n\n@pattern\n"
                             "def P(x):\n    return Q(x)\n"),
    "alternates_differ_in_arity": ("@pattern\ndef Q(x):\n    return Relu(x)\n\n@pattern\n"
                                   "def Q(x, y):\n    return Add(x, y)\n"),
    "rule_more_parameters": ("@pattern\ndef P(x):\n    return Relu(x)\n\n@rule(P)\n"
                             "def r(x, y):\n    return Tanh(y)\n"),
    "rule_replacement_arity": ("@pattern\ndef P(x):\n    return Relu(x)\n\n@rule(P)\n"
                               "def r(x):\n    return Add(x)\n"),
    # Recursion without a base case.
    "self_recursion": "@pattern\ndef P(x):\n    return Relu(P(x))\n",
    "left_recursion": "@pattern\ndef P(x):\n    return P(x)\n",
    "mutual_recursion": ("@pattern\ndef A(x):\n    return Relu(B(x))\n\n@pattern\n"
                         "def B(x):\n    return Tanh(A(x))\n"),
    "python_recursion_at_top_level": "def f(n):\n    return f(n + 1)\n\nf(0)\n",
    "recursive_rule": ("@pattern\ndef P(x):\n    return Relu(x)\n\n@rule(P)\n"
                       "def r(x):\n    return r(x)\n"),
    # Return values that are not patterns.
    "return_integer": "@pattern\ndef P(x):\n    return 3\n",
    "return_float": "@pattern\ndef P(x):\n    return 2.5\n",
    "return_none": "@pattern\ndef P(x):\n    return None\n",
    "no_return": "@pattern\ndef P(x):\n    pass\n",
    "return_string": "@pattern\ndef P(x):\n    return 'relu'\n",
    "return_tuple": "@pattern\ndef P(x):\n    return Relu(x), Tanh(x)\n",
    "return_list": "@pattern\ndef P(x):\n    return [Relu(x)]\n",
    "return_dict": "@pattern\ndef P(x):\n    return {'a': Relu(x)}\n",
    "return_parameter_only": "@pattern\ndef P(x):\n    return x\n",
    "return_expression": "@pattern\ndef P(x):\n    return x.shape.rank\n",
    "return_guard": "@pattern\ndef P(x):\n    return x.shape.rank == 2\n",
    "return_operator_variable": "@pattern\ndef P(x, f: Op):\n    return f\n",
    "return_pattern_handle": ("@pattern\ndef Q(x):\n    return Relu(x)\n\n@pattern\n"
                              "def P(x):\n    return Q\n"),
    "return_constructor": "@pattern\ndef P(x):\n    return Relu\n",
    "rule_returns_integer": ("@pattern\ndef P(x):\n    return Relu(x)\n\n@rule(P)\n"
                             "def r(x):\n    return 1\n"),
    "rule_returns_none": ("@pattern\ndef P(x):\n    return Relu(x)\n\n@rule(P)\n"
                          "def r(x):\n    pass\n"),
    "rule_returns_pattern_call": ("@pattern\ndef P(x):\n    return Relu(x)\n\n@rule(P)\n"
                                  "def r(x):\n    return P(x)\n"),
    "rule_returns_tuple": ("@pattern\ndef P(x):\n    return Relu(x)\n\n@rule(P)\n"
                           "def r(x):\n    return x, x\n"),
    # Misuse of the helpers.
    "var_with_arguments": "@pattern\ndef P(x):\n    y = var(1, 2, 3)\n    return Relu(y)\n",
    "var_outside_pattern": "y = var()\n@pattern\ndef P(x):\n    return Add(x, y)\n",
    "op_var_outside_pattern": "f = op_var()\n@pattern\ndef P(x):\n    return f(x)\n",
    "annotation_not_op": "@pattern\ndef P(x: int):\n    return Relu(x)\n",
    "annotation_garbage": "@pattern\ndef P(x: 'nonsense'):\n    return Relu(x)\n",
    "serialize_bad_path": "serialize(3)\n",
}


# Files above that look wrong but are valid: a pattern body is ordinary Python run symbolically
# (loops, comprehensions, local functions, imports and try blocks simply run), constant guards
# are guards that always or never hold and are checked when matching (as is a division by zero),
# `x <= 3` matches the constant 3, a rule's replacement may be a constant, `pattern(None)` is the
# decorator itself, and serialize() does nothing while compiling. They must compile cleanly or be
# rejected cleanly; the others must be rejected.
MAY_COMPILE = {
    "comprehension", "for_loop", "global_statement", "guard_divide_by_zero", "guard_false",
    "guard_matches_integer", "guard_none", "guard_string", "import_in_body", "lambda_in_body",
    "nested_def", "no_parameters", "pattern_on_none", "return_parameter_only",
    "rule_returns_integer", "rule_then_pattern", "rule_twice", "serialize_bad_path", "try_block",
    "walrus",
}


@pytest.mark.parametrize("name", sorted(MALFORMED))
def test_malformed_file_gives_a_located_error(tmp_path, name):
    error = compile_source(tmp_path, HEADER + MALFORMED[name])
    if name not in MAY_COMPILE:
        assert error is not None, f"{name}: a malformed file compiled:\n{MALFORMED[name]}"


def test_attribute_of_a_pattern_is_a_pattern_error(tmp_path):
    # Was a bare AttributeError raised inside symbolic.py.
    error = compile_source(tmp_path, HEADER + MALFORMED["operator_attribute_access"])
    assert "a pattern has no attribute 'nope'" in error.message, error
    assert error.line == 5, error


def tokens_of(source: str):
    return list(tokenize.generate_tokens(io.StringIO(source).readline))


def mutate(source: str, rng: random.Random) -> str:
    """One to three token edits: delete, duplicate, swap with a neighbour, or replace with a
    token from the same file or from a list of troublemakers."""
    tokens = [t for t in tokens_of(source) if t.type != tokenize.ENDMARKER]
    vocabulary = [t.string for t in tokens if t.string.strip()] + [
        "(", ")", "[", "]", ",", ":", "=", "==", "<=", "assert", "return", "pattern", "rule",
        "@pattern", "None", "0", "-1", "1.5", "'s'", "x", "var()", "Op", "lambda", "*", "."]
    lines = source.splitlines(True)
    # Edits work on (line, column) spans; apply from the end so earlier spans stay valid.
    edits = []
    for _ in range(rng.randint(1, 3)):
        candidates = [t for t in tokens if t.string.strip() and t.start[0] == t.end[0]]
        token = rng.choice(candidates)
        kind = rng.choice(["delete", "duplicate", "replace", "replace"])
        text = {"delete": "", "duplicate": token.string + " " + token.string,
                "replace": rng.choice(vocabulary)}[kind]
        edits.append((token.start, token.end, text))
    edits = sorted(set(edits), key=lambda edit: edit[0], reverse=True)
    last_start = None
    for (row, col), (_, end_col), text in edits:
        if last_start is not None and (row, end_col) > last_start:
            continue  # overlapping edit
        line = lines[row - 1]
        lines[row - 1] = line[:col] + text + line[end_col:]
        last_start = (row, col)
    return "".join(lines)


# More with PYPM_MUTATIONS=N (a longer search; the seeds stay fixed).
MUTATIONS_PER_EXAMPLE = int(os.environ.get("PYPM_MUTATIONS", "60"))


@pytest.mark.parametrize("example", EXAMPLES, ids=[path.stem for path in EXAMPLES])
def test_token_mutations_of_examples(tmp_path, example):
    source = example.read_text()
    for other in EXAMPLES:  # shipped.py reads its neighbours
        (tmp_path / other.name).write_text(other.read_text())
    # The unmutated example compiles (so the mutations start from a valid file).
    assert compile_source(tmp_path, source, example.name) is None
    rng = random.Random(f"pypm-malformed-{example.stem}")
    outcomes = {"compiled": 0, "rejected": 0}
    for index in range(MUTATIONS_PER_EXAMPLE):
        mutated = mutate(source, rng)
        error = compile_source(tmp_path, mutated, f"{example.stem}_m{index}.py")
        outcomes["compiled" if error is None else "rejected"] += 1
    assert outcomes["rejected"] > 0, outcomes
