#pragma once

// The client side of Saturate's line-protocol Python helpers (python/saturate/line_server.py):
// one JSON request per line, one JSON answer per line, {"error": "..."} for a failed request.
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "support/child_process.h"

namespace saturate {

// Sends `request` and returns the answer, an object. Throws saturate::Error with the helper's
// own message when it answers an error, and naming `helper` when the answer is unreadable.
// Attachments (model bytes) follow the request line as raw bytes; the request names their
// sizes in "attachments", and the helper reads exactly that much after the line. Throws
// DeadlinePassed (the helper killed) when `deadline` comes before the answer.
nlohmann::json ask_json_helper(ChildProcess& process, const nlohmann::json& request,
                               const std::string& helper,
                               const std::vector<std::string_view>& attachments = {},
                               const Deadline& deadline = Deadline::never());

}  // namespace saturate
