"""A rule that replaces more than its root: `return root, (s, t)` replaces the value bound to s by
t as well (a fused kernel that also computes a value the pattern went through)."""
import pytest

from saturate.pypm import core, reader
from saturate.pypm.serialize import to_bytes

PRE_NORM = """
from saturate.pypm import EwAdd, LayerNorm, SkipLayerNorm, Relu, pattern, rule, var

@pattern
def PreNorm(s, x, skip, g, b):
    assert s <= EwAdd(x, skip)
    return LayerNorm(s, g, b)

@rule(PreNorm)
def fuse(s, x, skip, g, b):
    fused = SkipLayerNorm(x, skip, g, b, epsilon=1e-5)
    return fused[0], (s, fused[1])
"""


def test_the_rule_carries_its_further_replacement_and_the_file_is_version_two(compiler):
    module = compiler.core(PRE_NORM)
    (rule,) = module.rules
    assert rule.replacement.output == 0 and rule.replacement.head.op == "skip_layer_norm"
    ((var, term),) = rule.also
    assert var == 0  # s, the rule's first parameter
    assert term.output == 1 and term.args == rule.replacement.args
    data = to_bytes(module)
    assert data[4:6] == b"\x02\x00"
    assert reader.from_bytes(data) == module
    assert "also s => skip_layer_norm(x, skip, g, b, epsilon=1e-05)[1]" in core.format_file(module)


def test_files_without_further_replacements_stay_version_one(compiler):
    module = compiler.core(PRE_NORM.replace("return fused[0], (s, fused[1])", "return fused[0]"))
    assert module.rules[0].also == ()
    assert to_bytes(module)[4:6] == b"\x01\x00"


@pytest.mark.parametrize("ret, message", [
    ("return fused[0], fused[1]", "must be a pair (variable, replacement)"),
    ("return fused[0], (s, fused[1], x)", "must be a pair (variable, replacement)"),
    ("return fused[0], (s, fused[1]), (s, fused[1])", "replaces 's' twice"),
    ("return ()", "returned an empty tuple"),
])
def test_malformed_tuples_are_clear_errors(compiler, ret, message):
    error = compiler.error(PRE_NORM.replace("return fused[0], (s, fused[1])", ret))
    assert message in str(error)


def test_a_version_two_file_with_a_bad_variable_is_rejected(compiler):
    module = compiler.core(PRE_NORM)
    rule = module.rules[0]
    broken = core.PatternFile(module.source_file, module.definitions, (
        core.Rule(rule.name, rule.definition, rule.line, rule.params, rule.guards,
                  rule.replacement, ((9, rule.also[0][1]),)),))
    with pytest.raises(reader.FormatError, match="not a term variable of the rule"):
        reader.from_bytes(to_bytes(broken))


def test_a_version_two_file_replacing_one_variable_twice_is_rejected(compiler):
    # The compiler never writes such a file; the reader rejects it as the C++ loader does.
    module = compiler.core(PRE_NORM)
    rule = module.rules[0]
    twice = rule.also + rule.also
    broken = core.PatternFile(module.source_file, module.definitions, (
        core.Rule(rule.name, rule.definition, rule.line, rule.params, rule.guards,
                  rule.replacement, twice),))
    with pytest.raises(reader.FormatError, match="replaces variable 0 twice"):
        reader.from_bytes(to_bytes(broken))
