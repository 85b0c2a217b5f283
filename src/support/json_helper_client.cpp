#include "support/json_helper_client.h"

#include "support/error.h"

namespace saturate {

nlohmann::json ask_json_helper(ChildProcess& process, const nlohmann::json& request,
                               const std::string& helper,
                               const std::vector<std::string_view>& attachments,
                               const Deadline& deadline) {
  std::string line;
  if (attachments.empty()) {
    line = process.request(request.dump(), {}, deadline);
  } else {
    nlohmann::json framed = request;
    framed["attachments"] = nlohmann::json::array();
    for (std::string_view attachment : attachments)
      framed["attachments"].push_back(attachment.size());
    line = process.request(framed.dump(), attachments, deadline);
  }
  nlohmann::json answer = nlohmann::json::parse(line, nullptr, false);
  if (answer.is_discarded() || !answer.is_object()) {
    throw Error(helper + ": unreadable answer: " + line.substr(0, 200));
  }
  if (answer.contains("error")) throw Error(answer["error"].get<std::string>());
  return answer;
}

}  // namespace saturate
