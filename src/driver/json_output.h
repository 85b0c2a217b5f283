#pragma once

// JSON that the CLI prints or writes. Names from user files reach it (rule names, node names
// of an imported model); bytes that are not UTF-8 are replaced (U+FFFD) rather than making
// nlohmann throw after all the work is done.
#include <nlohmann/json.hpp>
#include <string>

namespace saturate::driver {

template <typename Json>
std::string dump_json(const Json& json) {
  return json.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

}  // namespace saturate::driver
