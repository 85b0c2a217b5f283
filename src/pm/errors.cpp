#include "pm/errors.h"

namespace saturate::pm {

FormatError::FormatError(size_t offset, const std::string& detail, const std::string& path)
    : Error((path.empty() ? "" : path + ": ") + "invalid .pmb file at byte " +
            std::to_string(offset) + ": " + detail),
      offset_(offset),
      detail_(detail) {}

}  // namespace saturate::pm
