// egraph-serialize JSON: reading, writing, round trips and every kind of bad input.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "extract/egraph_json.h"
#include "extract/extraction_result.h"
#include "support/error.h"

using namespace saturate;
using namespace saturate::extract;

namespace {

// Two classes; the child names the second node of class "x".
const char* kSmall = R"({
  "nodes": {
    "x0": {"op": "x", "children": [], "eclass": "x", "cost": 1.5},
    "x1": {"op": "y", "children": [], "eclass": "x", "cost": 0.25, "filtered": true},
    "f":  {"op": "f", "children": ["x1", "x0"], "eclass": "top", "cost": 2}
  },
  "root_eclasses": ["top"]
})";

void expect_parse_error(const std::string& text, const std::string& fragment) {
  try {
    parse_egraph_json(text, "input.json");
    FAIL() << "expected an error mentioning '" << fragment << "' for " << text;
  } catch (const Error& error) {
    const std::string message = error.what();
    EXPECT_EQ(message.rfind("input.json", 0), 0u) << message;  // starts with the source name
    EXPECT_NE(message.find(fragment), std::string::npos) << message;
  }
}

std::string with_nodes(const std::string& nodes, const std::string& roots = R"(["a"])") {
  return R"({"nodes": )" + nodes + R"(, "root_eclasses": )" + roots + "}";
}

}  // namespace

TEST(EgraphJson, ReadsNodesClassesAndRoots) {
  const ExtractionGraph graph = parse_egraph_json(kSmall, "small");
  ASSERT_EQ(graph.class_count(), 2u);
  ASSERT_EQ(graph.node_count(), 3u);
  EXPECT_EQ(graph.class_ids[0], "x");
  EXPECT_EQ(graph.class_ids[1], "top");
  EXPECT_EQ(graph.nodes[2].id, "f");
  EXPECT_EQ(graph.nodes[2].children, (std::vector<ClassIndex>{0, 0}));  // classes, not nodes
  EXPECT_DOUBLE_EQ(graph.nodes[1].cost, 0.25);
  EXPECT_TRUE(graph.is_filtered(1));
  EXPECT_FALSE(graph.is_filtered(0));
  EXPECT_EQ(graph.roots, std::vector<ClassIndex>{1});
}

TEST(EgraphJson, RoundTripKeepsTheGraph) {
  const ExtractionGraph original = parse_egraph_json(kSmall, "small");
  const ExtractionGraph copy = parse_egraph_json(egraph_to_json(original).dump(), "copy");
  ASSERT_EQ(copy.node_count(), original.node_count());
  ASSERT_EQ(copy.class_count(), original.class_count());
  for (NodeIndex n = 0; n < original.node_count(); ++n) {
    EXPECT_EQ(copy.nodes[n].id, original.nodes[n].id);
    EXPECT_EQ(copy.nodes[n].op, original.nodes[n].op);
    EXPECT_EQ(copy.nodes[n].eclass, original.nodes[n].eclass);
    EXPECT_EQ(copy.nodes[n].children, original.nodes[n].children);
    EXPECT_EQ(copy.nodes[n].cost, original.nodes[n].cost);  // exact: shortest round-trip text
    EXPECT_EQ(copy.is_filtered(n), original.is_filtered(n));
  }
  EXPECT_EQ(copy.class_ids, original.class_ids);
  EXPECT_EQ(copy.roots, original.roots);
}

TEST(EgraphJson, FileRoundTrip) {
  const auto path = std::filesystem::temp_directory_path() / "saturate_extract_json_test.json";
  ExtractionGraph graph;
  const ClassIndex c = graph.add_class("c");
  graph.add_node(c, "leaf", {}, 0.1);
  graph.add_node(c, "other", {}, 1e-30);
  graph.roots = {c};
  write_egraph_json(path.string(), graph);
  const ExtractionGraph copy = read_egraph_json(path.string());
  std::filesystem::remove(path);
  ASSERT_EQ(copy.node_count(), 2u);
  EXPECT_EQ(copy.nodes[1].cost, 1e-30);
  EXPECT_EQ(copy.class_nodes[0].size(), 2u);
}

TEST(EgraphJson, AcceptsNumericIdsAndMissingOptionalFields) {
  const ExtractionGraph graph = parse_egraph_json(
      R"({"nodes": {"1": {"eclass": 7, "cost": 0}, "2": {"eclass": 8, "cost": 1, "children": [1]}},
          "root_eclasses": [8, "8"]})",
      "numbers");
  EXPECT_EQ(graph.class_ids, (std::vector<std::string>{"7", "8"}));
  EXPECT_EQ(graph.roots, std::vector<ClassIndex>{1});  // the duplicate root is dropped
  EXPECT_EQ(graph.nodes[0].op, "");
}

TEST(EgraphJson, RejectsBadInput) {
  expect_parse_error("{not json", "invalid JSON");
  expect_parse_error("", "invalid JSON");
  expect_parse_error("[1, 2]", "JSON object");
  expect_parse_error(R"({"root_eclasses": ["a"]})", "missing \"nodes\"");
  expect_parse_error(R"({"nodes": [], "root_eclasses": ["a"]})", "\"nodes\" must be an object");
  expect_parse_error(with_nodes("{}"), "empty");
  expect_parse_error(with_nodes(R"({"n": 3})"), "node 'n' must be an object");
  expect_parse_error(with_nodes(R"({"n": {"cost": 1}})"), "node 'n' has no \"eclass\"");
  expect_parse_error(with_nodes(R"({"n": {"eclass": [1], "cost": 1}})"), "\"eclass\" must be");
  expect_parse_error(with_nodes(R"({"n": {"eclass": "a"}})"), "node 'n' has no \"cost\"");
  expect_parse_error(with_nodes(R"({"n": {"eclass": "a", "cost": "1"}})"),
                     "\"cost\" must be a number");
  expect_parse_error(with_nodes(R"({"n": {"eclass": "a", "cost": -0.5}})"), "finite and >= 0");
  expect_parse_error(with_nodes(R"({"n": {"eclass": "a", "cost": 1e999}})"), "number overflow");
  expect_parse_error(with_nodes(R"({"n": {"eclass": "a", "cost": NaN}})"), "invalid JSON");
  expect_parse_error(with_nodes(R"({"n": {"eclass": "a", "cost": 1, "children": "m"}})"),
                     "\"children\" must be an array");
  expect_parse_error(with_nodes(R"({"n": {"eclass": "a", "cost": 1, "children": ["m"]}})"),
                     "node 'n' has child 'm', which is not a node id");
  expect_parse_error(with_nodes(R"({"n": {"eclass": "a", "cost": 1, "children": [{}]}})"),
                     "children must be node ids");
  expect_parse_error(with_nodes(R"({"n": {"eclass": "a", "cost": 1, "op": 5}})"),
                     "\"op\" must be a string");
  expect_parse_error(with_nodes(R"({"n": {"eclass": "a", "cost": 1, "filtered": 1}})"),
                     "\"filtered\" must be true or false");
  expect_parse_error(R"({"nodes": {"n": {"eclass": "a", "cost": 1}}})",
                     "missing \"root_eclasses\"");
  expect_parse_error(with_nodes(R"({"n": {"eclass": "a", "cost": 1}})", "[]"), "is empty");
  expect_parse_error(with_nodes(R"({"n": {"eclass": "a", "cost": 1}})", R"("a")"),
                     "must be an array");
  expect_parse_error(with_nodes(R"({"n": {"eclass": "a", "cost": 1}})", R"(["b"])"),
                     "root class 'b' does not exist");
}

TEST(EgraphJson, MissingFileNamesThePath) {
  try {
    read_egraph_json("/nonexistent/graph.json");
    FAIL() << "expected an error";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("/nonexistent/graph.json"), std::string::npos);
  }
}

TEST(EgraphJson, CannotWriteAChildClassWithoutNodes) {
  ExtractionGraph graph;
  const ClassIndex empty = graph.add_class("empty"), top = graph.add_class("top");
  graph.add_node(top, "f", {empty}, 1);
  graph.roots = {top};
  EXPECT_THROW(egraph_to_json(graph), Error);
}

TEST(EgraphJson, ResultAsJson) {
  const ExtractionGraph graph = parse_egraph_json(kSmall, "small");
  ExtractionResult result = evaluate_choice(graph, {0, 2});
  result.method = "manual";
  result.add_statistic("answer", 42);
  const auto json = result_to_json(graph, result);
  EXPECT_EQ(json["method"], "manual");
  EXPECT_EQ(json["choices"]["x"], "x0");
  EXPECT_EQ(json["choices"]["top"], "f");
  EXPECT_DOUBLE_EQ(json["dag_cost"].get<double>(), 3.5);
  EXPECT_DOUBLE_EQ(json["tree_cost"].get<double>(), 5);
  EXPECT_EQ(json["statistics"]["answer"], 42.0);

  const auto missing = result_to_json(graph, evaluate_choice(graph, {}));
  EXPECT_TRUE(missing["dag_cost"].is_null());
}

// 100,000 nested arrays under a key the reader ignores overflowed the stack inside
// nlohmann-json (issue 15): rejected by depth before parsing.
TEST(EgraphJson, RejectsNestingDeeperThanTheLimit) {
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  const std::string text = R"({"nodes": {"a": {"eclass": "c", "cost": 1, "extra": )" + deep +
                           R"(}}, "root_eclasses": ["c"]})";
  expect_parse_error(text, "nesting deeper than 1000 levels");
  expect_parse_error(std::string(100000, '['), "nesting deeper than 1000 levels");
  // Brackets inside strings do not count.
  ExtractionGraph graph = parse_egraph_json(
      R"({"nodes": {"a": {"op": ")" + std::string(5000, '[') + R"(", "eclass": "c", "cost": 1}},
          "root_eclasses": ["c"]})",
      "strings.json");
  EXPECT_EQ(graph.nodes.size(), 1u);
}
