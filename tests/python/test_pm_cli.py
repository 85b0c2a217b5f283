"""saturate pm compile / pm apply / optimize --pypm: the shipped PyPM examples on real models."""
import json
import pathlib

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples" / "pypm"
MODELS = ["bert", "nasrnn", "nasnet_a", "resnext50", "inception_v3", "squeezenet", "vgg19",
          "resnet50", "mobilenet_v2", "transformer", "transformer_decomposed"]


@pytest.fixture(scope="module")
def compiled(saturate, tmp_path_factory):
    """Every example compiled with `saturate pm compile`: name -> .pmb path."""
    out = tmp_path_factory.mktemp("pmb")
    paths = {}
    for source in sorted(EXAMPLES.glob("*.py")):
        target = out / (source.stem + ".pmb")
        result = saturate("pm", "compile", source, "-o", target)
        assert result.returncode == 0, result.stderr
        assert target.read_bytes()[:4] == b"SPMB"
        paths[source.stem] = target
    return paths


def histogram(saturate, graph):
    result = saturate("show", graph, "--json")
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)["op_histogram"]


def apply(saturate, tmp_path, patterns, graph, *extra):
    """Runs pm apply with --verify; returns (report, histogram of the rewritten graph)."""
    report_path, out = tmp_path / "report.json", tmp_path / "out.sxp"
    result = saturate("pm", "apply", patterns, graph, "--verify", "--json", report_path,
                      "-o", out, *extra)
    assert result.returncode == 0, result.stderr
    report = json.loads(report_path.read_text())
    assert report["verified"] is True
    return report, histogram(saturate, out)


def optimize_pypm_only(saturate, tmp_path, patterns):
    """optimize --pypm with no rule files, greedy, --verify, on the reduced decomposed transformer;
    asserts it verified and returns (applied per rule, histogram of the optimized graph)."""
    report_path, out = tmp_path / "opt.json", tmp_path / "opt.sxp"
    result = saturate("optimize", "transformer_decomposed", "--reduced", "--no-rules", "--pypm",
                      patterns, "--extract", "greedy", "--verify", "--json", report_path,
                      "-o", out)
    assert result.returncode == 0, result.stderr
    report = json.loads(report_path.read_text())
    assert report["verified"] is True
    return {rule["rule"]: rule["applied"] for rule in report["rules"]}, histogram(saturate, out)


def applications(report):
    return {rule["rule"]: rule["applications"] for rule in report["rules"]}


@pytest.mark.parametrize("reduced", [True, False])
def test_gelu_both_spellings_fuse_on_the_decomposed_transformer(saturate, compiled, tmp_path,
                                                                reduced):
    flags = ["--reduced"] if reduced else []
    before = histogram(saturate, "transformer_decomposed") if not reduced else None
    report, after = apply(saturate, tmp_path, compiled["gelu"], "transformer_decomposed", *flags)
    # Layer 0 writes x / 2 and 1 + erf, layer 1 x * 0.5 and erf + 1: both fuse.
    assert applications(report) == {"fuse_gelu": 2}
    assert after["gelu"] == 2 and "erf" not in after
    if before is not None:
        assert before["erf"] == 2 and "gelu" not in before
    assert report["cost_after"] < report["cost_before"]


def test_layernorm_and_attention_fuse_into_single_ops(saturate, compiled, tmp_path):
    report, after = apply(saturate, tmp_path, compiled["layernorm"], "transformer_decomposed",
                          "--reduced")
    assert applications(report) == {"fuse_layernorm": 4}  # mul(d, d) and pow(d, 2) forms
    assert after["layernorm"] == 4 and "reduce_mean" not in after and "pow" not in after
    report, after = apply(saturate, tmp_path, compiled["attention"], "transformer_decomposed",
                          "--reduced")
    assert applications(report) == {"fuse_attention": 2}
    assert after["attention"] == 2 and "softmax" not in after


def test_all_fusions_together_match_the_fused_transformer_block(saturate, compiled, tmp_path):
    graph, flags = "transformer_decomposed", ["--reduced"]
    for name in ["gelu", "layernorm", "attention"]:
        out = tmp_path / f"after_{name}.sxp"
        result = saturate("pm", "apply", compiled[name], graph, *flags, "--verify", "-o", out)
        assert result.returncode == 0, result.stderr
        graph, flags = out, []
    fused = histogram(saturate, graph)
    reference = histogram(saturate, "transformer")
    # Two layers of the fused block's operators, apart from the attention the block keeps unfused.
    for op in ["gelu", "layernorm"]:
        assert fused[op] == 2 * reference[op]
    assert fused["attention"] == 2 and reference["softmax"] == 1


def test_shipped_library_fuses_the_whole_block_in_one_run(saturate, compiled, tmp_path):
    report, after = apply(saturate, tmp_path, compiled["shipped"], "transformer_decomposed",
                          "--reduced")
    assert applications(report) == {"fuse_attention": 2, "fuse_gelu": 2, "fuse_layernorm": 4,
                                    "product_of_transposes": 0, "collapse_idempotent_chain": 0}
    assert (after["attention"], after["gelu"], after["layernorm"]) == (2, 2, 4)
    assert report["passes"] == 2  # one pass rewrites, the next finds nothing


@pytest.mark.parametrize("example,rule", [("unary_chain", "collapse_idempotent_chain"),
                                          ("transpose_matmul", "product_of_transposes")])
def test_rules_change_nothing_where_they_do_not_apply(saturate, compiled, tmp_path, example,
                                                      rule):
    # The bundled models have no relu chains and no products of transposes: no false matches,
    # and every model still verifies.
    for model in MODELS:
        report, _ = apply(saturate, tmp_path, compiled[example], model, "--reduced")
        assert applications(report) == {rule: 0}, model
        assert report["operators_after"] == report["operators_before"]


def write_graph(tmp_path, text):
    path = tmp_path / "graph.sxp"
    path.write_text(text)
    return path


CHAIN = """(graph chain
  (node x (input :shape [4 6]))
  (node a (relu x))
  (node b (relu a))
  (node c (relu b))
  (node d (tanh c))
  (node e (tanh d))
  (output y e)
)
"""

TRANSPOSES = """(graph transposes
  (node x (input :shape [5 3]))
  (node y (input :shape [4 5]))
  (node xt (transpose x :perm [1 0]))
  (node yt (transpose y :perm [1 0]))
  (node p (matmul xt yt))
  (output out p)
)
"""


def test_unary_chain_collapses_only_idempotent_chains(saturate, compiled, tmp_path):
    report, after = apply(saturate, tmp_path, compiled["unary_chain"],
                          write_graph(tmp_path, CHAIN))
    assert applications(report)["collapse_idempotent_chain"] >= 1
    assert after == {"relu": 1, "tanh": 2}  # tanh is not idempotent: left alone


def test_product_of_transposes_becomes_transpose_of_product(saturate, compiled, tmp_path):
    report, after = apply(saturate, tmp_path, compiled["transpose_matmul"],
                          write_graph(tmp_path, TRANSPOSES))
    assert applications(report) == {"product_of_transposes": 1}
    assert after == {"matmul": 1, "transpose": 1}


def test_explain_shows_which_alternate_failed_where(saturate, compiled, tmp_path):
    result = saturate("pm", "apply", compiled["binary_unary_tree"],
                      write_graph(tmp_path, CHAIN), "--explain", "e")
    assert result.returncode == 0, result.stderr
    # A pattern-only module: every pattern is explained. e = tanh(tanh(relu(...))) is a tree of
    # unary operators under no binary one, so the binary/unary tree does not match there.
    assert "pattern 'BinaryUnaryTree'" in result.stdout and "alternate 1" in result.stdout
    result = saturate("pm", "apply", compiled["gelu"], "transformer_decomposed", "--reduced",
                      "--explain", "input")
    assert result.returncode == 0, result.stderr
    assert "no match" in result.stdout


def test_binary_unary_tree_is_bound_at_its_root_in_nasrnn(saturate, compiled):
    # NasRNN's cell has tanh(ewmul(tanh(..), tanh(..)))-shaped trees of one binary and one
    # unary operator; the pattern binds x to the root, not to a leaf.
    result = saturate("pm", "apply", compiled["binary_unary_tree"], "nasrnn", "--reduced",
                      "--explain", "t65")
    assert result.returncode == 0, result.stderr
    assert "pattern 'BinaryUnaryTree'" in result.stdout and "): matches" in result.stdout
    assert "match: x = t65, f = ewmul, g = tanh" in result.stdout


def test_phase_ordering_trap_is_escaped_through_the_egraph(saturate, compiled, tmp_path):
    # Greedy: the scalar canonicalization, listed first, destroys the GELU before it is fused.
    report, after = apply(saturate, tmp_path, compiled["phase_ordering"],
                          "transformer_decomposed", "--reduced")
    assert applications(report) == {"scale_last": 1, "fuse_gelu": 0}
    assert "gelu" not in after
    # Equality saturation keeps both forms; extraction takes the fused GELU.
    applied, after = optimize_pypm_only(saturate, tmp_path, compiled["phase_ordering"])
    assert applied["pypm:scale_last"] >= 1 and applied["pypm:fuse_gelu"] == 1
    assert after["gelu"] == 1


def test_egraph_rewrites_build_constants(saturate, tmp_path, pm_file):
    # Layer 0 writes its GELU's half as x / 2, layer 1 as x * 0.5; the fusion knows only the
    # second. `halve` builds the constant 0.5 inside the e-graph, which opens layer 0 to it.
    patterns = pm_file("""
        from saturate import pypm
        from saturate.pypm import Add, Div, Erf, Mul, pattern, rule

        @pattern
        def Halved(x):
            return Div(x, 2.0)

        @rule(Halved)
        def halve(x):
            return Mul(x, 0.5)

        @pattern
        def OnePlus(e):
            return Add(1.0, e)

        @pattern
        def OnePlus(e):
            return Add(e, 1.0)

        @pattern
        def HalfGelu(x):
            return Mul(Mul(x, 0.5), OnePlus(Erf(Div(x, 1.4142135623730951))))

        @rule(HalfGelu)
        def fuse_gelu(x):
            return pypm.Gelu(x)
    """)
    applied, after = optimize_pypm_only(saturate, tmp_path, patterns)
    assert applied["pypm:halve"] >= 1 and applied["pypm:fuse_gelu"] == 2
    assert after["gelu"] == 2


def test_pypm_rules_join_the_shipped_library_in_optimize(saturate, compiled, tmp_path):
    report_path = tmp_path / "opt.json"
    result = saturate("optimize", "transformer_decomposed", "--reduced", "--pypm",
                      compiled["layernorm"], "--extract", "greedy", "--verify",
                      "--json", report_path)
    assert result.returncode == 0, result.stderr
    report = json.loads(report_path.read_text())
    applied = {rule["rule"]: rule["applied"] for rule in report["rules"]}
    assert applied["pypm:fuse_layernorm"] == 4
    assert any(not name.startswith("pypm:") for name in applied)  # the shipped rules ran too


def test_iteration_cap_is_reported_not_an_error(saturate, tmp_path, pm_file):
    patterns = pm_file("""
        from saturate.pypm import Mul, pattern, rule

        @pattern
        def Product(x, y):
            return Mul(x, y)

        @rule(Product)
        def commute(x, y):
            return Mul(y, x)
    """)
    graph = write_graph(tmp_path, """(graph g
  (node x (input :shape [3]))
  (node y (input :shape [3]))
  (node p (mul x y))
  (output out p)
)
""")
    report, _ = apply(saturate, tmp_path, patterns, graph, "--max-passes", "5")
    assert report["hit_iteration_cap"] is True and report["passes"] == 5


def test_ill_typed_rule_is_an_error_and_writes_nothing(saturate, tmp_path, pm_file):
    patterns = pm_file("""
        from saturate.pypm import MatMul, Relu, pattern, rule

        @pattern
        def Rectified(x):
            return Relu(x)

        @rule(Rectified)
        def square(x):
            return MatMul(x, x)
    """)
    out = tmp_path / "out.sxp"
    result = saturate("pm", "apply", patterns, write_graph(tmp_path, TRANSPOSES.replace(
        "(output out p)", "(node r (relu p))\n  (output out r)")), "-o", out)
    assert result.returncode == 1
    assert result.stderr.startswith("saturate: error:") and "square" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert not out.exists()


def test_truncated_pattern_binary_is_a_clear_error(saturate, compiled, tmp_path):
    data = compiled["gelu"].read_bytes()
    for cut in [0, 3, 10, len(data) // 2, len(data) - 1]:
        broken = tmp_path / "broken.pmb"
        broken.write_bytes(data[:cut])
        out = tmp_path / "out.sxp"
        result = saturate("pm", "apply", broken, "squeezenet", "-o", out)
        assert result.returncode == 1, cut
        # An empty file is refused before the reader sees it.
        expected = "is empty" if cut == 0 else "invalid .pmb file at byte"
        assert result.stderr.startswith("saturate: error:") and expected in result.stderr, cut
        assert not out.exists()
        assert broken.read_bytes() == data[:cut]  # the input file is never modified


def test_compile_error_points_at_the_python_line(saturate, tmp_path):
    source = tmp_path / "bad.py"
    source.write_text("from saturate.pypm import pattern, Relu\n\n@pattern\ndef P(x):\n"
                      "    return Relu(x, 3)\n")
    out = tmp_path / "bad.pmb"
    result = saturate("pm", "compile", source, "-o", out)
    assert result.returncode == 1
    assert "bad.py:5" in result.stderr
    assert not out.exists()


@pytest.fixture
def pm_file(saturate, tmp_path):
    """Compiles PyPM source text with `saturate pm compile`; returns the .pmb path."""
    import textwrap

    def compile_text(text):
        source = tmp_path / "patterns.py"
        source.write_text(textwrap.dedent(text))
        target = tmp_path / "patterns.pmb"
        result = saturate("pm", "compile", source, "-o", target)
        assert result.returncode == 0, result.stderr
        return target

    return compile_text


def test_guard_on_a_missing_attribute_is_a_clear_error(saturate, tmp_path, pm_file):
    patterns = pm_file("""
        from saturate.pypm import Relu, pattern, rule

        @pattern
        def Strided(x):
            y = Relu(x)
            assert x.attrs.stride_h == 1
            return y

        @rule(Strided)
        def same(x):
            return Relu(x)
    """)
    graph = write_graph(tmp_path, CHAIN)
    out = tmp_path / "out.sxp"
    result = saturate("pm", "apply", patterns, graph, "-o", out)
    assert result.returncode == 1
    assert "patterns.py:7" in result.stderr and "no attribute 'stride_h'" in result.stderr
    assert not out.exists()


def test_pattern_that_recurses_forever_is_refused(saturate, tmp_path):
    source = tmp_path / "loop.py"
    source.write_text("from saturate.pypm import pattern\n\n@pattern\ndef Loop(x):\n"
                      "    return Loop(x)\n")
    out = tmp_path / "loop.pmb"
    result = saturate("pm", "compile", source, "-o", out)
    assert result.returncode == 1
    assert "loop.py:" in result.stderr and "recurs" in result.stderr
    assert not out.exists()
