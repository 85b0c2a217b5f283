#!/usr/bin/env bash
# Installs everything Saturate needs to build and test: Debian packages and Python packages.
# Safe to re-run: it installs only what is missing.
set -euo pipefail

apt_packages=(
  build-essential cmake ninja-build pkg-config ccache
  libgtest-dev libgmock-dev libbenchmark-dev
  nlohmann-json3-dev libcli11-dev coinor-libcbc-dev
  graphviz python3-dev pybind11-dev
  libonnx-dev libprotobuf-dev protobuf-compiler libdnnl-dev libsqlite3-dev
)
# Callers that need more (scripts/fuzz.sh: clang and libFuzzer's runtime) name them here.
read -r -a extra_packages <<<"${SATURATE_EXTRA_APT_PACKAGES:-}"
apt_packages+=("${extra_packages[@]}")
missing=()
for package in "${apt_packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" ||
    missing+=("$package")
done
if ((${#missing[@]})); then
  echo "setup: installing Debian packages: ${missing[*]}"
  sudo_cmd=()
  [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends \
    "${missing[@]}" >/dev/null
fi

python=${PYTHON:-python3}
if ! "$python" -c "import pytest, xdist, onnx, onnxruntime, numpy, highspy" 2>/dev/null; then
  echo "setup: installing Python packages from requirements-dev.txt"
  "$python" -m pip install -q -r "$(dirname "$0")/../requirements-dev.txt"
fi
echo "setup: dependencies present"
