#include "onnx/topological_order.h"

#include <queue>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "support/error.h"

namespace saturate::onnx {
namespace {

using ::onnx::GraphProto;
using ::onnx::NodeProto;

// Every value name a node's subgraphs read, the outer scope's included (their own values too:
// those no node of the outer graph produces, so they add no dependency).
void subgraph_reads(const GraphProto& graph, std::vector<const std::string*>& names) {
  for (const NodeProto& node : graph.node()) {
    for (const std::string& input : node.input()) names.push_back(&input);
    for (const auto& attribute : node.attribute()) {
      if (attribute.has_g()) subgraph_reads(attribute.g(), names);
      for (const GraphProto& body : attribute.graphs()) subgraph_reads(body, names);
    }
  }
}

std::vector<const std::string*> reads(const NodeProto& node) {
  std::vector<const std::string*> names;
  for (const std::string& input : node.input()) names.push_back(&input);
  for (const auto& attribute : node.attribute()) {
    if (attribute.has_g()) subgraph_reads(attribute.g(), names);
    for (const GraphProto& body : attribute.graphs()) subgraph_reads(body, names);
  }
  return names;
}

}  // namespace

bool sort_nodes_topologically(GraphProto& graph, const std::string& source) {
  const int count = graph.node_size();
  std::unordered_map<std::string, int> producer;
  for (int i = 0; i < count; ++i) {
    for (const std::string& output : graph.node(i).output()) {
      if (!output.empty()) producer.emplace(output, i);  // a second producer: validation's
    }
  }
  std::vector<std::vector<int>> readers(static_cast<size_t>(count));
  std::vector<int> waiting(static_cast<size_t>(count), 0);
  bool sorted = true;
  for (int i = 0; i < count; ++i) {
    std::unordered_set<int> needs;
    for (const std::string* name : reads(graph.node(i))) {
      auto it = producer.find(*name);
      if (it != producer.end() && it->second != i) needs.insert(it->second);
      if (it != producer.end() && it->second >= i) sorted = false;
    }
    for (int before : needs) readers[static_cast<size_t>(before)].push_back(i);
    waiting[static_cast<size_t>(i)] = static_cast<int>(needs.size());
  }
  if (sorted) return false;
  // Kahn's algorithm, smallest file position first among the ready nodes.
  std::priority_queue<int, std::vector<int>, std::greater<>> ready;
  for (int i = 0; i < count; ++i) {
    if (waiting[static_cast<size_t>(i)] == 0) ready.push(i);
  }
  std::vector<int> order;
  order.reserve(static_cast<size_t>(count));
  while (!ready.empty()) {
    const int next = ready.top();
    ready.pop();
    order.push_back(next);
    for (int reader : readers[static_cast<size_t>(next)]) {
      if (--waiting[static_cast<size_t>(reader)] == 0) ready.push(reader);
    }
  }
  if (static_cast<int>(order.size()) != count) {
    for (int i = 0; i < count; ++i) {
      if (waiting[static_cast<size_t>(i)] > 0) {
        const NodeProto& node = graph.node(i);
        throw Error(source + ": the graph's nodes read each other's outputs in a cycle; node " +
                    (node.name().empty() ? "#" + std::to_string(i) : node.name()) + " (op " +
                    node.op_type() + ") is on it or after it");
      }
    }
  }
  google::protobuf::RepeatedPtrField<NodeProto> nodes;
  nodes.Swap(graph.mutable_node());
  for (int i : order) graph.add_node()->Swap(nodes.Mutable(i));
  return true;
}

}  // namespace saturate::onnx
