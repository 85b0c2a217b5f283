#pragma once

// A file a run produces while it works (the e-graph files): written to a temporary name beside
// it and moved into place only once everything succeeded and verified.
#include <filesystem>
#include <string>
#include <system_error>

#include "support/error.h"

namespace saturate::driver {

class PendingOutput {
 public:
  explicit PendingOutput(std::string path)
      : path_(std::move(path)), temporary_(path_.empty() ? "" : path_ + ".tmp-saturate-egraph") {}
  PendingOutput(const PendingOutput&) = delete;
  PendingOutput& operator=(const PendingOutput&) = delete;
  ~PendingOutput() {
    std::error_code ignored;
    if (!temporary_.empty()) std::filesystem::remove(temporary_, ignored);
  }
  // Where the writer writes; empty when the file was not asked for.
  const std::string& temporary() const { return temporary_; }
  void commit() {
    if (temporary_.empty() || !std::filesystem::exists(temporary_)) return;
    std::error_code error;
    std::filesystem::rename(temporary_, path_, error);
    if (error) throw Error("cannot move the written file into place at '" + path_ + "'");
  }

 private:
  std::string path_;
  std::string temporary_;
};

}  // namespace saturate::driver
