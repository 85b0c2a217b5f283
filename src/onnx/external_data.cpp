#include "onnx/external_data.h"

#include <algorithm>
#include <fstream>
#include <limits>
#include <optional>
#include <set>
#include <vector>

#include "onnx/external_data_files.h"
#include "onnx/host_tensor.h"
#include "onnx/onnx_tensor_data.h"
#include "support/error.h"
#include "support/strings.h"

namespace saturate::onnx {
namespace {

struct Location {
  std::string file;
  uint64_t offset = 0;
  std::optional<uint64_t> length;
};

Location location_of(const ::onnx::TensorProto& tensor, const std::string& what) {
  Location location;
  for (const auto& entry : tensor.external_data()) {
    if (entry.key() == "location") {
      location.file = entry.value();
    } else if (entry.key() == "offset" || entry.key() == "length") {
      auto value = parse_int(entry.value());
      if (!value || *value < 0) {
        throw Error(what + " has an invalid external-data " + entry.key() + " '" + entry.value() +
                    "'");
      }
      (entry.key() == "offset" ? location.offset : location.length.emplace()) =
          static_cast<uint64_t>(*value);
    }
  }
  if (location.file.empty()) throw Error(what + " keeps its data externally but names no file");
  return location;
}

// The file, checked to lie inside the model's directory, symbolic links followed (ONNX's own
// loader and ONNX Runtime refuse a link that leads out too).
std::filesystem::path resolve(const std::filesystem::path& base_dir, const std::string& file,
                              const std::string& what) {
  std::filesystem::path relative(file);
  if (relative.is_absolute() || relative.has_root_name()) {
    throw Error(what + " names an absolute external-data path '" + file +
                "'; ONNX allows paths relative to the model's directory only");
  }
  for (const auto& part : relative) {
    if (part == "..") {
      throw Error(what + " names external data '" + file + "' outside the model's directory");
    }
  }
  const std::filesystem::path path = base_dir / relative;
  std::error_code error;
  const std::filesystem::path real = std::filesystem::weakly_canonical(path, error);
  const std::filesystem::path real_base = std::filesystem::weakly_canonical(base_dir, error);
  if (!error) {
    const auto differ = std::mismatch(real_base.begin(), real_base.end(), real.begin(), real.end());
    if (differ.first != real_base.end()) {
      throw Error(what + " names external data '" + file +
                  "', a symbolic link that leads outside the model's directory (to " +
                  real.string() + ")");
    }
  }
  return path;
}

}  // namespace

int load_external_data(::onnx::ModelProto& model, const std::filesystem::path& base_dir,
                       const std::string& source, std::set<std::string>* files) {
  int loaded = 0;
  for (auto& tensor : *model.mutable_graph()->mutable_initializer()) {
    if (tensor.data_location() != ::onnx::TensorProto::EXTERNAL) continue;
    const std::string what = source + ": initializer " + tensor.name();
    Location location = location_of(tensor, what);
    std::filesystem::path path = resolve(base_dir, location.file, what);
    if (files != nullptr) files->insert(path.string());
    auto dtype = to_ir_dtype(tensor.data_type());
    if (!dtype) {
      throw Error(what + " has element type " + data_type_name(tensor.data_type()) +
                  ", which Saturate does not read from external data");
    }
    auto count = checked_element_count(tensor_dims(tensor));
    if (!count || *count > std::numeric_limits<int64_t>::max() / 8) {
      throw Error(what + " has an invalid shape");
    }
    uint64_t expected =
        static_cast<uint64_t>(*count) * static_cast<uint64_t>(ir::element_size(*dtype));
    if (location.length && *location.length != expected) {
      throw Error(what + ": its external data is " + std::to_string(*location.length) +
                  " bytes long, its shape needs " + std::to_string(expected));
    }
    std::error_code error;
    auto file_size = std::filesystem::file_size(path, error);
    if (error) {
      throw Error(what + " keeps its data in " + path.string() + ", which cannot be read (" +
                  error.message() + ")");
    }
    if (location.offset > file_size || file_size - location.offset < expected) {
      throw Error(what + " needs bytes " + std::to_string(location.offset) + " to " +
                  std::to_string(location.offset + expected) + " of " + path.string() +
                  ", which has " + std::to_string(file_size) + " (truncated?)");
    }
    std::ifstream in(path, std::ios::binary);
    std::string data(expected, '\0');
    in.seekg(static_cast<std::streamoff>(location.offset));
    in.read(data.data(), static_cast<std::streamsize>(expected));
    if (!in) throw Error(what + ": reading " + path.string() + " failed");
    tensor.set_raw_data(std::move(data));
    tensor.clear_external_data();
    tensor.set_data_location(::onnx::TensorProto::DEFAULT);
    ++loaded;
  }
  return loaded;
}

std::vector<std::string> external_data_files(const std::string& model_path) {
  std::set<std::string> files;
  std::error_code error;
  const auto size = std::filesystem::file_size(model_path, error);
  if (error || size > (uint64_t{256} << 20)) return {};
  ::onnx::ModelProto model;
  std::ifstream in(model_path, std::ios::binary);
  if (!in || !model.ParseFromIstream(&in)) return {};
  const std::filesystem::path base = std::filesystem::path(model_path).parent_path();
  for (const auto& tensor : model.graph().initializer()) {
    if (tensor.data_location() != ::onnx::TensorProto::EXTERNAL) continue;
    try {
      files.insert(resolve(base.empty() ? "." : base, location_of(tensor, "").file, "").string());
    } catch (const Error&) {
      // A location import refuses: it fails there with its own message.
    }
  }
  return {files.begin(), files.end()};
}

}  // namespace saturate::onnx
