"""saturate bench and the measured cost model (--cost onednn, --cost-cache), as a user runs them.

Timings are machine-dependent: the tests check the report's shape and the cache's behaviour,
never a time or a speedup."""
import json

BENCH_KEYS = {
    "model", "executor", "threads", "runs", "warmup", "original", "optimized",
    "measured_speedup", "predicted_speedup", "cost_model",
}
LATENCY_KEYS = {
    "operators", "median_ms", "mean_ms", "min_ms", "max_ms", "p10_ms", "p90_ms", "predicted_ms",
    "primitives", "fallbacks", "folded", "samples_ms",
}


def test_bench_original_only(saturate, tmp_path):
    report_path = tmp_path / "bench.json"
    result = saturate("bench", "nasrnn", "--reduced", "--runs", "5", "--warmup", "1",
                      "--threads", "1", "--json", report_path)
    assert result.returncode == 0, result.stderr
    assert "median (ms)" in result.stdout
    report = json.loads(report_path.read_text())
    assert BENCH_KEYS <= set(report)
    assert LATENCY_KEYS <= set(report["original"])
    assert report["optimized"] is None and report["measured_speedup"] is None
    assert report["threads"] == 1 and report["runs"] == 5
    original = report["original"]
    assert len(original["samples_ms"]) == 5
    assert original["min_ms"] <= original["p10_ms"] <= original["median_ms"] <= original["p90_ms"]
    assert original["p90_ms"] <= original["max_ms"]
    assert original["fallbacks"] == 0 and original["primitives"] > 0
    assert report["cost_model"] == "analytic" and report["cost_measured"] is None


def test_bench_optimize_reports_both_graphs(saturate, tmp_path):
    report_path = tmp_path / "bench.json"
    result = saturate("bench", "squeezenet", "--reduced", "--runs", "3", "--warmup", "1",
                      "--optimize", "--extract", "greedy", "--json", report_path)
    assert result.returncode == 0, result.stderr
    assert "measured speedup" in result.stdout
    assert "benchmarking 2 graph(s)" in result.stderr  # progress, both graphs interleaved
    report = json.loads(report_path.read_text())
    assert LATENCY_KEYS <= set(report["optimized"])
    assert report["optimized"]["operators"] <= report["original"]["operators"]
    assert report["measured_speedup"] > 0 and report["predicted_speedup"] > 0
    # Both graphs compute the same outputs on the executor.
    assert report["max_relative_difference"] < 1e-3


def test_bench_rejects_unknown_model(saturate):
    result = saturate("bench", "no_such_model")
    assert result.returncode == 1
    assert "no_such_model" in result.stderr


def test_optimize_with_measured_costs_uses_the_cache_the_second_time(saturate, tmp_path):
    cache = tmp_path / "cache" / "costs.sqlite"
    reports = []
    for run in range(2):
        report_path = tmp_path / f"report{run}.json"
        # Cached even when the tests beside it keep the machine busy.
        result = saturate("optimize", "nasrnn", "--reduced", "--extract", "greedy",
                          "--cost", "onednn", "--cost-cache", cache, "--cache-busy-costs",
                          "--json", report_path)
        assert result.returncode == 0, result.stderr
        assert "cost (ms, onednn)" in result.stdout
        reports.append(json.loads(report_path.read_text()))
    first, second = reports
    assert first["cost_model"] == "onednn" and first["cost_cache"] == str(cache)
    assert first["cost_measured"] > 0 and first["cost_measure_seconds"] > 0
    assert second["cost_measured"] == 0
    assert second["cost_cache_hits"] > 0
    assert second["cost_cache_hits"] == first["cost_measured"] + first["cost_cache_hits"]
    assert second["original_cost"] == first["original_cost"]  # same prices, read back


def test_costs_timed_while_busy_are_not_cached(saturate, tmp_path):
    # Whatever the load while this runs, what the first run cached is exactly what the second
    # finds, and what it timed while busy is timed again.
    cache = tmp_path / "costs.sqlite"
    reports = []
    for run in range(2):
        report_path = tmp_path / f"report{run}.json"
        result = saturate("optimize", "nasrnn", "--reduced", "--extract", "greedy",
                          "--cost", "onednn", "--cost-cache", cache, "--json", report_path)
        assert result.returncode == 0, result.stderr
        reports.append(json.loads(report_path.read_text()))
        report = reports[-1]
        assert report["cost_load_ratio"] > 0  # the calibration kernel ran
        assert 0 <= report["cost_measured_busy"] <= report["cost_measured"]
        if report["cost_measured_busy"]:
            assert "measured while the machine was busy" in result.stdout
    first, second = reports
    cached = first["cost_measured"] - first["cost_measured_busy"]
    assert second["cost_cache_hits"] == cached
    assert second["cost_measured"] == first["cost_measured"] - cached


def test_taso_search_with_measured_costs(saturate, tmp_path):
    report_path = tmp_path / "report.json"
    result = saturate("optimize", "nasrnn", "--reduced", "--search", "taso", "--budget", "3",
                      "--cost", "onednn", "--cost-cache", tmp_path / "costs.sqlite",
                      "--json", report_path)
    assert result.returncode == 0, result.stderr
    report = json.loads(report_path.read_text())
    assert report["cost_model"] == "onednn" and report["cost_measured"] > 0


def test_cost_cache_defaults_to_environment(saturate, tmp_path, monkeypatch):
    cache = tmp_path / "env" / "costs.sqlite"
    monkeypatch.setenv("SATURATE_COST_CACHE", str(cache))
    report_path = tmp_path / "report.json"
    result = saturate("optimize", "nasrnn", "--reduced", "--extract", "greedy", "--iter-limit",
                      "1", "--cost", "onednn", "--json", report_path)
    assert result.returncode == 0, result.stderr
    assert cache.exists()
    assert json.loads(report_path.read_text())["cost_cache"] == str(cache)


def test_corrupt_cost_cache_is_one_clear_error(saturate, tmp_path):
    cache = tmp_path / "costs.sqlite"
    cache.write_text("not a database " * 100)
    result = saturate("optimize", "nasrnn", "--reduced", "--extract", "greedy",
                      "--cost", "onednn", "--cost-cache", cache)
    assert result.returncode == 1
    lines = [line for line in result.stderr.splitlines() if line.startswith("saturate:")]
    assert len(lines) == 1, result.stderr
    assert str(cache) in lines[0] and "not a Saturate cost cache" in lines[0]
