"""Mistakes in a pattern file are reported at the right file and line."""
import pytest

HEADER = "from saturate import pypm\nfrom saturate.pypm import *\n"

CASES = {
    "unknown_constructor": ("""
@pattern
def P(x):
    return Frobnicate(x)  # <-
""", "Frobnicate"),
    "unknown_module_constructor": ("""
@pattern
def P(x):
    return pypm.Frobnicate(x)  # <-
""", "unknown operator constructor pypm.Frobnicate"),
    "unknown_import": ("""
from saturate.pypm import Frobnicate  # <-
""", "Frobnicate"),
    "unknown_attribute_keyword": ("""
@pattern
def P(x):
    return MatMul(x, x, fused=1)  # <-
""", "MatMul (matmul) has no attribute 'fused' (its attributes: activation)"),
    "unknown_attribute_in_guard": ("""
@pattern
def P(x):
    assert x.attrs.bogus == 1  # <-
    return Relu(x)
""", "unknown attribute 'bogus'"),
    "unknown_variable_property": ("""
@pattern
def P(x):
    assert x.size == 1  # <-
    return Relu(x)
""", "has no property 'size'"),
    "operator_arity": ("""
@pattern
def P(x):
    return Relu(x, x)  # <-
""", "Relu (relu) takes 1 input, got 2"),
    "operator_arity_too_few": ("""
@pattern
def P(x):
    return LayerNorm(x)  # <-
""", "takes 3 inputs, got 1"),
    "pattern_call_arity": ("""
@pattern
def Half(x):
    return Div(x, 2.0)

@pattern
def P(x):
    return Relu(Half(x, x))  # <-
""", "takes 1 argument, got 2"),
    "pattern_call_unknown_keyword": ("""
@pattern
def Half(x):
    return Div(x, 2.0)

@pattern
def P(x):
    return Relu(Half(y=x))  # <-
""", "has no parameter 'y'"),
    "rule_parameter_missing_from_pattern": ("""
@pattern
def P(x):
    return Relu(x)

@rule(P)
def r(x, w):  # <-
    return x
""", "rule r has the parameter 'w', which pattern P lacks"),
    "rule_uses_pattern_local": ("""
@pattern
def P(x):
    y = var()
    assert x <= Relu(y)
    return x

@rule(P)
def r(x, y):  # <-
    return y
""", "'y', a local variable of pattern P"),
    "rule_uses_pattern_local_through_a_global": ("""
SAVED = []

@pattern
def P(x):
    y = var()
    SAVED.append(y)
    assert x <= Relu(y)
    return x

@rule(P)
def r(x):
    return Tanh(SAVED[0])  # <-
""", "a rule can only use its own parameters"),
    "guard_on_unbound_local": ("""
@pattern
def P(x):
    y = var()
    assert y.shape.rank == 2  # <-
    assert x <= Relu(y)
    return x
""", "the guard reads 'y' before it is bound"),
    "guard_on_parameter_bound_later": ("""
@pattern
def P(x, y):
    assert y.shape.rank == 2  # <-
    assert x <= Relu(y)
    return x
""", "the guard reads 'y' before it is bound"),
    "match_constraint_on_unbound": ("""
@pattern
def P(x):
    y, z = var(), var()
    assert y <= Relu(z)  # <-
    assert x <= Tanh(y)
    return x
""", "match constraint on 'y' comes before 'y' is bound"),
    "op_var_used_as_term": ("""
@pattern
def P(x, f: Op):
    return Add(x, f)  # <-
""", "operator variable 'f' used as a term"),
    "op_var_shape": ("""
@pattern
def P(x, f: Op):
    assert f.shape.rank == 2  # <-
    return f(x)
""", "'f' is an operator variable"),
    "term_var_used_as_operator": ("""
@pattern
def P(x, f):
    return f(x)  # <-
""", "term variable 'f' used as an operator: annotate the parameter with pypm.Op"),
    "term_var_passed_to_op_parameter": ("""
@pattern
def Chain(x, f: Op):
    return f(x)

@pattern
def P(x, y):
    return Chain(x, y)  # <-
""", "term variable 'y' used as an operator"),
    "op_var_passed_to_term_parameter": ("""
@pattern
def Chain(x, f: Op):
    return f(x)

@pattern
def P(x, g: Op):
    return Chain(g, g)  # <-
""", "operator variable 'g' used as a term"),
    "pattern_attribute_not_a_literal": ("""
@pattern
def P(x):
    return Softmax(x, axis=x.shape.rank - 1)  # <-
""", "attribute 'axis' in a pattern must be a literal constant"),
    "expression_as_input": ("""
@pattern
def P(x):
    return Add(x, x.shape[0])  # <-
""", "an expression is not a graph value"),
    "output_index_not_a_literal": ("""
@pattern
def P(x, i):
    return Relu(Split(x, axis=0, sizes=[1, 1])[i])  # <-
""", "an output index must be an int literal"),
    "attribute_wrong_kind": ("""
@pattern
def P(x):
    return Transpose(x, perm=1)  # <-
""", "attribute 'perm' takes a list of ints, got 1"),
    "activation_unknown_name": ("""
@pattern
def P(x, y):
    return MatMul(x, y, activation="gelu")  # <-
""", "attribute 'activation' takes one of"),
    "comparison_of_different_kinds": ("""
@pattern
def P(x):
    assert x.dtype == 32  # <-
    return Relu(x)
""", "comparing a string with a int"),
    "guard_not_a_condition": ("""
@pattern
def P(x):
    assert x.shape.rank  # <-
    return Relu(x)
""", "a int expression cannot be a guard"),
    "recursion_without_base_case": ("""
@pattern
def Loop(x, f: Op):  # <-
    return f(Loop(x, f))

@pattern
def Loop(x, f: Op):
    return f(Relu(Loop(x, f)))
""", "pattern Loop has no base case"),
    "mutual_recursion_without_base_case": ("""
@pattern
def A(x):  # <-
    return Relu(B(x))

@pattern
def B(x):
    return Tanh(A(x))
""", "has no base case"),
    "left_recursion": ("""
@pattern
def L(x):  # <-
    return L(x)

@pattern
def L(x):
    return Relu(x)
""", "left recursion: L -> L"),
    "alternate_parameter_names_differ": ("""
@pattern
def P(x):
    return Relu(x)

@pattern
def P(y):  # <-
    return Tanh(y)
""", "every alternate must have the same parameter names, count and kinds"),
    "alternate_parameter_count_differs": ("""
@pattern
def P(x):
    return Relu(x)

@pattern
def P(x, y):  # <-
    return Add(x, y)
""", "has the parameters (x, y) but its first alternate"),
    "alternate_parameter_kinds_differ": ("""
@pattern
def P(x, f: Op):
    return f(x)

@pattern
def P(x, f):  # <-
    return Add(x, f)
""", "(x, f) but its first alternate"),
    "rule_for_unknown_pattern": ("""
@rule("Nope")
def r(x):  # <-
    return x
""", "rule r is for the pattern 'Nope', which is not defined"),
    "rule_without_pattern": ("""
@rule  # <-
def r(x):
    return x
""", "@rule needs the pattern"),
    "match_constraint_in_rule": ("""
@pattern
def P(x):
    return Relu(x)

@rule(P)
def r(x):
    assert x <= Relu(x)  # <-
    return x
""", "cannot be used in a rule"),
    "if_on_match_constraint": ("""
@pattern
def P(x, y):
    if x <= Relu(y):  # <-
        return x
    return Tanh(y)
""", "cannot be the condition of an if"),
    "local_never_bound": ("""
@pattern
def P(x):
    unused = var()  # <-
    return Relu(x)
""", "local variable 'unused' is never bound"),
    "parameter_never_bound": ("""
@pattern
def P(x, y):  # <-
    return Relu(x)
""", "parameter 'y' of pattern P is never bound"),
    "missing_return": ("""
@pattern
def P(x):  # <-
    assert x.shape.rank == 2
""", "a pattern must return the pattern it matches"),
    "rule_missing_return": ("""
@pattern
def P(x):
    return Relu(x)

@rule(P)
def r(x):  # <-
    pass
""", "rule r must return the replacement"),
    "rule_calls_pattern": ("""
@pattern
def P(x):
    return Relu(x)

@rule(P)
def r(x):
    return P(x)  # <-
""", "cannot be used in a rule"),
    "rule_creates_variable": ("""
@pattern
def P(x):
    return Relu(x)

@rule(P)
def r(x):
    y = var()  # <-
    return x
""", "var() cannot be used in a rule"),
    "rule_missing_required_attribute": ("""
@pattern
def P(x):
    return Relu(x)

@rule(P)
def r(x):
    return Transpose(x)  # <-
""", "Transpose (transpose) in a rule needs the attribute perm"),
    "rule_op_annotation_on_term_parameter": ("""
@pattern
def P(x):
    return Relu(x)

@rule(P)
def r(x: Op):  # <-
    return x
""", "annotated pypm.Op but is a term parameter"),
    "symbolic_condition_in_untransformed_helper": ("""
def is_matrix(v):
    return v.shape.rank == 2 and v.shape[0] > 0  # <-

@pattern
def P(x):
    assert is_matrix(x)
    return Relu(x)
""", "a symbolic condition was used where Python needs a real True/False"),
    "pattern_has_no_shape": ("""
@pattern
def P(x):
    y = Relu(x)
    assert y.shape.rank == 2  # <-
    return y
""", "a pattern has no 'shape'"),
    "parameter_default": ("""
@pattern
def P(x, y=None):  # <-
    return Relu(x)
""", "has a default value"),
    "bad_annotation": ("""
@pattern
def P(x: int):  # <-
    return Relu(x)
""", "only pypm.Op"),
    "syntax_error": ("""
@pattern
def P(x):
    return Relu(x  # <-
""", "syntax error"),
    "python_error_in_body": ("""
@pattern
def P(x):
    sizes = [1, 2]
    return Relu(Split(x, axis=0, sizes=sizes)[sizes[5]])  # <-
""", "IndexError"),
    "output_index_out_of_range": ("""
@pattern
def P(x):
    return Relu(Split(x, axis=0, sizes=[1, 1])[2])  # <-
""", "split has 2 outputs; there is no output 2"),
    "output_of_single_output_operator": ("""
@pattern
def P(x):
    return Relu(Relu(x)[1])  # <-
""", "Relu has one output"),
    "output_index_past_a_two_output_kernel": ("""
@pattern
def P(x, s, g, b):
    return Relu(SkipLayerNorm(x, s, g, b)[2])  # <-
""", "SkipLayerNorm has 2 outputs; there is no output 2"),
    "pattern_compared_with_eq": ("""
@pattern
def P(x, y):
    assert Relu(x) == y  # <-
    return y
""", "patterns cannot be compared with =="),
    "in_with_symbolic_collection": ("""
@pattern
def P(x):
    assert 3 in x.shape  # <-
    return Relu(x)
""", "`in` needs a tuple or list"),
    "symbolic_while_loop": ("""
@pattern
def P(x):
    y = x
    while x.shape.rank > 0:  # <-
        y = Relu(y)
    return y
""", "symbolic branches on one path"),
    "rule_attribute_expression_wrong_kind": ("""
@pattern
def P(x):
    return Relu(x)

@rule(P)
def r(x):
    return Softmax(x, axis=x.dtype)  # <-
""", "attribute 'axis' takes int values, got a string expression"),
    "pattern_outside_body": ("""
y = Relu(1.0)  # <-
""", "can only be used inside a @pattern or @rule body"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_error_is_reported_at_the_line(case, compiler, line_of):
    body, message = CASES[case]
    source = HEADER + body
    error = compiler.error(source)
    assert message in error.message, str(error)
    assert error.line == line_of(source), str(error)
    text = str(error)
    assert text.startswith(f"{error.filename}:{error.line}: error: ")
    assert "\n" not in text


def test_registry_is_restored_after_a_failed_compile(compiler):
    from saturate import pypm

    @pypm.pattern
    def Kept(x):
        return pypm.Relu(x)

    compiler.error(HEADER + CASES["operator_arity"][0])
    assert [d.name for d in pypm.build_core().definitions] == ["Kept"]
