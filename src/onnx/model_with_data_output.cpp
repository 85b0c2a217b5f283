#include "onnx/model_with_data_output.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <system_error>

#include "onnx/external_data_files.h"
#include "support/error.h"
#include "support/strings.h"

namespace saturate::onnx {
namespace fs = std::filesystem;

namespace {

constexpr std::string_view kClaim = "saturate claim ";

// Creates `path` if no file has that name (O_EXCL), holding "saturate claim PID": a later run
// removes the claim of a process that is gone.
bool claim(const fs::path& path) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  if (fd < 0) return false;
  const std::string text = std::string(kClaim) + std::to_string(::getpid()) + "\n";
  const ssize_t written = ::write(fd, text.data(), text.size());
  ::close(fd);
  if (written != static_cast<ssize_t>(text.size())) {
    ::unlink(path.c_str());
    return false;
  }
  return true;
}

// Whether `path` is a claim whose process is gone (killed before its data was written).
bool dead_claim(const fs::path& path) {
  std::error_code error;
  if (fs::file_size(path, error) > 64 || error) return false;
  std::ifstream in(path);
  std::string word1, word2;
  long pid = 0;
  if (!(in >> word1 >> word2 >> pid) || word1 + " " + word2 + " " != kClaim || pid <= 0) {
    return false;
  }
  return ::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH;
}

bool name_taken(const fs::path& path) {
  std::error_code error;
  return fs::exists(fs::symlink_status(path, error));
}

std::string random_suffix() {
  static std::mt19937_64 engine{std::random_device{}() ^ static_cast<uint64_t>(::getpid())};
  char text[17];
  std::snprintf(text, sizeof text, "%08x", static_cast<unsigned>(engine() & 0xffffffffu));
  return text;
}

// The data files in `directory` that the model file names (onnx/external_data_files.h; empty
// for a model that does not parse: only its own data files are ever removed).
std::set<std::string> data_locations(const fs::path& model, const fs::path& directory) {
  std::set<std::string> names;
  std::error_code error;
  for (const std::string& file : external_data_files(model.string())) {
    if (fs::equivalent(fs::path(file).parent_path(), directory, error)) {
      names.insert(fs::path(file).filename().string());
    }
  }
  return names;
}

// Whether `file` is NAME.data or NAME.<8 hex digits>.data: a data file this scheme writes for
// the model NAME (std::regex is avoided: GCC 12 warns inside it under the sanitizers).
bool named_by_scheme(const std::string& file, const std::string& name) {
  if (file.rfind(name + ".", 0) != 0) return false;
  const std::string rest = file.substr(name.size() + 1);
  if (rest == "data") return true;  // NAME.data
  if (rest.size() != 13 || rest.substr(8) != ".data") return false;
  return std::all_of(rest.begin(), rest.begin() + 8,
                     [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

bool same_file(const fs::path& a, const std::string& b) {
  std::error_code error;
  return fs::equivalent(a, b, error) && !error;
}

}  // namespace

ModelWithDataOutput::ModelWithDataOutput(const std::string& model_path, std::set<std::string> keep)
    : model_path_(resolve_links(model_path)), keep_(std::move(keep)) {
  const fs::path model(model_path_);
  directory_ = model.has_parent_path() ? model.parent_path().string() : ".";
  const std::string name = model.filename().string();
  // The conventional name only where no model would be left pointing at it.
  // Claims of killed runs go first, so that the conventional name is free again.
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(directory_, error)) {
    if (named_by_scheme(entry.path().filename().string(), name) && dead_claim(entry.path())) {
      std::error_code ignored;
      fs::remove(entry.path(), ignored);
    }
  }
  // The conventional name only where no model would be left pointing at it; any name is
  // claimed (created empty with O_EXCL), so two runs never choose one.
  fs::path chosen = fs::path(directory_) / (name + ".data");
  bool claimed = !name_taken(model) && claim(chosen);
  for (int attempt = 0; !claimed; ++attempt) {
    if (attempt == 64) {
      throw Error("cannot create a data file beside '" + model_path + "': " + os_reason());
    }
    chosen = fs::path(directory_) / (name + "." + random_suffix() + ".data");
    claimed = claim(chosen);
  }
  data_path_ = chosen.string();
  location_ = chosen.filename().string();
  try {
    data_ = std::make_unique<StagedFile>(model_path_ + ".data");  // named after the model
  } catch (...) {
    ::unlink(data_path_.c_str());
    throw;
  }
}

ModelWithDataOutput::~ModelWithDataOutput() {
  // The claimed name, or data moved there for a model that was not written: no model names it.
  if (!committed_) ::unlink(data_path_.c_str());
}

void ModelWithDataOutput::commit(std::string_view model_bytes) {
  const fs::path model(model_path_);
  const std::set<std::string> replaced = data_locations(model, directory_);
  StagedFile staged_model(model_path_);
  staged_model.write(model_bytes);
  data_->commit_as(data_path_);
  staged_model.commit();
  committed_ = true;
  remove_replaced(replaced);
}

void ModelWithDataOutput::remove_replaced(const std::set<std::string>& replaced) const {
  const std::string name = fs::path(model_path_).filename().string();
  auto read_by_input = [&](const fs::path& file) {
    for (const std::string& input : keep_) {
      if (same_file(file, input)) return true;
    }
    return false;
  };
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(directory_, error)) {
    const std::string file = entry.path().filename().string();
    if (file == location_ || !named_by_scheme(file, name) || read_by_input(entry.path())) {
      continue;
    }
    // The replaced model's data now; a dead process's claim now; other files no model names
    // only when no run can still be between its two steps (a killed run's data).
    bool stale = dead_claim(entry.path());
    if (!stale && !replaced.contains(file)) {
      auto written = fs::last_write_time(entry.path(), error);
      stale = !error && fs::file_time_type::clock::now() - written > std::chrono::minutes(10);
    }
    if (replaced.contains(file) || stale) {
      std::error_code ignored;
      fs::remove(entry.path(), ignored);
    }
  }
}

}  // namespace saturate::onnx
