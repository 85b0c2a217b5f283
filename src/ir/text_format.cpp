#include "ir/text_format.h"

#include "ir/attribute_text.h"
#include "ir/op_registry.h"
#include "support/sexpr.h"
#include "support/strings.h"

namespace saturate::ir {
namespace {

[[noreturn]] void fail(const SExpr& where, const std::string& message) {
  throw ParseError(where.location, message);
}

void parse_node(const SExpr& form, Graph& graph) {
  if (form.items.size() != 3) fail(form, "expected (node NAME (OP ARGS...))");
  std::vector<std::string> names;
  const SExpr& name_form = form.items[1];
  if (name_form.is_atom()) {
    names.push_back(name_form.text);
  } else if (name_form.kind == SExpr::Kind::List && !name_form.items.empty()) {
    for (const auto& item : name_form.items) {
      if (!item.is_atom()) fail(item, "output names must be names, got " + item.describe());
      names.push_back(item.text);
    }
  } else {
    fail(name_form, "expected a node name or a list of output names");
  }

  const SExpr& op_form = form.items[2];
  if (op_form.kind != SExpr::Kind::List || op_form.items.empty() ||
      op_form.items[0].kind != SExpr::Kind::Symbol) {
    fail(op_form, "expected (OP INPUTS... :ATTRIBUTE VALUE...)");
  }
  auto op = find_op(op_form.items[0].text);
  if (!op) fail(op_form.items[0], "unknown operator '" + op_form.items[0].text + "'");
  const OpInfo& info = op_info(*op);

  std::vector<ValueRef> inputs;
  Attributes attrs;
  for (size_t i = 1; i < op_form.items.size(); ++i) {
    const SExpr& item = op_form.items[i];
    if (item.kind == SExpr::Kind::Symbol && item.text.size() > 1 && item.text[0] == ':') {
      std::string key = item.text.substr(1);
      const AttrSpec* spec = info.find_attribute(key);
      if (spec == nullptr) fail(item, "operator '" + info.name + "' has no attribute :" + key);
      if (attrs.has(key)) fail(item, "attribute :" + key + " is given twice");
      if (i + 1 >= op_form.items.size()) fail(item, "attribute :" + key + " has no value");
      attrs.set(key, parse_attribute(op_form.items[++i], *spec));
    } else if (item.is_atom()) {
      auto value = graph.find_value(item.text);
      if (!value) fail(item, "'" + item.text + "' is not defined before this node");
      inputs.push_back(*value);
    } else {
      fail(item, "expected an input name or :attribute, got " + item.describe());
    }
  }
  try {
    graph.add_node(*op, std::move(inputs), attrs, std::move(names));
  } catch (const ParseError&) {
    throw;
  } catch (const Error& error) {
    throw ParseError(form.location, error.what());
  }
}

}  // namespace

std::string write_text(const Graph& graph) {
  std::string text = "(graph " + write_name(graph.name()) + "\n";
  for (const Node& node : graph.nodes()) {
    const OpInfo& info = op_info(node.op);
    text += "  (node ";
    if (node.output_names.size() == 1) {
      text += write_name(node.name());
    } else {
      text += "(" + join(node.output_names, " ", write_name) + ")";
    }
    text += " (" + info.name;
    for (const ValueRef& input : node.inputs) text += " " + write_name(graph.value_name(input));
    for (const AttrSpec& spec : info.attributes) {
      const AttrValue* value = node.attrs.find(spec.name);
      if (value == nullptr || (spec.default_value && *spec.default_value == *value)) continue;
      text += " :" + spec.name + " " + write_attribute(*value, spec.kind);
    }
    text += "))\n";
  }
  for (const GraphOutput& output : graph.outputs()) {
    text += "  (output " + write_name(output.name) + " " +
            write_name(graph.value_name(output.value)) + ")\n";
  }
  text += ")\n";
  return text;
}

Graph parse_text(std::string_view text, const std::string& file) {
  std::vector<SExpr> forms = parse_sexprs(text, file);
  if (forms.size() != 1 || forms[0].kind != SExpr::Kind::List || forms[0].items.empty() ||
      !forms[0].items[0].is_symbol("graph")) {
    SourceLocation where = forms.empty() ? SourceLocation{file, 1, 1} : forms[0].location;
    throw ParseError(where, "expected exactly one (graph NAME ...) form");
  }
  const SExpr& top = forms[0];
  if (top.items.size() < 2 || !top.items[1].is_atom()) fail(top, "expected (graph NAME ...)");
  Graph graph(top.items[1].text);
  for (size_t i = 2; i < top.items.size(); ++i) {
    const SExpr& form = top.items[i];
    if (form.kind != SExpr::Kind::List || form.items.empty()) {
      fail(form, "expected (node ...) or (output ...), got " + form.describe());
    }
    if (form.items[0].is_symbol("node")) {
      parse_node(form, graph);
    } else if (form.items[0].is_symbol("output")) {
      if (form.items.size() != 3 || !form.items[1].is_atom() || !form.items[2].is_atom()) {
        fail(form, "expected (output NAME VALUE)");
      }
      auto value = graph.find_value(form.items[2].text);
      if (!value) fail(form.items[2], "'" + form.items[2].text + "' is not defined");
      try {
        graph.add_output(form.items[1].text, *value);
      } catch (const Error& error) {
        throw ParseError(form.location, error.what());
      }
    } else {
      fail(form.items[0], "expected node or output, got " + form.items[0].describe());
    }
  }
  return graph;
}

Graph load_text_file(const std::string& path) {
  return parse_text(read_file(path), path);
}

}  // namespace saturate::ir
