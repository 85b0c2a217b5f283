"""saturate optimize and saturate extract, as a user runs them."""
import json
import pathlib
import shutil
import subprocess

import pytest

SHARED = pathlib.Path(__file__).resolve().parents[3] / "shared"
REPORT_KEYS = {
    "model", "original_cost", "optimized_cost", "speedup_percent", "egraph_nodes",
    "egraph_classes", "iterations", "stop_reason", "explore_seconds", "extract_seconds",
    "ilp_optimal", "verified", "max_abs_error",
}


def test_optimize_writes_report_graph_and_verifies(saturate, tmp_path):
    report_path = tmp_path / "report.json"
    graph_path = tmp_path / "optimized.sxp"
    result = saturate("optimize", "nasrnn", "--reduced", "--verify", "--json", report_path,
                      "-o", graph_path, "--extract", "greedy")
    assert result.returncode == 0, result.stderr
    assert "speedup (cost model)" in result.stdout
    report = json.loads(report_path.read_text())
    assert REPORT_KEYS <= set(report)
    assert report["verified"] is True
    assert report["max_abs_error"] < 1e-9
    assert report["optimized_cost"] < report["original_cost"]
    shown = json.loads(saturate("show", graph_path, "--json").stdout)
    assert shown["ops"] == report["optimized_ops"]
    # What the extractor counted: greedy DAG's evaluations and its reuse switches.
    statistics = report["extraction_statistics"]
    assert statistics["node evaluations"] > 0 and statistics["reuse switches"] >= 0


def test_optimize_with_ilp_reports_optimality(saturate, tmp_path):
    report_path = tmp_path / "report.json"
    result = saturate("optimize", "squeezenet", "--reduced", "--extract", "ilp",
                      "--ilp-time-limit", "30", "--json", report_path)
    assert result.returncode == 0, result.stderr
    report = json.loads(report_path.read_text())
    assert report["ilp_optimal"] is True
    assert report["optimized_cost"] <= report["original_cost"]
    statistics = report["extraction_statistics"]
    assert statistics["ilp columns"] > 0 and statistics["warm start given"] == 1


def test_optimize_reads_tensat_rule_files(saturate, tmp_path):
    rules = SHARED / "data" / "tensat-rules"
    if not rules.exists():
        pytest.skip(f"TENSAT's rule files are not at {rules} (../shared absent)")
    report_path = tmp_path / "report.json"
    result = saturate("optimize", "nasrnn", "--reduced", "--extract", "greedy", "--verify",
                      "--rules", rules / "converted.txt",
                      "--tensat-multi", rules / "converted_multi.txt", "--json", report_path)
    assert result.returncode == 0, result.stderr
    assert json.loads(report_path.read_text())["verified"] is True


def one_error_line(result):
    assert result.returncode != 0
    lines = [line for line in result.stderr.splitlines() if line.startswith("saturate:")]
    assert len(lines) == 1, result.stderr
    return lines[0]


def test_bad_rule_file_is_one_error_with_location(saturate, tmp_path):
    rules = tmp_path / "bad.rules"
    rules.write_text("ok: (relu ?x) => (relu ?x)\nbad: (relu ?x) => (frobnicate ?x)\n")
    output = tmp_path / "never.sxp"
    line = one_error_line(saturate("optimize", "nasrnn", "--rules", rules, "-o", output))
    assert "bad.rules:2:" in line and "frobnicate" in line
    assert not output.exists()


def test_bad_limits_are_rejected(saturate):
    assert saturate("optimize", "nasrnn", "--cycle-filter", "sometimes").returncode != 0
    assert saturate("optimize", "nasrnn", "--extract", "magic").returncode != 0
    assert saturate("optimize", "nasrnn", "--node-limit", "many").returncode != 0
    for command in (("optimize", "nasrnn"), ("extract", "any.json")):
        unknown = saturate(*command, "--ilp-solver", "gurobi")
        assert unknown.returncode != 0 and "--ilp-solver" in unknown.stderr
        assert "highs" in unknown.stderr  # the names it takes
    assert saturate("optimize", "nasrnn", "--latency-runs", "-1").returncode != 0


def test_extract_reads_egraph_serialize_files(saturate, tmp_path):
    data = SHARED / "data" / "egraphs"
    if not data.exists():
        pytest.skip(f"the e-graph data is not at {data} (../shared absent)")
    report_path = tmp_path / "r.json"
    result = saturate("extract", data / "vgg_acyclic.json", "--method", "ilp", "--json",
                      report_path)
    assert result.returncode == 0, result.stderr
    report = json.loads(report_path.read_text())
    assert report["dag_cost"] == pytest.approx(4.866775, abs=1e-5)
    assert report["proven_optimal"] is True


def test_extract_round_trips_an_optimized_egraph(saturate, tmp_path):
    egraph = tmp_path / "egraph.json"
    report = tmp_path / "report.json"
    assert saturate("optimize", "squeezenet", "--reduced", "--extract", "greedy",
                    "--egraph-json", egraph, "--json", report).returncode == 0
    for method in ("bottom-up", "greedy-dag", "ilp"):
        result = saturate("extract", egraph, "--method", method, "--json", tmp_path / "x.json")
        assert result.returncode == 0, result.stderr
        extracted = json.loads((tmp_path / "x.json").read_text())
        assert extracted["acyclic"] is True


def test_egraph_json_keeps_classes_the_cycle_filter_emptied(saturate, tmp_path):
    # At k_multi 2 the cycle filter hides every node of some Inception-v3 classes; they are
    # written with their nodes marked filtered (egraph-serialize names a class by its nodes).
    egraph = tmp_path / "egraph.json"
    # The paper's setting (no growth budget): the filter hides classes only past a few thousand
    # nodes, which the budget for this small model would not reach.
    result = saturate("optimize", "inception_v3", "--reduced", "--k-multi", "2", "--no-budget",
                      "--extract", "greedy", "--egraph-json", egraph)
    assert result.returncode == 0, result.stderr
    nodes = json.loads(egraph.read_text())["nodes"]
    assert any(node.get("filtered") for node in nodes.values())
    result = saturate("extract", egraph, "--method", "greedy-dag", "--json", tmp_path / "x.json")
    assert result.returncode == 0, result.stderr
    assert json.loads((tmp_path / "x.json").read_text())["acyclic"] is True


def test_extract_rejects_malformed_json(saturate, tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"nodes": {"a": {"op": "x", "children": ["missing"], "eclass": "1", "cost": 1}},'
                   ' "root_eclasses": ["1"]}')
    line = one_error_line(saturate("extract", bad))
    assert "bad.json" in line
    truncated = tmp_path / "truncated.json"
    truncated.write_text('{"nodes": {')
    assert "truncated.json" in one_error_line(saturate("extract", truncated))


def test_extract_refuses_a_root_that_only_cycles(saturate, tmp_path):
    cyclic = tmp_path / "cycle.json"
    cyclic.write_text(
        '{"nodes": {"a": {"op": "f", "children": ["b"], "eclass": "A", "cost": 1},'
        ' "b": {"op": "g", "children": ["a"], "eclass": "B", "cost": 1}},'
        ' "root_eclasses": ["A"]}')
    report = tmp_path / "report.json"
    for method in ("bottom-up", "greedy-dag", "ilp"):
        line = one_error_line(saturate("extract", cyclic, "--method", method, "--json", report))
        assert "cycle.json" in line and "acyclic" in line
        assert not report.exists()


def test_optimize_draws_the_egraph(saturate, tmp_path):
    dot_path = tmp_path / "egraph.dot"
    result = saturate("optimize", "vgg19", "--reduced", "--extract", "greedy",
                      "--egraph-dot", dot_path)
    assert result.returncode == 0, result.stderr
    text = dot_path.read_text()
    assert text.startswith("digraph egraph")
    assert "subgraph cluster_" in text and "conv2d" in text
    if shutil.which("dot") is None:
        pytest.skip("graphviz 'dot' is not installed (scripts/setup.sh installs it)")
    rendered = subprocess.run(["dot", "-Tsvg", str(dot_path)], capture_output=True, text=True)
    assert rendered.returncode == 0, rendered.stderr


def test_taso_baseline_search_reports_time_to_best_and_verifies(saturate, tmp_path):
    report_path, graph_path = tmp_path / "taso.json", tmp_path / "taso.sxp"
    result = saturate("optimize", "squeezenet", "--reduced", "--search", "taso", "--alpha", "1.05",
                      "--budget", "10", "--verify", "--json", report_path, "-o", graph_path)
    assert result.returncode == 0, result.stderr
    report = json.loads(report_path.read_text())
    assert report["search"] == "taso" and report["verified"] is True
    assert report["expansions"] <= 10 and report["stop_reason"] in ("budget", "exhausted")
    assert report["optimized_cost"] < report["original_cost"]
    assert 0 < report["seconds_to_best"] <= report["total_seconds"]
    assert report["best_path"]  # the rules that led to the best graph
    assert report["candidates"]["kept"] <= report["candidates"]["matches"]
    shown = json.loads(saturate("show", graph_path, "--json").stdout)
    assert shown["ops"] == report["optimized_ops"]


def test_taso_rejects_pypm_and_bad_alpha(saturate, tmp_path):
    result = saturate("optimize", "squeezenet", "--search", "taso", "--alpha", "0.5")
    assert result.returncode != 0 and "alpha" in result.stderr
    result = saturate("optimize", "squeezenet", "--search", "bogus")
    assert result.returncode != 0


def test_an_ilp_time_limit_too_short_to_solve_keeps_the_warm_start_and_says_so(saturate, tmp_path):
    report = tmp_path / "r.json"
    out = tmp_path / "out.sxp"
    result = saturate("optimize", "nasrnn", "--reduced", "--ilp-time-limit", "0.001", "-o", out,
                      "--json", report)
    assert result.returncode == 0, result.stderr
    data = json.loads(report.read_text())
    assert not data["ilp_optimal"]
    assert "time limit" in data["extraction_status"], data["extraction_status"]
    assert "kept" in data["extraction_status"], data["extraction_status"]
    assert out.exists()


def test_onnxruntime_threads_default_to_its_own_default(saturate, tmp_path):
    """An ONNX model is timed and checked at ONNX Runtime's default thread count (one per
    physical core, the number --help shows) unless --threads says otherwise."""
    import re

    fixtures = pathlib.Path(__file__).resolve().parents[1] / "fixtures" / "exporters"
    helped = saturate("optimize", "--help").stdout
    shown = re.search(r"one per physical core: (\d+) here", " ".join(helped.split()))
    assert shown, helped
    for extra, expected in (((), int(shown.group(1))), (("--threads", "1"), 1)):
        report_path = tmp_path / "report.json"
        result = saturate("optimize", fixtures / "resnet.dynamo.onnx", "--cost", "analytic",
                          "--verify", "--json", report_path, *extra)
        assert result.returncode == 0, result.stderr
        report = json.loads(report_path.read_text())
        assert report["cost_threads"] == expected >= 1
