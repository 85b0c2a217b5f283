#include "source_dir.h"

namespace saturate::tests {

std::filesystem::path source_dir() {
  return SATURATE_SOURCE_DIR;
}

}  // namespace saturate::tests
