// Graphs from Python: bundled models, the text form, and a builder that takes operator names and
// attribute dictionaries (checked by the IR exactly as in C++).
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <string>
#include <vector>

#include "cost/analytic_cost_model.h"
#include "cost/graph_cost.h"
#include "ir/dot_writer.h"
#include "ir/graph.h"
#include "ir/op_registry.h"
#include "ir/text_format.h"
#include "models/model_registry.h"
#include "bindings.h"
#include "runtime/graph_comparison.h"
#include "support/error.h"

namespace py = pybind11;

namespace saturate::python {
namespace {

// A Python value as the attribute kind the operator declares.
ir::AttrValue to_attribute(const ir::OpInfo& op, const std::string& name, const py::handle& value) {
  const ir::AttrSpec* spec = op.find_attribute(name);
  if (spec == nullptr) throw Error(op.name + " has no attribute '" + name + "'");
  switch (spec->kind) {
    case ir::AttrKind::Int:
      return value.cast<int64_t>();
    case ir::AttrKind::Ints:
      return value.cast<std::vector<int64_t>>();
    case ir::AttrKind::Float:
      return value.cast<double>();
    case ir::AttrKind::String:
      return value.cast<std::string>();
    case ir::AttrKind::Activation: {
      auto parsed = ir::parse_activation(value.cast<std::string>());
      if (!parsed)
        throw Error(op.name + ": unknown activation '" + value.cast<std::string>() + "'");
      return static_cast<int64_t>(*parsed);
    }
    case ir::AttrKind::Padding: {
      auto parsed = ir::parse_padding(value.cast<std::string>());
      if (!parsed) throw Error(op.name + ": unknown padding '" + value.cast<std::string>() + "'");
      return static_cast<int64_t>(*parsed);
    }
  }
  throw Error("unknown attribute kind");
}

ir::Graph build_model(const std::string& name, bool reduced, int layers) {
  const models::ModelInfo* model = models::find_model(name);
  if (model == nullptr) throw Error("unknown model '" + name + "' (see saturate.models())");
  return model->build(models::ModelOptions{.reduced = reduced, .layers = layers});
}

py::object attribute_to_python(const ir::AttrValue& value, const ir::AttrSpec* spec) {
  if (spec != nullptr && spec->kind == ir::AttrKind::Activation)
    return py::str(
        std::string(ir::to_string(static_cast<ir::Activation>(std::get<int64_t>(value)))));
  if (spec != nullptr && spec->kind == ir::AttrKind::Padding)
    return py::str(std::string(ir::to_string(static_cast<ir::Padding>(std::get<int64_t>(value)))));
  return std::visit([](const auto& v) -> py::object { return py::cast(v); }, value);
}

// One dict per node, in topological order: what an exporter or an analysis script needs.
py::list describe_nodes(const ir::Graph& graph) {
  py::list nodes;
  for (const ir::Node& node : graph.nodes()) {
    const ir::OpInfo& info = ir::op_info(node.op);
    py::list inputs;
    for (ir::ValueRef input : node.inputs) inputs.append(graph.value_name(input));
    py::dict attrs;
    for (const auto& [name, value] : node.attrs.entries()) {
      attrs[py::str(name)] = attribute_to_python(value, info.find_attribute(name));
    }
    py::list shapes;
    for (const ir::TensorType& type : node.outputs) shapes.append(py::cast(type.dims));
    py::dict entry;
    entry["op"] = info.name;
    entry["outputs"] = py::cast(node.output_names);
    entry["inputs"] = inputs;
    entry["attrs"] = attrs;
    entry["shapes"] = shapes;
    nodes.append(entry);
  }
  return nodes;
}

}  // namespace

void bind_graph(py::module_& module) {
  py::class_<ir::ValueRef>(module, "Value", "One value of a graph: output `output` of node `node`.")
      .def_readonly("node", &ir::ValueRef::node)
      .def_readonly("output", &ir::ValueRef::output)
      .def("__repr__", [](const ir::ValueRef& v) {
        return "Value(node=" + std::to_string(v.node) + ", output=" + std::to_string(v.output) +
               ")";
      });

  py::enum_<ir::DType> dtype(module, "DType");
  for (ir::DType value : ir::kAllDTypes) dtype.value(ir::to_string(value).data(), value);

  py::class_<ir::Graph>(module, "Graph", "A shape-checked tensor computation graph.")
      .def(py::init<std::string>(), py::arg("name") = "graph")
      .def_property_readonly("name", &ir::Graph::name)
      .def_property_readonly("num_nodes", &ir::Graph::num_nodes)
      .def_property_readonly("num_operators", &ir::Graph::num_operators)
      .def("op_histogram", &ir::Graph::op_histogram, "Operator name -> count, leaves excluded.")
      .def("nodes", &describe_nodes,
           "The nodes in topological order: dicts with op, outputs, inputs (value names), attrs "
           "and shapes.")
      .def(
          "outputs",
          [](const ir::Graph& graph) {
            std::vector<std::pair<std::string, std::string>> outputs;
            for (const ir::GraphOutput& output : graph.outputs())
              outputs.emplace_back(output.name, graph.value_name(output.value));
            return outputs;
          },
          "(output name, value name) pairs.")
      .def("input", &ir::Graph::add_input, py::arg("name"), py::arg("shape"),
           py::arg("dtype") = ir::DType::F32)
      .def("weight", &ir::Graph::add_weight, py::arg("name"), py::arg("shape"),
           py::arg("dtype") = ir::DType::F32)
      .def(
          "op",
          [](ir::Graph& graph, const std::string& op_name, const std::vector<ir::ValueRef>& inputs,
             const py::dict& attrs) {
            auto kind = ir::find_op(op_name);
            if (!kind) throw Error("unknown operator '" + op_name + "' (see `saturate ops`)");
            ir::Attributes attributes;
            for (const auto& [key, value] : attrs) {
              std::string name = key.cast<std::string>();
              attributes.set(name, to_attribute(ir::op_info(*kind), name, value));
            }
            ir::NodeId id = graph.add_node(*kind, inputs, attributes);
            std::vector<ir::ValueRef> outputs;
            for (uint32_t k = 0; k < graph.node(id).outputs.size(); ++k) outputs.push_back({id, k});
            return outputs;
          },
          py::arg("op"), py::arg("inputs"), py::arg("attrs") = py::dict(),
          "Adds an operator node (shape-checked); returns its output values.")
      .def("output", &ir::Graph::add_output, py::arg("name"), py::arg("value"))
      .def("shape",
           [](const ir::Graph& graph, ir::ValueRef value) { return graph.type(value).dims; })
      .def("to_text", &ir::write_text, "The S-expression text form (.sxp).")
      .def("to_dot", &ir::write_dot, "Graphviz DOT.")
      .def(
          "cost",
          [](const ir::Graph& graph) {
            return cost::graph_cost(graph, cost::AnalyticCostModel()).total;
          },
          "Analytic cost model estimate, milliseconds.")
      .def("__eq__", &ir::Graph::operator==)
      .def("__repr__", [](const ir::Graph& graph) {
        return "<saturate.Graph '" + graph.name() + "': " + std::to_string(graph.num_operators()) +
               " operators>";
      });

  module.def(
      "parse_text", [](const std::string& text) { return ir::parse_text(text); }, py::arg("text"),
      "A graph from its text form.");
  module.def("load", &ir::load_text_file, py::arg("path"), "A graph from a .sxp file.");
  module.def("model", &build_model, py::arg("name"), py::arg("reduced") = false,
             py::arg("layers") = 0, "A bundled benchmark model.");
  module.def(
      "models",
      [] {
        std::vector<std::string> names;
        for (const auto& model : models::all_models()) names.push_back(model.name);
        return names;
      },
      "Names of the bundled models.");
  module.def(
      "compare",
      [](const ir::Graph& reference, const ir::Graph& candidate, uint64_t seed) {
        runtime::GraphComparison result = runtime::compare_graphs(reference, candidate, seed);
        py::dict report;
        report["max_abs_error"] = result.max_abs_error;
        report["max_relative_error"] = result.max_relative_error;
        report["finite"] = result.finite;
        report["worst_output"] = result.worst_output;
        return report;
      },
      py::arg("reference"), py::arg("candidate"), py::arg("seed") = 0,
      "Runs both graphs in the reference interpreter on the same random inputs.");
}

}  // namespace saturate::python
