#include "support/json_helper_client.h"

#include "support/error.h"

namespace saturate {

nlohmann::json ask_json_helper(ChildProcess& process, const nlohmann::json& request,
                               const std::string& helper) {
  const std::string line = process.request(request.dump());
  nlohmann::json answer = nlohmann::json::parse(line, nullptr, false);
  if (answer.is_discarded() || !answer.is_object()) {
    throw Error(helper + ": unreadable answer: " + line.substr(0, 200));
  }
  if (answer.contains("error")) throw Error(answer["error"].get<std::string>());
  return answer;
}

}  // namespace saturate
