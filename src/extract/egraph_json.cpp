#include "extract/egraph_json.h"

#include <cmath>
#include <unordered_map>
#include <vector>

#include "support/atomic_file.h"
#include "support/error.h"
#include "support/strings.h"

namespace saturate::extract {

namespace {

using Json = nlohmann::ordered_json;

// Class and node ids are strings in egraph-serialize; numbers are accepted and read as their
// text, which some writers emit.
bool read_id(const Json& value, std::string& id) {
  if (value.is_string()) {
    id = value.get<std::string>();
    return true;
  }
  if (value.is_number_integer()) {
    id = value.dump();
    return true;
  }
  return false;
}

[[noreturn]] void fail(const std::string& source, const std::string& what) {
  throw Error(source + ": " + what);
}

// The deepest nesting of arrays and objects accepted. egraph-serialize files are four levels
// deep; the limit keeps nlohmann-json's recursive code paths (the DOM parser's, dump()) from
// overflowing the stack on hostile input such as 100,000 '['.
constexpr int kMaxJsonNesting = 1000;

// Rejects text nested deeper than kMaxJsonNesting before nlohmann-json sees it. Brackets inside
// strings do not count; malformed text is left for the parser to reject with its own message.
void check_nesting(std::string_view text, const std::string& source) {
  int depth = 0;
  bool in_string = false;
  for (size_t offset = 0; offset < text.size(); ++offset) {
    const char c = text[offset];
    if (in_string) {
      if (c == '\\') {
        ++offset;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > kMaxJsonNesting) {
        fail(source, "invalid JSON: nesting deeper than " + std::to_string(kMaxJsonNesting) +
                         " levels at byte " + std::to_string(offset));
      }
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
}

}  // namespace

ExtractionGraph parse_egraph_json(std::string_view text, const std::string& source_name) {
  check_nesting(text, source_name);
  Json document;
  try {
    document = Json::parse(text.begin(), text.end());
  } catch (const Json::exception& error) {
    throw Error(source_name + ": invalid JSON: " + error.what());
  }
  if (!document.is_object())
    fail(source_name, "expected a JSON object with \"nodes\" and \"root_eclasses\"");
  auto nodes_entry = document.find("nodes");
  if (nodes_entry == document.end()) fail(source_name, "missing \"nodes\"");
  const Json& nodes = *nodes_entry;
  if (!nodes.is_object()) fail(source_name, "\"nodes\" must be an object from node id to node");
  if (nodes.empty()) fail(source_name, "the e-graph is empty: \"nodes\" has no entries");

  ExtractionGraph graph;
  std::unordered_map<std::string, ClassIndex> class_by_id;
  std::unordered_map<std::string, NodeIndex> node_by_id;
  // Children name nodes that may come later in the file: keep their ids for a second pass.
  std::vector<std::vector<std::string>> child_ids;
  child_ids.reserve(nodes.size());

  for (const auto& [node_id, node] : nodes.items()) {
    const std::string where = "node '" + node_id + "'";
    if (!node.is_object()) fail(source_name, where + " must be an object");
    std::string class_id;
    auto eclass = node.find("eclass");
    if (eclass == node.end()) fail(source_name, where + " has no \"eclass\"");
    if (!read_id(*eclass, class_id)) fail(source_name, where + ": \"eclass\" must be a string");
    auto cost_entry = node.find("cost");
    if (cost_entry == node.end()) fail(source_name, where + " has no \"cost\"");
    if (!cost_entry->is_number()) fail(source_name, where + ": \"cost\" must be a number");
    const double cost = cost_entry->get<double>();
    if (!std::isfinite(cost) || cost < 0) {
      fail(source_name,
           where + " has cost " + cost_entry->dump() + "; costs must be finite and >= 0");
    }
    std::string op;
    if (auto op_entry = node.find("op"); op_entry != node.end()) {
      if (!op_entry->is_string()) fail(source_name, where + ": \"op\" must be a string");
      op = op_entry->get<std::string>();
    }
    std::vector<std::string> children;
    if (auto children_entry = node.find("children"); children_entry != node.end()) {
      if (!children_entry->is_array()) fail(source_name, where + ": \"children\" must be an array");
      for (const Json& child : *children_entry) {
        std::string child_id;
        if (!read_id(child, child_id))
          fail(source_name, where + ": children must be node ids (strings)");
        children.push_back(std::move(child_id));
      }
    }
    bool filtered = false;
    if (auto filtered_entry = node.find("filtered"); filtered_entry != node.end()) {
      if (!filtered_entry->is_boolean())
        fail(source_name, where + ": \"filtered\" must be true or false");
      filtered = filtered_entry->get<bool>();
    }

    auto [class_entry, is_new_class] = class_by_id.try_emplace(class_id, graph.class_count());
    if (is_new_class) graph.add_class(class_id);
    if (!node_by_id.emplace(node_id, graph.node_count()).second) {
      fail(source_name, "node id '" + node_id + "' appears twice");
    }
    const NodeIndex index = graph.add_node(class_entry->second, std::move(op), {}, cost, node_id);
    graph.filtered[index] = filtered;
    child_ids.push_back(std::move(children));
  }

  for (NodeIndex n = 0; n < graph.node_count(); ++n) {
    auto& children = graph.nodes[n].children;
    children.reserve(child_ids[n].size());
    for (const std::string& child_id : child_ids[n]) {
      auto child = node_by_id.find(child_id);
      if (child == node_by_id.end()) {
        fail(source_name, "node '" + graph.nodes[n].id + "' has child '" + child_id +
                              "', which is not a node id");
      }
      children.push_back(graph.nodes[child->second].eclass);
    }
  }

  auto roots_entry = document.find("root_eclasses");
  if (roots_entry == document.end()) fail(source_name, "missing \"root_eclasses\"");
  if (!roots_entry->is_array())
    fail(source_name, "\"root_eclasses\" must be an array of class ids");
  if (roots_entry->empty()) fail(source_name, "\"root_eclasses\" is empty: nothing to extract");
  for (const Json& root : *roots_entry) {
    std::string root_id;
    if (!read_id(root, root_id))
      fail(source_name, "\"root_eclasses\" must hold class ids (strings)");
    auto root_class = class_by_id.find(root_id);
    if (root_class == class_by_id.end()) {
      fail(source_name,
           "root class '" + root_id + "' does not exist (no node has it as \"eclass\")");
    }
    bool duplicate = false;
    for (ClassIndex seen : graph.roots) duplicate = duplicate || seen == root_class->second;
    if (!duplicate) graph.roots.push_back(root_class->second);
  }
  graph.validate(source_name);
  return graph;
}

ExtractionGraph read_egraph_json(const std::string& path) {
  return parse_egraph_json(read_file(path), path);
}

nlohmann::ordered_json egraph_to_json(const ExtractionGraph& graph) {
  Json nodes = Json::object();
  for (NodeIndex n = 0; n < graph.node_count(); ++n) {
    const auto& node = graph.nodes[n];
    Json children = Json::array();
    for (ClassIndex child : node.children) {
      if (graph.class_nodes[child].empty()) {
        throw Error("cannot write node '" + node.id + "': its child class '" +
                    graph.class_ids[child] + "' has no nodes to name");
      }
      children.push_back(graph.nodes[graph.class_nodes[child].front()].id);
    }
    Json entry = {{"op", node.op},
                  {"children", std::move(children)},
                  {"eclass", graph.class_ids[node.eclass]},
                  {"cost", node.cost}};
    if (graph.is_filtered(n)) entry["filtered"] = true;
    nodes[node.id] = std::move(entry);
  }
  Json roots = Json::array();
  for (ClassIndex root : graph.roots) roots.push_back(graph.class_ids[root]);
  return Json{{"nodes", std::move(nodes)}, {"root_eclasses", std::move(roots)}};
}

void write_egraph_json(const std::string& path, const ExtractionGraph& graph) {
  write_file_atomically(path, egraph_to_json(graph).dump(1) + "\n");
}

nlohmann::ordered_json result_to_json(const ExtractionGraph& graph,
                                      const ExtractionResult& result) {
  // JSON has no infinity: unbounded costs are written as null.
  auto number = [](double value) { return std::isfinite(value) ? Json(value) : Json(nullptr); };
  Json choices = Json::object();
  for (ClassIndex c = 0; c < result.choice.size() && c < graph.class_count(); ++c) {
    if (result.choice[c] != kNoNode) choices[graph.class_ids[c]] = graph.nodes[result.choice[c]].id;
  }
  Json statistics = Json::object();
  for (const auto& [key, value] : result.statistics) statistics[key] = number(value);
  return Json{{"method", result.method},
              {"solver", result.solver},
              {"found", result.found},
              {"acyclic", result.acyclic},
              {"dag_cost", number(result.dag_cost)},
              {"tree_cost", number(result.tree_cost)},
              {"proven_optimal", result.proven_optimal},
              {"lower_bound", number(result.lower_bound)},
              {"status", result.status},
              {"seconds", result.seconds},
              {"statistics", std::move(statistics)},
              {"choices", std::move(choices)}};
}

}  // namespace saturate::extract
