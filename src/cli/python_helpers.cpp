#include "cli/python_helpers.h"

namespace saturate::cli {

std::string shell_quote(const std::string& text) {
  std::string quoted = "'";
  for (char c : text) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

std::string python_module_command(const std::string& module, const std::vector<std::string>& args) {
  std::string command = "PYTHONPATH=" + shell_quote(python_package_dir()) +
                        "${PYTHONPATH:+:$PYTHONPATH} " + python_executable() + " -m " + module;
  for (const std::string& arg : args) command += " " + shell_quote(arg);
  return command;
}

}  // namespace saturate::cli
