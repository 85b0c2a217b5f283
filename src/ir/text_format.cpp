#include "ir/text_format.h"

#include "ir/op_registry.h"
#include "ir/sexpr.h"
#include "support/strings.h"

namespace saturate::ir {
namespace {

std::string write_name(std::string_view name) {
  if (!name.empty() && name.front() == ':') return "\"" + std::string(name) + "\"";
  return quote_atom(name);
}

std::string write_value(const AttrValue& value, AttrKind kind) {
  switch (kind) {
    case AttrKind::Int:
      return std::to_string(std::get<int64_t>(value));
    case AttrKind::Ints:
      return "[" + join_ints(std::get<std::vector<int64_t>>(value), " ") + "]";
    case AttrKind::Float:
      return format_double(std::get<double>(value));
    case AttrKind::String:
      return write_name(std::get<std::string>(value));
    case AttrKind::Activation:
      return std::string(to_string(static_cast<Activation>(std::get<int64_t>(value))));
    case AttrKind::Padding:
      return std::string(to_string(static_cast<Padding>(std::get<int64_t>(value))));
  }
  return "?";
}

[[noreturn]] void fail(const SExpr& where, const std::string& message) {
  throw ParseError(where.location, message);
}

AttrValue parse_value(const SExpr& expr, const AttrSpec& spec) {
  auto expect_int = [&](const SExpr& item) -> int64_t {
    auto value = item.kind == SExpr::Kind::Symbol ? parse_int(item.text) : std::nullopt;
    if (!value) fail(item, "attribute :" + spec.name + " expects an integer, got " + item.describe());
    return *value;
  };
  switch (spec.kind) {
    case AttrKind::Int:
      return expect_int(expr);
    case AttrKind::Ints: {
      if (expr.kind != SExpr::Kind::Vector) {
        fail(expr, "attribute :" + spec.name + " expects a [...] list of integers, got " +
                       expr.describe());
      }
      std::vector<int64_t> values;
      for (const auto& item : expr.items) values.push_back(expect_int(item));
      return values;
    }
    case AttrKind::Float: {
      auto value = expr.kind == SExpr::Kind::Symbol ? parse_double(expr.text) : std::nullopt;
      if (!value) fail(expr, "attribute :" + spec.name + " expects a number, got " + expr.describe());
      return *value;
    }
    case AttrKind::String:
      if (!expr.is_atom()) fail(expr, "attribute :" + spec.name + " expects a name");
      return expr.text;
    case AttrKind::Activation: {
      auto value = expr.kind == SExpr::Kind::Symbol ? parse_activation(expr.text) : std::nullopt;
      if (!value) {
        fail(expr, "attribute :" + spec.name + " expects none, sigmoid, relu or tanh, got " +
                       expr.describe());
      }
      return static_cast<int64_t>(*value);
    }
    case AttrKind::Padding: {
      auto value = expr.kind == SExpr::Kind::Symbol ? parse_padding(expr.text) : std::nullopt;
      if (!value) {
        fail(expr, "attribute :" + spec.name + " expects same or valid, got " + expr.describe());
      }
      return static_cast<int64_t>(*value);
    }
  }
  fail(expr, "unsupported attribute kind");
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
      attrs.set(key, parse_value(op_form.items[++i], *spec));
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
      text += " :" + spec.name + " " + write_value(*value, spec.kind);
    }
    text += "))\n";
  }
  for (const GraphOutput& output : graph.outputs()) {
    text += "  (output " + write_name(output.name) + " " + write_name(graph.value_name(output.value)) +
            ")\n";
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

Graph load_text_file(const std::string& path) { return parse_text(read_file(path), path); }

}  // namespace saturate::ir
