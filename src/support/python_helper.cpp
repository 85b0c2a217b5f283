#include "support/python_helper.h"

#include <cstdlib>

#include "support/shipped_files.h"

namespace saturate {

std::string python_executable() {
  for (const char* variable : {"SATURATE_PYTHON", "PYTHON"}) {
    const char* python = std::getenv(variable);
    if (python != nullptr && *python != '\0') return python;
  }
  return "python3";
}

std::string python_package_dir() {
  return shipped_python_dir();
}

std::string python_path_environment_entry(const std::string& dir) {
  const char* current = std::getenv("PYTHONPATH");
  return "PYTHONPATH=" + dir +
         (current != nullptr && *current != '\0' ? ":" + std::string(current) : std::string());
}

std::string python_path_environment_entry() {
  return python_path_environment_entry(python_package_dir());
}

}  // namespace saturate
