#include "driver/file_checks.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <system_error>

#include "onnx/external_data_files.h"
#include "support/error.h"
#include "support/strings.h"

namespace saturate::driver {
namespace {

namespace fs = std::filesystem;

// Whether two paths name one file: the same inode when both exist (hard links, symlinks),
// otherwise the same path once `.`, `..` and symlinks in existing folders are resolved.
bool same_file(const std::string& a, const std::string& b) {
  std::error_code error;
  if (fs::exists(a, error) && fs::exists(b, error)) {
    const bool equivalent = fs::equivalent(a, b, error);
    if (!error) return equivalent;
  }
  const fs::path first = fs::weakly_canonical(fs::absolute(a, error), error);
  if (error) return a == b;
  const fs::path second = fs::weakly_canonical(fs::absolute(b, error), error);
  if (error) return a == b;
  return first == second;
}

// The files an input consists of: an ONNX model's external data files, the ones it names and
// the conventional INPUT.onnx.data.
std::vector<std::string> files_of_input(const std::string& input) {
  std::vector<std::string> files = {input};
  if (ends_with(input, ".onnx")) {
    files.push_back(input + ".data");
    for (std::string& data : onnx::external_data_files(input)) files.push_back(std::move(data));
  }
  return files;
}

}  // namespace

void check_input_file(const std::string& path) {
  std::error_code error;
  const fs::file_status status = fs::status(path, error);
  if (!fs::exists(status)) throw Error(path + ": no such file");
  if (fs::is_directory(status)) throw Error(path + " is a directory, not a file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error("cannot read " + path + ": " + std::strerror(errno));
  if (fs::is_regular_file(status) && fs::file_size(path, error) == 0 && !error) {
    throw Error(path + " is empty");
  }
}

bool names_a_file(const std::string& spec) {
  std::error_code error;
  return ends_with(spec, ".onnx") || ends_with(spec, ".sxp") || ends_with(spec, ".pmb") ||
         fs::exists(fs::symlink_status(spec, error));
}

void check_outputs(const std::vector<std::string>& inputs, const std::vector<OutputFile>& outputs) {
  for (size_t i = 0; i < outputs.size(); ++i) {
    const OutputFile& output = outputs[i];
    if (output.path.empty()) continue;
    for (const std::string& input : inputs) {
      // An ONNX output's data file is always a new one (onnx/model_with_data_output.h).
      for (const std::string& read : files_of_input(input)) {
        if (same_file(output.path, read)) {
          throw Error(output.option + " " + output.path + ": refusing to overwrite the input " +
                      read);
        }
      }
    }
    for (size_t j = 0; j < i; ++j) {
      if (!outputs[j].path.empty() && same_file(outputs[j].path, output.path)) {
        throw Error(outputs[j].option + " and " + output.option + " both write " + output.path);
      }
    }
    std::error_code error;
    if (fs::is_directory(output.path, error)) {
      throw Error(output.option + " " + output.path + " is a directory, not a file");
    }
    fs::path folder = fs::path(output.path).parent_path();
    if (folder.empty()) folder = ".";
    if (!fs::is_directory(folder, error)) {
      throw Error(output.option + " " + output.path + ": the folder " + folder.string() +
                  " does not exist");
    }
    if (::access(folder.c_str(), W_OK | X_OK) != 0) {
      throw Error(output.option + " " + output.path + ": cannot write into " + folder.string() +
                  ": " + std::strerror(errno));
    }
  }
}

void check_onnx_output(const std::string& output, bool onnx_input, const std::string& spec) {
  if (!ends_with(output, ".onnx") || onnx_input) return;
  throw Error("cannot write '" + output +
              "': exporting to ONNX needs the weights of an ONNX model, and '" + spec +
              "' is not one (write .sxp instead)");
}

}  // namespace saturate::driver
