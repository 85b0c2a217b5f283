#include "onnx/model_with_data_output.h"

#include <fcntl.h>
#include <onnx/onnx_pb.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <random>
#include <regex>
#include <system_error>

#include "support/error.h"
#include "support/strings.h"

namespace saturate::onnx {
namespace fs = std::filesystem;

namespace {

// Creates `path` empty if no file has that name (O_EXCL: two runs never claim one name).
bool claim(const fs::path& path) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  if (fd < 0) return false;
  ::close(fd);
  return true;
}

std::string random_suffix() {
  static std::mt19937_64 engine{std::random_device{}() ^ static_cast<uint64_t>(::getpid())};
  char text[17];
  std::snprintf(text, sizeof text, "%08x", static_cast<unsigned>(engine() & 0xffffffffu));
  return text;
}

// The external-data file names a model file refers to (empty when it cannot be read as one:
// only its own data files are ever removed, so a model that does not parse removes nothing).
std::set<std::string> data_locations(const fs::path& model) {
  std::set<std::string> names;
  std::error_code error;
  if (!fs::is_regular_file(model, error)) return names;
  const auto size = fs::file_size(model, error);
  if (error || size > (uint64_t{256} << 20)) return names;  // weights inside: no data files
  ::onnx::ModelProto proto;
  try {
    if (!proto.ParseFromString(read_file(model.string()))) return names;
  } catch (const Error&) {
    return names;
  }
  for (const auto& tensor : proto.graph().initializer()) {
    for (const auto& entry : tensor.external_data()) {
      if (entry.key() == "location") names.insert(entry.value());
    }
  }
  return names;
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
  std::error_code error;
  const bool replaces_a_model = fs::exists(fs::symlink_status(model, error));
  // The conventional name only where no model would be left pointing at it.
  fs::path candidate = fs::path(directory_) / (name + ".data");
  bool claimed = !replaces_a_model && claim(candidate);
  for (int attempt = 0; !claimed && attempt < 64; ++attempt) {
    candidate = fs::path(directory_) / (name + "." + random_suffix() + ".data");
    claimed = claim(candidate);
  }
  if (!claimed) {
    throw Error("cannot create the external data file beside '" + model_path + "': " + os_reason());
  }
  claimed_ = candidate.string();
  location_ = candidate.filename().string();
  try {
    data_ = std::make_unique<StagedFile>(claimed_);
  } catch (...) {
    ::unlink(claimed_.c_str());
    throw;
  }
}

ModelWithDataOutput::~ModelWithDataOutput() {
  if (committed_) return;
  data_.reset();  // its temporary
  // The claimed name, unless the data was already moved there (a failed model write): the
  // previous model does not name it, so it is removed either way.
  ::unlink(claimed_.c_str());
}

void ModelWithDataOutput::commit(std::string_view model_bytes) {
  const fs::path model(model_path_);
  std::set<std::string> replaced = data_locations(model);
  data_->commit();
  write_file_atomically(model_path_, model_bytes);
  committed_ = true;
  // The replaced model's data files, where they are this scheme's and no input reads them.
  const std::string name = model.filename().string();
  const std::regex ours(std::regex_replace(name, std::regex(R"([.^$|()\[\]{}*+?\\])"), R"(\$&)") +
                        R"((\.[0-9a-f]{8})?\.data)");
  for (const std::string& location : replaced) {
    if (location == location_ || !std::regex_match(location, ours)) continue;
    const fs::path old_data = fs::path(directory_) / location;
    bool read_by_input = false;
    for (const std::string& input : keep_)
      read_by_input = read_by_input || same_file(old_data, input);
    if (read_by_input) continue;
    std::error_code ignored;
    fs::remove(old_data, ignored);
  }
}

}  // namespace saturate::onnx
