#include "egraph/run_report.h"

#include <cstdio>
#include <nlohmann/json.hpp>

namespace saturate::egraph {
namespace {

nlohmann::json stop_reason_json(const std::optional<StopReason>& reason) {
  if (!reason) return nullptr;
  nlohmann::json json = {{"kind", reason->kind_name()}, {"text", reason->to_string()}};
  if (reason->kind == StopReason::Kind::IterationLimit ||
      reason->kind == StopReason::Kind::NodeLimit)
    json["limit"] = reason->limit;
  if (reason->kind == StopReason::Kind::TimeLimit) json["seconds"] = reason->seconds;
  if (reason->kind == StopReason::Kind::Hook) json["message"] = reason->message;
  return json;
}

nlohmann::json iteration_json(const Iteration& iteration) {
  nlohmann::json rules = nlohmann::json::array();
  for (const RuleIterationStats& rule : iteration.rules) {
    rules.push_back({{"rule", rule.rule},
                     {"matches", rule.matches},
                     {"applied", rule.applied},
                     {"filtered", rule.filtered},
                     {"incremental", rule.incremental},
                     {"banned", rule.banned},
                     {"at_match_limit", rule.at_match_limit}});
  }
  return {{"index", iteration.index},
          {"egraph_nodes", iteration.egraph_nodes},
          {"egraph_classes", iteration.egraph_classes},
          {"rules", rules},
          {"searches", iteration.searches},
          {"applied", iteration.applied},
          {"rebuild_unions", iteration.rebuild_unions},
          {"hook_seconds", iteration.hook_seconds},
          {"search_seconds", iteration.search_seconds},
          {"apply_seconds", iteration.apply_seconds},
          {"rebuild_seconds", iteration.rebuild_seconds},
          {"total_seconds", iteration.total_seconds},
          {"stop_reason", stop_reason_json(iteration.stop_reason)}};
}

std::string seconds_text(double seconds) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.4f s", seconds);
  return buffer;
}

}  // namespace

std::string StopReason::kind_name() const {
  switch (kind) {
    case Kind::Saturated:
      return "saturated";
    case Kind::IterationLimit:
      return "iteration_limit";
    case Kind::NodeLimit:
      return "node_limit";
    case Kind::TimeLimit:
      return "time_limit";
    case Kind::Hook:
      return "hook";
  }
  return "unknown";
}

std::string StopReason::to_string() const {
  switch (kind) {
    case Kind::Saturated:
      return "saturated";
    case Kind::IterationLimit:
      return "iteration limit (" + std::to_string(limit) + " iterations)";
    case Kind::NodeLimit:
      return "node limit (" + std::to_string(limit) + " nodes)";
    case Kind::TimeLimit:
      return "time limit (" + seconds_text(seconds) + ")";
    case Kind::Hook:
      return message.empty() ? "stopped by a hook" : "stopped by a hook: " + message;
  }
  return "unknown";
}

std::string Iteration::to_json() const {
  return iteration_json(*this).dump();
}

std::string RunReport::to_json(bool with_iterations, int indent) const {
  nlohmann::json json = {{"iterations", iterations},
                         {"stop_reason", stop_reason_json(stop_reason)},
                         {"egraph_nodes", egraph_nodes},
                         {"egraph_classes", egraph_classes},
                         {"memo_size", memo_size},
                         {"rebuilds", rebuilds},
                         {"applied", applied},
                         {"hook_seconds", hook_seconds},
                         {"search_seconds", search_seconds},
                         {"apply_seconds", apply_seconds},
                         {"rebuild_seconds", rebuild_seconds},
                         {"total_seconds", total_seconds}};
  if (with_iterations) {
    nlohmann::json list = nlohmann::json::array();
    for (const Iteration& iteration : iteration_stats) list.push_back(iteration_json(iteration));
    json["iteration_stats"] = std::move(list);
  }
  return json.dump(indent);
}

std::string RunReport::to_string() const {
  std::string text;
  text += "stop reason:  " + (stop_reason ? stop_reason->to_string() : "not run") + "\n";
  text += "iterations:   " + std::to_string(iterations) + "\n";
  text += "e-nodes:      " + std::to_string(egraph_nodes) + "\n";
  text += "e-classes:    " + std::to_string(egraph_classes) + "\n";
  text += "hash-cons:    " + std::to_string(memo_size) + " entries\n";
  text += "rebuilds:     " + std::to_string(rebuilds) + "\n";
  text += "applied:      " + std::to_string(applied) + "\n";
  text += "time:         " + seconds_text(total_seconds) + " (search " +
          seconds_text(search_seconds) + ", apply " + seconds_text(apply_seconds) + ", rebuild " +
          seconds_text(rebuild_seconds) + ", hooks " + seconds_text(hook_seconds) + ")\n";
  return text;
}

}  // namespace saturate::egraph
