"""The ``saturate`` command that ``pip install`` puts on PATH: runs the installed C++ program.

The process is replaced (exec), not wrapped: signals, exit status and the terminal go to the
program directly, and no Python process stays behind it.
"""
from __future__ import annotations

import os
import sys

from . import _installed


def main() -> None:
    layout = _installed.layout()
    if layout is None or not layout.program.is_file():
        sys.exit(f"saturate: the program is not installed beside the package {_installed.PACKAGE_DIR}"
                 "; in a source checkout run build/bin/saturate, or install with `pip install .`")
    program = layout.program
    environment = {**os.environ, **_installed.environment()}
    # argv[0] as the user typed it, for the usage lines; the program finds its own files through
    # /proc/self/exe and the environment, not argv[0].
    os.execve(program, ["saturate", *sys.argv[1:]], environment)


if __name__ == "__main__":
    main()
