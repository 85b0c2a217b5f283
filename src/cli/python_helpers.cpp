#include "cli/python_helpers.h"

namespace saturate::cli {

CompletedProcess run_python_module(const std::string& module,
                                   const std::vector<std::string>& args) {
  std::vector<std::string> argv = {python_executable(), "-m", module};
  argv.insert(argv.end(), args.begin(), args.end());
  return run_to_completion(argv, {python_path_environment_entry()});
}

}  // namespace saturate::cli
