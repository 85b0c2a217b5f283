"""`import saturate`: graphs, optimize, compare, and PyPM patterns written and applied in process."""
import textwrap

import pytest

import saturate
from saturate import pypm

if not saturate.HAVE_EXTENSION:  # a sanitizer-only build has no extension (see CMakeLists.txt)
    pytest.skip(f"the C++ extension is not built: {saturate.EXTENSION_ERROR}",
                allow_module_level=True)


def test_models_build_and_cost():
    assert "transformer_decomposed" in saturate.models()
    graph = saturate.model("squeezenet", reduced=True)
    assert graph.num_operators == 65
    assert graph.cost() > 0
    with pytest.raises(ValueError, match="unknown model"):
        saturate.model("alexnet")


def test_build_a_graph_and_round_trip_its_text():
    graph = saturate.Graph("tiny")
    x = graph.input("x", [2, 3])
    w = graph.weight("w", [3, 4])
    (product,) = graph.op("matmul", [x, w], {"activation": "relu"})
    graph.output("y", product)
    assert graph.shape(product) == [2, 4]
    assert saturate.parse_text(graph.to_text()) == graph
    with pytest.raises(ValueError, match="matmul inner dimensions"):
        graph.op("matmul", [x, x])
    with pytest.raises(ValueError, match="no attribute 'stride'"):
        graph.op("relu", [x], {"stride": 1})


def test_optimize_returns_a_cheaper_graph_that_computes_the_same():
    graph = saturate.model("nasrnn", reduced=True)
    optimized, report = saturate.optimize(graph, extract="greedy")
    assert report["optimized_cost"] < report["original_cost"]
    assert report["stop_reason"]
    comparison = saturate.compare(graph, optimized)
    assert comparison["finite"] and comparison["max_relative_error"] < 1e-6


def test_the_time_limit_bounds_the_whole_run_and_must_be_positive():
    graph = saturate.model("nasrnn", reduced=True)
    _, report = saturate.optimize(graph, extract="greedy", time_limit=120)
    assert report["time_limit"] == 120 and report["time_limit_reached_while"] is None
    for bad in (0, -3, float("nan")):
        with pytest.raises(ValueError, match="time limit must be a positive number"):
            saturate.optimize(graph, time_limit=bad)


def test_pypm_patterns_written_in_python_apply_in_process(tmp_path):
    pypm.reset()
    source = tmp_path / "fuse.py"
    source.write_text(textwrap.dedent("""
        from saturate.pypm import Div, Mul, Erf, Add, Gelu, pattern, rule

        @pattern
        def Half(x):
            return Div(x, 2.0)

        @pattern
        def Half(x):
            return Mul(x, 0.5)

        @pattern
        def ErfGelu(x):
            return Mul(Half(x), Add(1.0, Erf(Div(x, 1.4142135623730951))))

        @rule(ErfGelu)
        def fuse(x):
            return Gelu(x)
    """))
    patterns = pypm.compile_file(str(source))
    graph = saturate.model("transformer_decomposed", reduced=True)
    rewritten, report = saturate.apply_rules(graph, patterns)
    assert report["applications"] == {"fuse": 1}  # layer 0 writes 1 + erf, layer 1 erf + 1
    assert rewritten.op_histogram()["gelu"] == 1
    assert saturate.compare(graph, rewritten)["max_relative_error"] < 1e-9
    assert "ErfGelu" in saturate.explain(graph, patterns, "input")
    with pytest.raises(ValueError, match="invalid .pmb file"):
        saturate.apply_rules(graph, patterns[:-3])


def test_nodes_describe_the_graph_for_exporters():
    graph = saturate.model("transformer_decomposed", reduced=True)
    nodes = graph.nodes()
    assert len(nodes) == graph.num_nodes
    names = {name for node in nodes for name in node["outputs"]}
    for node in nodes:  # topological: every input was produced earlier
        assert set(node["inputs"]) <= names
    softmax = next(node for node in nodes if node["op"] == "softmax")
    assert softmax["attrs"] == {"axis": -1} and softmax["shapes"] == [[4, 8, 8]]
    assert graph.outputs() == [("output", nodes[-1]["outputs"][0])]
