"""Where an installed Saturate keeps its program and shipped files.

Two install layouts (cmake/SaturateInstall.cmake):
  - the wheel (``pip install .``) puts everything inside this package: the program in
    ``_data/bin/saturate``, the rule library in ``_data/rules``, the compiled fusions in
    ``_data/pypm``;
  - a prefix (``cmake --install build --prefix P``) puts this package in
    ``P/share/saturate/python/saturate``, beside ``P/share/saturate/{rules,pypm}`` and
    ``P/bin/saturate``.
The C++ side finds them through the environment variables of ``environment()``
(support/shipped_files.h), which the ``saturate`` command and the extension both set from here.
In a source checkout neither layout is found and the build tree's paths apply.
"""
from __future__ import annotations

import dataclasses
import os
import pathlib
import sys
from typing import Optional

PACKAGE_DIR = pathlib.Path(__file__).resolve().parent


@dataclasses.dataclass(frozen=True)
class Layout:
    program: pathlib.Path
    rules_dir: pathlib.Path
    pypm_dir: pathlib.Path


def layout() -> Optional[Layout]:
    """The layout this package was installed in, or None in a source checkout."""
    data = PACKAGE_DIR / "_data"
    if (data / "bin" / "saturate").is_file():
        return Layout(data / "bin" / "saturate", data / "rules", data / "pypm")
    share = PACKAGE_DIR.parent.parent
    if PACKAGE_DIR.parent.name == "python" and (share / "pypm" / "onnxruntime.pmb").is_file():
        return Layout(share.parent.parent / "bin" / "saturate", share / "rules", share / "pypm")
    return None


def is_installed() -> bool:
    return layout() is not None


def environment() -> dict[str, str]:
    """The variables that point the C++ side at the installed files (none in a checkout).

    The Python helpers run in this interpreter, which has the package and its dependencies. A
    variable the user has set is left as it is."""
    found = layout()
    if found is None:
        return {}
    defaults = {
        "SATURATE_RULES_DIR": str(found.rules_dir),
        "SATURATE_PYPM_DIR": str(found.pypm_dir),
        "SATURATE_PYTHON_DIR": str(PACKAGE_DIR.parent),
        "SATURATE_PYTHON": sys.executable,
    }
    return {name: value for name, value in defaults.items() if not os.environ.get(name)}
