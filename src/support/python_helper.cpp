#include "support/python_helper.h"

#include <cstdlib>

namespace saturate {

std::string python_executable() {
  const char* python = std::getenv("PYTHON");
  return python != nullptr && *python != '\0' ? python : "python3";
}

std::string python_package_dir() {
  return SATURATE_PYTHON_DIR;
}

std::string python_path_environment_entry() {
  const char* current = std::getenv("PYTHONPATH");
  return "PYTHONPATH=" + python_package_dir() +
         (current != nullptr && *current != '\0' ? ":" + std::string(current) : std::string());
}

}  // namespace saturate
