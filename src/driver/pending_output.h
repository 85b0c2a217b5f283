#pragma once

// A file a run produces while it works (the e-graph files): written to a uniquely named
// temporary beside it and moved into place only once everything succeeded and verified
// (support/atomic_file.h).
#include <filesystem>
#include <memory>
#include <string>
#include <system_error>

#include "support/atomic_file.h"

namespace saturate::driver {

class PendingOutput {
 public:
  explicit PendingOutput(const std::string& path)
      : staged_(path.empty() ? nullptr : std::make_unique<StagedFile>(path)) {}

  // Where the writer writes; empty when the file was not asked for.
  const std::string& temporary() const {
    static const std::string none;
    return staged_ ? staged_->temporary() : none;
  }
  // Moves the written file into place; nothing when it was not asked for or not written (the
  // temporary is still empty).
  void commit() {
    std::error_code error;
    if (staged_ && std::filesystem::file_size(staged_->temporary(), error) > 0 && !error) {
      staged_->commit();
    }
  }

 private:
  std::unique_ptr<StagedFile> staged_;
};

}  // namespace saturate::driver
