"""bench/peers_summary.py: paired verdicts, the best verified peer, later runs win."""
import importlib.util
import json
import pathlib
import subprocess
import sys

REPO = pathlib.Path(__file__).resolve().parents[2]
spec = importlib.util.spec_from_file_location("peers_summary", REPO / "bench" / "peers_summary.py")
peers_summary = importlib.util.module_from_spec(spec)
spec.loader.exec_module(peers_summary)


def timing(samples):
    return {"median_ms": sorted(samples)[len(samples) // 2], "samples_ms": samples}


def run(commit, original, onnxsim, onnxslim, saturate, slim_verified=True, kept=False,
        guards=None):
    outputs = [
        {"tool": "onnxsim", "threads": None, "key": "onnxsim", "verify": {"ok": True},
         "counts": {"fusions": {}}},
        {"tool": "onnxslim", "threads": None, "key": "onnxslim", "verify": {"ok": slim_verified},
         "counts": {"fusions": {}}},
        {"tool": "saturate", "threads": 1, "key": "saturate@1", "verify": {"ok": True},
         "counts": {"fusions": {"MultiHeadAttention": 4}}, "optimize_seconds": 3.0,
         "report_fields": {"kept_original": kept, "session_fusion_guards": guards}},
    ]
    latency = {"1": {"original": timing(original), "onnxsim": timing(onnxsim),
                     "onnxslim": timing(onnxslim), "saturate@1": timing(saturate)}}
    return {"date": "d", "rounds": len(original), "machine": {"commit": commit, "cpus": 2},
            "models": [{"file": "m.torchscript.onnx", "model": "m", "exporter": "torchscript",
                        "outputs": outputs, "latency": latency}]}


def test_paired_ratios_and_verdicts():
    assert peers_summary.paired([2, 2, 2], [1, 1, 1]) == (2.0, 2.0, 2.0)
    assert peers_summary.verdict((1.1, 1.05, 1.2)) == "faster"
    assert peers_summary.verdict((0.9, 0.8, 0.95)) == "slower"
    assert peers_summary.verdict((1.0, 0.9, 1.1)) == "within noise"
    assert peers_summary.paired([], [1]) is None and peers_summary.verdict(None) == "-"


def test_an_unverified_peer_is_never_the_best_and_a_later_run_wins(tmp_path):
    # onnxslim is fastest but did not verify: the best peer is onnxsim.
    first = run("aaa", [10, 10, 10], [9, 9, 9], [5, 5, 5], [8, 8, 8], slim_verified=False)
    (rows,) = peers_summary.rows_of_run(first, "run 1").values()
    assert rows["best_peer"] == "onnxsim"
    assert rows["saturate_vs_best_peer"] == (9 / 8, 9 / 8, 9 / 8)
    assert peers_summary.verdict(rows["saturate_vs_original"]) == "faster"
    assert rows["saturate_wrote"] == "MHA 4"

    second = run("bbb", [10, 10, 10], [9, 9, 9], [9, 9, 9], [10, 11, 12], kept=True)
    paths = []
    for name, data in (("first.json", first), ("second.json", second)):
        paths.append(tmp_path / name)
        paths[-1].write_text(json.dumps(data))
    result = subprocess.run([sys.executable, REPO / "bench" / "peers_summary.py", *paths,
                             "--out-dir", tmp_path], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    table = (tmp_path / "peers_summary.md").read_text()
    row = next(line for line in table.splitlines() if line.startswith("| m |"))
    assert "the original" in row and "run 2" in row and "slower" in row


def test_guarded_norms_are_named_only_when_written():
    guards = {"candidates": 25, "guarded": 25, "written": True}
    data = run("aaa", [10, 10, 10], [9, 9, 9], [9, 9, 9], [8, 8, 8], guards=guards)
    (row,) = peers_summary.rows_of_run(data, "run 1").values()
    assert row["saturate_wrote"] == "MHA 4, 25 norms guarded"
    data = run("aaa", [10, 10, 10], [9, 9, 9], [9, 9, 9], [8, 8, 8],
               guards=dict(guards, written=False))
    (row,) = peers_summary.rows_of_run(data, "run 1").values()
    assert row["saturate_wrote"] == "MHA 4"
