#pragma once

// Where Saturate's Python helpers run (the PyPM front end, the ONNX Runtime check and timer,
// the HiGHS MILP solver): the interpreter `$PYTHON` names (python3 otherwise), with the
// repository's python/ folder on PYTHONPATH so that `python -m saturate.<helper>` finds it.
#include <string>

namespace saturate {

// $PYTHON, else "python3".
std::string python_executable();

// The folder holding the `saturate` package (the source tree's python/).
std::string python_package_dir();

// "PYTHONPATH=<package dir>[:$PYTHONPATH]": the environment entry a helper process needs.
std::string python_path_environment_entry();

}  // namespace saturate
