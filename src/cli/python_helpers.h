#pragma once

// How commands run Saturate's Python helpers to completion (the PyPM front end, the ONNX Runtime
// check and latency check): support/python_helper.h says which interpreter and package folder,
// support/child_process.h how they are started.
#include <string>
#include <vector>

#include "support/child_process.h"
#include "support/python_helper.h"

namespace saturate::cli {

// Runs `python -m MODULE ARGS...` with the package folder first on PYTHONPATH and `environment`
// entries added; returns its standard output and exit code (its standard error goes to ours).
CompletedProcess run_python_module(const std::string& module, const std::vector<std::string>& args,
                                   const std::vector<std::string>& environment = {});

}  // namespace saturate::cli
