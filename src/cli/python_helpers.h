#pragma once

// How commands run Saturate's Python helpers through the shell (the PyPM front end, the ONNX
// Runtime check): support/python_helper.h says which interpreter and package folder.
#include <string>
#include <vector>

#include "support/python_helper.h"

namespace saturate::cli {

// Quotes a word for /bin/sh.
std::string shell_quote(const std::string& text);

// The shell command that runs `python -m MODULE ARGS...` (each argument quoted; $PYTHON as
// written, so it may carry interpreter flags) with the package directory first on PYTHONPATH.
std::string python_module_command(const std::string& module, const std::vector<std::string>& args);

}  // namespace saturate::cli
