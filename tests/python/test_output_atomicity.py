"""Outputs are all or nothing and never damage what is there (support/atomic_file.h,
onnx/model_with_data_output.h): a model and its external data become visible together, two runs
writing one output leave one whole pair, the input's data files are never replaced, special
files are written through, a symbolic link's target is replaced and the link kept, permissions
of a replaced file are kept, and temporaries of killed runs do not pile up."""
import os
import pathlib
import stat
import subprocess
import threading

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
pytest.importorskip("onnxruntime")
from onnx import numpy_helper  # noqa: E402

from saturate import onnx_check  # noqa: E402

REPO = pathlib.Path(__file__).resolve().parents[2]
BERT = REPO / "tests" / "fixtures" / "exporters" / "bert_eager.torchscript.onnx"


def bert_variant(folder: pathlib.Path, scale: float, name="model.onnx", data=None):
    """The BERT fixture with its weights times `scale`, its weights in an external file."""
    model = onnx.load(str(BERT))
    for tensor in model.graph.initializer:
        array = numpy_helper.to_array(tensor)
        if array.dtype == np.float32 and array.size > 256:
            tensor.CopyFrom(numpy_helper.from_array(array * np.float32(scale), tensor.name))
    folder.mkdir(parents=True, exist_ok=True)
    onnx.save(model, str(folder / name), save_as_external_data=True,
              all_tensors_to_one_file=True, location=data or name + ".data", size_threshold=1024)
    return folder / name


def computes_like(written: pathlib.Path, source: pathlib.Path) -> bool:
    return onnx_check.compare_models(str(source), str(written), seed=1, trials=1).ok


def optimize_args(source, output, *extra):
    return ["optimize", source, "-o", output, "--cost", "analytic", "--latency-runs", "0",
            "--external-data", "on", *extra]


def litter(folder: pathlib.Path):
    return sorted(p.name for p in folder.iterdir() if "tmp-saturate" in p.name)


def test_replacing_a_model_with_external_data_replaces_the_pair(saturate, tmp_path):
    first, second = bert_variant(tmp_path / "a", 1.0), bert_variant(tmp_path / "b", 1.5)
    out = tmp_path / "out" / "model.onnx"
    out.parent.mkdir()
    for source in (first, second, first):
        result = saturate(*optimize_args(source, out))
        assert result.returncode == 0, result.stderr
        assert computes_like(out, source)
        # One data file: the replaced model's was removed once the new pair was visible.
        data = [p.name for p in out.parent.iterdir() if p.name != "model.onnx"]
        assert len(data) == 1 and data[0].startswith("model.onnx.") and data[0].endswith(".data")
    assert litter(out.parent) == []


def test_two_runs_writing_one_output_leave_one_whole_pair(saturate, saturate_program, tmp_path):
    """Both runs exit 0; what is visible computes exactly what one of the two inputs does (a
    model of one run with the data of the other computes neither)."""
    first, second = bert_variant(tmp_path / "a", 1.0), bert_variant(tmp_path / "b", 1.5)
    for trial in range(3):
        out = tmp_path / f"out{trial}" / "model.onnx"
        out.parent.mkdir()
        runs = [subprocess.Popen([str(saturate_program), *map(str, optimize_args(s, out))],
                                 stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
                for s in (first, second)]
        for run in runs:
            _, err = run.communicate(timeout=300)
            assert run.returncode == 0, err
        assert computes_like(out, first) != computes_like(out, second)
        assert litter(out.parent) == []


def test_the_inputs_data_file_is_never_replaced(saturate, tmp_path):
    """`-o X.onnx` where the input keeps its weights in X.onnx.data: the input's weights stay."""
    source = bert_variant(tmp_path, 1.0, name="input.onnx", data="out.onnx.data")
    before = (tmp_path / "out.onnx.data").read_bytes()
    result = saturate(*optimize_args(source, tmp_path / "out.onnx"))
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "out.onnx.data").read_bytes() == before
    assert computes_like(tmp_path / "out.onnx", source)
    # Replaced again: the old output's data file is removed, the input's still is not.
    result = saturate(*optimize_args(source, tmp_path / "out.onnx"))
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "out.onnx.data").read_bytes() == before
    assert computes_like(tmp_path / "out.onnx", source)


def test_reports_through_links_fifos_and_devices(saturate, tmp_path):
    source = bert_variant(tmp_path, 1.0)
    # A symbolic link: its target is replaced, the link stays, the target's mode too.
    target = tmp_path / "report.json"
    target.write_text("{}")
    target.chmod(0o600)
    link = tmp_path / "link.json"
    link.symlink_to(target.name)
    result = saturate(*optimize_args(source, tmp_path / "out.onnx", "--json", link))
    assert result.returncode == 0, result.stderr
    assert link.is_symlink() and '"fused_operators"' in target.read_text()
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
    # A FIFO is written to, and stays a FIFO.
    fifo = tmp_path / "report.fifo"
    os.mkfifo(fifo)
    received = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_text()))
    reader.start()
    result = saturate(*optimize_args(source, tmp_path / "out2.onnx", "--json", fifo))
    reader.join(timeout=60)
    assert result.returncode == 0, result.stderr
    assert stat.S_ISFIFO(fifo.stat().st_mode) and '"fused_operators"' in received[0]
    # /dev/null stays a device.
    result = saturate(*optimize_args(source, tmp_path / "out3.onnx", "--json", "/dev/null"))
    assert result.returncode == 0, result.stderr
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)
    assert litter(tmp_path) == []


def test_temporaries_of_killed_runs_are_removed_by_the_next_run(saturate, tmp_path):
    source = bert_variant(tmp_path, 1.0)
    dead = 2 ** 22 + 7  # above Linux's largest pid: no process has it
    orphan = tmp_path / f".out.onnx.tmp-saturate-{dead}-abcdef"
    orphan.write_bytes(b"x" * 1000)
    live = tmp_path / f".out.onnx.tmp-saturate-{os.getpid()}-abcdef"  # a run still working
    live.write_bytes(b"x")
    # A killed run's claim on the data file name (it dies before writing the data).
    (tmp_path / "out.onnx.data").write_text(f"saturate claim {dead}\n")
    live_claim = tmp_path / "out.onnx.0123abcd.data"
    live_claim.write_text(f"saturate claim {os.getpid()}\n")
    result = saturate(*optimize_args(source, tmp_path / "out.onnx"))
    assert result.returncode == 0, result.stderr
    assert not orphan.exists() and live.exists() and live_claim.exists()
    # The dead claim was removed, so the new output took the conventional name.
    assert (tmp_path / "out.onnx.data").stat().st_size > 100_000
    assert computes_like(tmp_path / "out.onnx", source)
