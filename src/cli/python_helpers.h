#pragma once

// How commands run Saturate's Python helpers (the PyPM front end, the ONNX Runtime check and
// timer): the interpreter `$PYTHON` names (python3 otherwise), with the repository's python/
// folder on PYTHONPATH.
#include <string>
#include <vector>

namespace saturate::cli {

// Quotes a word for /bin/sh.
std::string shell_quote(const std::string& text);

// $PYTHON, else "python3".
std::string python_executable();

// The shell command that runs `python -m MODULE ARGS...` (each argument quoted; $PYTHON as
// written, so it may carry interpreter flags) with the package directory first on PYTHONPATH.
std::string python_module_command(const std::string& module, const std::vector<std::string>& args);

}  // namespace saturate::cli
