#pragma once

// A private directory under the system's temporary folder, removed with everything in it when
// this goes out of scope (the files a run hands to its helper processes).
#include <filesystem>
#include <string>

namespace saturate {

class TemporaryDirectory {
 public:
  // `prefix` names it ("saturate-check" -> /tmp/saturate-check-Ab12Cd); `purpose` completes
  // the saturate::Error thrown when it cannot be created ("for ONNX Runtime timing models").
  TemporaryDirectory(const std::string& prefix, const std::string& purpose);
  ~TemporaryDirectory();
  TemporaryDirectory(const TemporaryDirectory&) = delete;
  TemporaryDirectory& operator=(const TemporaryDirectory&) = delete;

  // The path of `name` inside it.
  std::string file(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

}  // namespace saturate
