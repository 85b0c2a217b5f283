#include "cli/python_helpers.h"

namespace saturate::cli {

CompletedProcess run_python_module(const std::string& module, const std::vector<std::string>& args,
                                   const std::vector<std::string>& environment) {
  std::vector<std::string> argv = {python_executable(), "-m", module};
  argv.insert(argv.end(), args.begin(), args.end());
  std::vector<std::string> entries = environment;
  entries.push_back(python_path_environment_entry());
  return run_to_completion(argv, entries);
}

}  // namespace saturate::cli
