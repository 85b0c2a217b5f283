#include "support/temporary_directory.h"

#include <cstdlib>
#include <system_error>

#include "support/error.h"

namespace saturate {

TemporaryDirectory::TemporaryDirectory(const std::string& prefix, const std::string& purpose) {
  std::string pattern = (std::filesystem::temp_directory_path() / (prefix + "-XXXXXX")).string();
  if (::mkdtemp(pattern.data()) == nullptr) {
    throw Error("cannot create a temporary directory " + purpose);
  }
  path_ = pattern;
}

TemporaryDirectory::~TemporaryDirectory() {
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

}  // namespace saturate
