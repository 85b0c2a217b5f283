"""`cmake --install` into a prefix: the installed program and package find the installed rule
library, fusions and Python helpers (support/shipped_files.h, python/saturate/_installed.py),
not the source tree they were built from. (`pip install .` builds the same install rules into a
wheel; it compiles everything again, too slow for the suite: scripts/check_pip_install.sh.)"""
import json
import os
import pathlib
import shutil
import subprocess
import sys

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
FIXTURE = REPO / "tests" / "fixtures" / "exporters" / "distilbert.torchscript.onnx"
# Variables that would point the installed program back at the source tree.
SHIPPED_VARIABLES = ("SATURATE_RULES_DIR", "SATURATE_PYPM_DIR", "SATURATE_PYTHON_DIR",
                     "SATURATE_PYTHON", "PYTHONPATH", "SATURATE_BUILD_DIR")


@pytest.fixture(scope="module")
def prefix(tmp_path_factory, saturate_build_dir):
    build_dir = saturate_build_dir
    if not (build_dir / "CMakeCache.txt").exists():
        pytest.fail(f"{build_dir} is not a CMake build folder (set SATURATE_BIN)")
    root = tmp_path_factory.mktemp("prefix")
    result = subprocess.run(["cmake", "--install", str(build_dir), "--prefix", str(root)],
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    return root


def clean_environment(**extra):
    environment = {k: v for k, v in os.environ.items() if k not in SHIPPED_VARIABLES}
    return {**environment, **extra}


def run(command, cwd, **extra):
    return subprocess.run(list(map(str, command)), capture_output=True, text=True, timeout=600,
                          cwd=cwd, env=clean_environment(**extra))


def test_the_prefix_holds_program_rules_fusions_package_libraries_and_headers(prefix):
    assert (prefix / "bin" / "saturate").is_file()
    share = prefix / "share" / "saturate"
    assert sorted(p.name for p in (share / "rules").glob("*.rules")) == sorted(
        p.name for p in (REPO / "rules").glob("*.rules"))
    assert (share / "pypm" / "onnxruntime.pmb").is_file()
    assert (share / "pypm" / "onnxruntime_matmul.pmb").is_file()
    assert (share / "python" / "saturate" / "ort_helper.py").is_file()
    assert (prefix / "include" / "saturate" / "ir" / "graph.h").is_file()
    assert list((prefix / "lib").glob("libsaturate_ir.a"))


def test_the_installed_program_optimizes_and_verifies_an_onnx_export_from_elsewhere(
        prefix, tmp_path):
    output = tmp_path / "out.onnx"
    report = tmp_path / "report.json"
    result = run([prefix / "bin" / "saturate", "optimize", FIXTURE, "-o", output, "--verify",
                  "--cost", "analytic", "--json", report], cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    data = json.loads(report.read_text())
    assert data["target"] == "onnxruntime"
    assert output.is_file()


def test_the_installed_program_reads_the_installed_rules_and_fusions(prefix, tmp_path):
    # A copy of the prefix whose fusion library and rules are removed: the program must say it is
    # missing there, which shows that it does not read the source tree's copies.
    copy = tmp_path / "copy"
    shutil.copytree(prefix, copy, symlinks=True)
    (copy / "share" / "saturate" / "pypm" / "onnxruntime.pmb").unlink()
    result = run([copy / "bin" / "saturate", "optimize", FIXTURE, "-o", tmp_path / "x.onnx"],
                 cwd=tmp_path)
    assert result.returncode != 0
    assert str(copy / "share" / "saturate" / "pypm" / "onnxruntime.pmb") in result.stderr
    assert not (tmp_path / "x.onnx").exists()
    for rules in (copy / "share" / "saturate" / "rules").glob("*.rules"):
        rules.unlink()
    result = run([copy / "bin" / "saturate", "optimize", "squeezenet"], cwd=tmp_path)
    assert result.returncode != 0
    assert str(copy / "share" / "saturate" / "rules") in result.stderr


def test_the_installed_package_imports_and_points_the_extension_at_the_prefix(
        prefix, tmp_path, saturate_build_dir):
    package_dir = prefix / "share" / "saturate" / "python"
    probe = ("import json, os, saturate; print(json.dumps({'file': saturate.__file__, "
             "'extension': saturate.HAVE_EXTENSION, "
             "'rules': os.environ.get('SATURATE_RULES_DIR'), "
             "'python': os.environ.get('SATURATE_PYTHON')}))")
    result = run([sys.executable, "-c", probe], cwd=tmp_path, PYTHONPATH=package_dir)
    assert result.returncode == 0, result.stderr
    found = json.loads(result.stdout)
    assert pathlib.Path(found["file"]).is_relative_to(package_dir)
    assert found["rules"] == str(prefix / "share" / "saturate" / "rules")
    assert found["python"] == sys.executable
    build_has_extension = any((saturate_build_dir / "python" / "saturate").glob("_saturate*.so"))
    assert found["extension"] == build_has_extension


def test_the_package_command_runs_the_installed_program(prefix, tmp_path):
    package_dir = prefix / "share" / "saturate" / "python"
    result = run([sys.executable, "-m", "saturate._command", "--help"], cwd=tmp_path,
                 PYTHONPATH=package_dir)
    assert result.returncode == 0, result.stderr
    assert "optimize" in result.stdout


def test_the_package_command_explains_a_source_checkout(tmp_path):
    result = run([sys.executable, "-m", "saturate._command", "--help"], cwd=tmp_path,
                 PYTHONPATH=REPO / "python")
    assert result.returncode != 0
    assert "pip install ." in result.stderr
