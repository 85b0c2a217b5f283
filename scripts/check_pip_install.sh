#!/usr/bin/env bash
# Checks `pip install .` the way a user meets it: a fresh virtual environment, the package built
# from a clean clone of this checkout's HEAD, then from another folder the command, a bundled-model
# optimize with --verify, and `import saturate`. It compiles everything (the wheel's own build
# folder), so it is not part of scripts/test.sh; extra arguments go to pip (e.g.
# -C cmake.define.CMAKE_CXX_COMPILER_LAUNCHER=ccache).
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
bash "$repo/scripts/setup.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
git clone -q "$repo" "$work/clone"
python3 -m venv "$work/venv"
"$work/venv/bin/pip" install -q --upgrade pip
echo "check_pip_install: pip install . (builds the C++ program and extension)"
"$work/venv/bin/pip" install "$work/clone" "$@"
mkdir "$work/elsewhere"
cd "$work/elsewhere"
export PATH="$work/venv/bin:$PATH"
unset PYTHONPATH SATURATE_RULES_DIR SATURATE_PYPM_DIR SATURATE_PYTHON_DIR SATURATE_PYTHON
rm -rf "$work/clone"  # nothing may still come from the source tree
saturate --help >/dev/null
saturate optimize squeezenet --verify
python -c "import saturate, saturate.pypm; print(saturate.optimize); assert saturate.HAVE_EXTENSION"
echo "check_pip_install: passed"
