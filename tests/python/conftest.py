import os
import pathlib
import subprocess

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]

# Measured cost models cache to ~/.cache by default: tests keep their measurements to themselves
# (a test that needs its own cache file passes --cost-cache or sets this itself).
if "SATURATE_COST_CACHE" not in os.environ:
    import tempfile

    os.environ["SATURATE_COST_CACHE"] = str(
        pathlib.Path(tempfile.mkdtemp(prefix="saturate-test-cache-")) / "costs.sqlite")


def saturate_binary() -> pathlib.Path:
    return pathlib.Path(os.environ.get("SATURATE_BIN", REPO / "build" / "bin" / "saturate"))


@pytest.fixture(scope="session")
def saturate_build_dir() -> pathlib.Path:
    """The CMake build folder the tested program comes from (bin/saturate's grandparent)."""
    return saturate_binary().resolve().parent.parent


@pytest.fixture(scope="session")
def saturate():
    """Runs the saturate CLI and returns the CompletedProcess (text mode, never raises)."""
    binary = saturate_binary()
    if not binary.exists():
        pytest.fail(f"{binary} does not exist: build first (bash scripts/build.sh)")

    def run(*args, timeout=300, env=None):
        """`env` adds variables to the environment (None: unchanged)."""
        return subprocess.run(
            [str(binary), *map(str, args)], capture_output=True, text=True, timeout=timeout,
            env=None if env is None else {**os.environ, **env},
        )

    return run


@pytest.fixture(scope="session")
def saturate_program() -> pathlib.Path:
    """The saturate program under test, for tests that start it themselves (Popen)."""
    return saturate_binary()


@pytest.fixture(scope="session")
def saturate_api():
    """The saturate package with its C++ extension; skips where it is not built (a
    sanitizer-only build has none, see CMakeLists.txt)."""
    import saturate

    if not saturate.HAVE_EXTENSION:
        pytest.skip(f"the C++ extension is not built: {saturate.EXTENSION_ERROR}")
    return saturate


@pytest.fixture(scope="session")
def onnxruntime_library(saturate, tmp_path_factory):
    """rules/pypm/onnxruntime.py (the ONNX Runtime fusion library), compiled to a .pmb."""
    target = tmp_path_factory.mktemp("pmb") / "onnxruntime.pmb"
    result = saturate("pm", "compile", REPO / "rules" / "pypm" / "onnxruntime.py", "-o", target)
    assert result.returncode == 0, result.stderr
    return target


@pytest.fixture
def pm_apply_histogram(saturate, onnxruntime_library, tmp_path):
    """`saturate pm apply` of the ONNX Runtime fusion library to a graph in the text form,
    asserted to succeed and to verify in the reference interpreter (float64); returns the
    rewritten graph's operator histogram."""
    import json

    def run(graph_text):
        graph, out = tmp_path / "graph.sxp", tmp_path / "out.sxp"
        graph.write_text(graph_text)
        result = saturate("pm", "apply", onnxruntime_library, graph, "--verify", "-o", out)
        assert result.returncode == 0, result.stderr
        assert "verify: ok" in result.stdout
        return json.loads(saturate("show", out, "--json").stdout)["op_histogram"]

    return run


@pytest.fixture(scope="session")
def optimize_verified(saturate):
    """`saturate optimize MODEL -o OUT --verify --cost analytic` (plus `extra` options), asserted
    to succeed and to have verified in ONNX Runtime; returns (report, the written model)."""
    import json

    import onnx

    def run(model_path, out_dir, *extra):
        out, report_path = out_dir / "out.onnx", out_dir / "report.json"
        result = saturate("optimize", model_path, "-o", out, "--verify", "--cost", "analytic",
                          "--json", report_path, *extra, timeout=600)
        assert result.returncode == 0, result.stderr
        report = json.loads(report_path.read_text())
        assert report["verified"] is True and report["verify_runtime"] == "onnxruntime"
        return report, onnx.load(str(out))

    return run
