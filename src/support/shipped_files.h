#pragma once

// Where the files Saturate ships are found at run time: the rule library (rules/*.rules), the
// compiled PyPM fusions (onnxruntime.pmb) and the `saturate` Python package its helpers run
// from. Each is looked up in the same order, so that the build tree, a `cmake --install` prefix
// and a `pip install` all work without paths compiled in from elsewhere:
//   1. its environment variable (the `saturate` command that pip installs sets all three);
//   2. the install layout beside the running program: <prefix>/bin/saturate finds
//      <prefix>/share/saturate/{rules,pypm,python};
//   3. the build tree the program was compiled in.
#include <string>

namespace saturate {

// $SATURATE_RULES_DIR, <prefix>/share/saturate/rules, else the source tree's rules/.
std::string shipped_rules_dir();

// $SATURATE_PYPM_DIR, <prefix>/share/saturate/pypm, else the build's rules/ (compiled .pmb).
std::string shipped_pypm_dir();

// $SATURATE_PYTHON_DIR, <prefix>/share/saturate/python, else the source tree's python/.
std::string shipped_python_dir();

}  // namespace saturate
