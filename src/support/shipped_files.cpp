#include "support/shipped_files.h"

#include <cstdlib>
#include <filesystem>
#include <system_error>

namespace saturate {
namespace {

// <prefix>/share/saturate/<name> when the running program is <prefix>/bin/<program> and that
// folder exists; empty otherwise (also inside a Python interpreter, whose prefix has none).
std::string installed_dir(const char* name) {
  std::error_code error;
  std::filesystem::path program = std::filesystem::read_symlink("/proc/self/exe", error);
  if (error) return {};
  std::filesystem::path dir = program.parent_path().parent_path() / "share" / "saturate" / name;
  return std::filesystem::is_directory(dir, error) ? dir.string() : std::string();
}

std::string lookup(const char* variable, const char* installed_name, const char* build_tree) {
  if (const char* dir = std::getenv(variable); dir != nullptr && *dir != '\0') return dir;
  if (std::string dir = installed_dir(installed_name); !dir.empty()) return dir;
  return build_tree;
}

}  // namespace

std::string shipped_rules_dir() {
  return lookup("SATURATE_RULES_DIR", "rules", SATURATE_BUILD_TREE_RULES_DIR);
}

std::string shipped_pypm_dir() {
  return lookup("SATURATE_PYPM_DIR", "pypm", SATURATE_BUILD_TREE_PYPM_DIR);
}

std::string shipped_python_dir() {
  return lookup("SATURATE_PYTHON_DIR", "python", SATURATE_BUILD_TREE_PYTHON_DIR);
}

}  // namespace saturate
