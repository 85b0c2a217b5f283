# Sourced by the build scripts: compile through ccache when it is installed (scripts/setup.sh
# installs it). Paths under the checkout are hashed relative to it, so a fresh clone in another
# folder (CI's) reuses what an earlier build of the same sources compiled.
compiler_cache=()
if command -v ccache >/dev/null; then
  compiler_cache=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
  CCACHE_BASEDIR=$(pwd -P)
  export CCACHE_BASEDIR
  # Debug information then names the folder that first compiled an object; nothing reads it.
  export CCACHE_NOHASHDIR=1
fi
