#pragma once

// Where Saturate's Python helpers run (the PyPM front end, the ONNX Runtime check and timer,
// the HiGHS MILP solver): the interpreter `$SATURATE_PYTHON` or
// `$PYTHON` names (python3 otherwise), with the folder
// of the `saturate` package on PYTHONPATH so that `python -m saturate.<helper>` finds it.
#include <string>

namespace saturate {

// $SATURATE_PYTHON, else $PYTHON, else "python3" (the installed package sets the first to the
// interpreter it is installed in).
std::string python_executable();

// The folder holding the `saturate` package (support/shipped_files.h).
std::string python_package_dir();

// "PYTHONPATH=<dir>[:$PYTHONPATH]": the environment entry a helper process needs, for the
// package folder `dir` (by default python_package_dir()).
std::string python_path_environment_entry(const std::string& dir);
std::string python_path_environment_entry();

}  // namespace saturate
