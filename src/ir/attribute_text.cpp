#include "ir/attribute_text.h"

#include "ir/symbolic_dim.h"
#include "support/strings.h"

namespace saturate::ir {
namespace {

[[noreturn]] void fail(const SExpr& where, const AttrSpec& spec, const std::string& expected) {
  throw ParseError(where.location, "attribute :" + spec.name + " expects " + expected + ", got " +
                                       where.describe());
}

int64_t expect_int(const SExpr& item, const AttrSpec& spec) {
  auto value = item.kind == SExpr::Kind::Symbol ? parse_int(item.text) : std::nullopt;
  if (!value) fail(item, spec, "an integer");
  return *value;
}

// A dimension of a shape: an integer, or a symbolic dim as dim_to_string writes it ("batch",
// "batch*sequence", "past_sequence_length+sequence"). Only shapes hold symbolic dims; the other
// integer lists (permutations, axes, pads, split sizes) take integers.
int64_t expect_dim(const SExpr& item, const AttrSpec& spec) {
  if (item.kind == SExpr::Kind::Symbol) {
    if (auto value = parse_int(item.text)) return *value;
  }
  auto value = item.is_atom() ? parse_dim(item.text) : std::nullopt;
  if (!value) fail(item, spec, "an integer or a symbolic dimension");
  return *value;
}

// An enumeration given by name or by code; `parse` maps names, `count` bounds the codes.
template <typename Parse>
int64_t expect_enum(const SExpr& item, const AttrSpec& spec, Parse parse, int64_t count,
                    const std::string& expected) {
  if (item.kind == SExpr::Kind::Symbol) {
    if (auto named = parse(item.text)) return static_cast<int64_t>(*named);
    if (auto code = parse_int(item.text); code && *code >= 0 && *code < count) return *code;
  }
  fail(item, spec, expected);
}

}  // namespace

std::string write_name(std::string_view name) {
  if (!name.empty() && name.front() == ':') return "\"" + std::string(name) + "\"";
  return quote_atom(name);
}

std::string write_attribute(const AttrValue& value, AttrKind kind) {
  switch (kind) {
    case AttrKind::Int:
      return std::to_string(std::get<int64_t>(value));
    case AttrKind::Ints: {
      // A symbolic dim (a shape's) is written as its expression without spaces, quoted where
      // it is no plain symbol ("(sequence)/2").
      std::string text;
      for (int64_t item : std::get<std::vector<int64_t>>(value)) {
        text += (text.empty() ? "" : " ") + quote_atom(dim_text(item));
      }
      return "[" + text + "]";
    }
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

AttrValue parse_attribute(const SExpr& expr, const AttrSpec& spec) {
  switch (spec.kind) {
    case AttrKind::Int:
      return expect_int(expr, spec);
    case AttrKind::Ints: {
      std::vector<int64_t> values;
      if (expr.kind == SExpr::Kind::Vector) {
        for (const auto& item : expr.items) {
          values.push_back(spec.name == "shape" ? expect_dim(item, spec) : expect_int(item, spec));
        }
        return values;
      }
      if (expr.kind == SExpr::Kind::Symbol && expr.text.find('_') != std::string::npos) {
        // TENSAT writes permutations and shapes as "1_0_2".
        size_t start = 0;
        while (start <= expr.text.size()) {
          size_t end = expr.text.find('_', start);
          if (end == std::string::npos) end = expr.text.size();
          auto value = parse_int(std::string_view(expr.text).substr(start, end - start));
          if (!value) fail(expr, spec, "a [...] list of integers");
          values.push_back(*value);
          start = end + 1;
        }
        return values;
      }
      fail(expr, spec, "a [...] list of integers");
    }
    case AttrKind::Float: {
      auto value = expr.kind == SExpr::Kind::Symbol ? parse_double(expr.text) : std::nullopt;
      if (!value) fail(expr, spec, "a number");
      return *value;
    }
    case AttrKind::String:
      if (!expr.is_atom()) fail(expr, spec, "a name");
      return expr.text;
    case AttrKind::Activation:
      return expect_enum(expr, spec, parse_activation,
                         static_cast<int64_t>(std::size(kActivations)),
                         "none, sigmoid, relu, tanh, clip, leaky_relu or hard_sigmoid (or 0..6)");
    case AttrKind::Padding:
      return expect_enum(expr, spec, parse_padding, 2, "same or valid (or 0..1)");
  }
  fail(expr, spec, "a value");
}

}  // namespace saturate::ir
