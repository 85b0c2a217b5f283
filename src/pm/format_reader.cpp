#include "pm/format_reader.h"

#include <bit>
#include <cstring>

#include "ir/op_registry.h"
#include "pm/errors.h"
#include "pm/module_check.h"
#include "pm/recursion_check.h"
#include "support/strings.h"
#include "support/utf8.h"

namespace saturate::pm {

namespace {

class PmbReader {
 public:
  explicit PmbReader(std::string_view bytes) : bytes_(bytes) {}

  Module read() {
    read_header();
    Module module;
    module.source_file = str("the source file name");
    definitions_ = count("definitions", 16);
    module.definitions.reserve(definitions_);
    for (uint32_t d = 0; d < definitions_; ++d) {
      definition_offsets_.push_back(pos_);
      module.definitions.push_back(read_definition());
    }
    uint32_t rules = count("rules", 17);
    for (uint32_t r = 0; r < rules; ++r) module.rules.push_back(read_rule(module));
    if (pos_ != bytes_.size()) {
      fail(pos_, std::to_string(bytes_.size() - pos_) + " trailing bytes after the last rule");
    }
    // Calls may name definitions that come later in the file: check them now.
    for (const PendingCall& call : calls_) {
      if (auto problem = check_call(module.definitions[call.callee], call.arg_kinds)) {
        fail(call.offset, *problem);
      }
    }
    if (auto problem = find_recursion_problem(module)) {
      fail(definition_offsets_[problem->definition],
           "pattern '" + module.definitions[problem->definition].name + "': " + problem->message);
    }
    return module;
  }

 private:
  struct PendingCall {
    size_t offset;
    uint32_t callee;
    std::vector<CallArg::Kind> arg_kinds;
  };

  // Bounds the recursion of the reader (and of everything that walks what it returns).
  class Nesting {
   public:
    Nesting(PmbReader& reader, size_t offset) : reader_(reader) {
      if (++reader_.depth_ > kMaxPmbNesting) {
        reader_.fail(offset, "nesting deeper than " + std::to_string(kMaxPmbNesting) + " levels");
      }
    }
    ~Nesting() { --reader_.depth_; }
    Nesting(const Nesting&) = delete;
    Nesting& operator=(const Nesting&) = delete;

   private:
    PmbReader& reader_;
  };

  [[noreturn]] void fail(size_t offset, const std::string& what) const {
    throw FormatError(offset, what);
  }

  void need(size_t bytes, const char* what) const {
    if (bytes_.size() - pos_ < bytes) {
      fail(pos_, std::string("unexpected end of file reading ") + what + " (" +
                     std::to_string(bytes) + " bytes needed, " +
                     std::to_string(bytes_.size() - pos_) + " left)");
    }
  }

  uint64_t little_endian(size_t bytes, const char* what) {
    need(bytes, what);
    uint64_t value = 0;
    for (size_t i = 0; i < bytes; ++i) {
      value |= uint64_t{static_cast<unsigned char>(bytes_[pos_ + i])} << (8 * i);
    }
    pos_ += bytes;
    return value;
  }

  uint8_t u8(const char* what) { return static_cast<uint8_t>(little_endian(1, what)); }
  uint16_t u16(const char* what) { return static_cast<uint16_t>(little_endian(2, what)); }
  uint32_t u32(const char* what) { return static_cast<uint32_t>(little_endian(4, what)); }
  int64_t i64(const char* what) { return static_cast<int64_t>(little_endian(8, what)); }
  double f64(const char* what) { return std::bit_cast<double>(little_endian(8, what)); }

  bool boolean(const char* what) {
    size_t at = pos_;
    uint8_t value = u8(what);
    if (value > 1) fail(at, std::string(what) + " must be 0 or 1, not " + std::to_string(value));
    return value == 1;
  }

  // A count of items that each take at least `min_bytes`: one that the rest of the file cannot
  // hold is truncation, reported before anything is allocated for it.
  uint32_t count(const char* what, size_t min_bytes) {
    size_t at = pos_;
    uint32_t n = u32(what);
    if (uint64_t{n} * min_bytes > bytes_.size() - pos_) {
      fail(at, std::string("unexpected end of file: ") + std::to_string(n) + " " + what +
                   " cannot fit in the remaining " + std::to_string(bytes_.size() - pos_) +
                   " bytes");
    }
    return n;
  }

  const std::string& str(const char* what) {
    size_t at = pos_;
    uint32_t index = u32(what);
    if (index >= strings_.size()) {
      fail(at, std::string("string index ") + std::to_string(index) + " for " + what +
                   " is out of range (the table has " + std::to_string(strings_.size()) + ")");
    }
    return strings_[index];
  }

  void read_header() {
    need(4, "the magic number");
    if (bytes_.substr(0, 4) != "SPMB") fail(0, "not a PyPM file (the magic \"SPMB\" is missing)");
    pos_ = 4;
    version_ = u16("the version");
    if (version_ != 1 && version_ != 2) {
      fail(4, "unsupported version " + std::to_string(version_) +
                  " (this reader reads versions 1 and 2)");
    }
    uint16_t flags = u16("the flags");
    if (flags != 0) {
      fail(6, "unknown flags " + std::to_string(flags) + " (version " + std::to_string(version_) +
                  " has none)");
    }
    uint32_t n = count("strings", 4);
    strings_.reserve(n);
    for (uint32_t i = 0; i < n; ++i) {
      size_t at = pos_;
      uint32_t length = u32("a string length");
      need(length, "a string");
      std::string_view text = bytes_.substr(pos_, length);
      if (!is_valid_utf8(text)) fail(at, "string " + std::to_string(i) + " is not valid UTF-8");
      strings_.emplace_back(text);
      pos_ += length;
    }
  }

  uint32_t var(const std::vector<Var>& vars, VarUse use, const char* what) {
    size_t at = pos_;
    uint32_t index = u32(what);
    if (auto problem = check_var(vars, index, use)) fail(at, std::string(what) + ": " + *problem);
    return index;
  }

  Definition read_definition() {
    Definition definition;
    definition.name = str("a pattern name");
    definition.line = u32("a line number");
    definition.num_params = u32("a parameter count");
    size_t alternates_at = pos_;
    uint32_t alternates = count("alternates", 13);
    if (alternates == 0) fail(alternates_at, "pattern '" + definition.name + "' has no alternates");
    for (uint32_t a = 0; a < alternates; ++a) {
      size_t at = pos_;
      definition.alternates.push_back(read_alternate());
      if (auto problem = check_parameters(definition, a)) {
        fail(at, "pattern '" + definition.name + "', alternate " + std::to_string(a + 1) + ": " +
                     *problem);
      }
    }
    return definition;
  }

  Alternate read_alternate() {
    Alternate alternate;
    alternate.line = u32("a line number");
    uint32_t vars = count("variables", 5);
    for (uint32_t v = 0; v < vars; ++v) {
      Var var;
      var.name = str("a variable name");
      size_t at = pos_;
      uint8_t kind = u8("a variable kind");
      if (kind > 1) fail(at, "unknown variable kind " + std::to_string(kind));
      var.kind = static_cast<VarKind>(kind);
      alternate.vars.push_back(std::move(var));
    }
    alternate.body = read_pattern(alternate.vars);
    uint32_t constraints = count("constraints", 6);
    for (uint32_t c = 0; c < constraints; ++c) {
      Constraint constraint;
      size_t at = pos_;
      uint8_t tag = u8("a constraint tag");
      constraint.line = u32("a line number");
      if (tag == 0) {
        constraint.tag = Constraint::Tag::Guard;
        constraint.guard = read_expr(alternate.vars);
      } else if (tag == 1) {
        constraint.tag = Constraint::Tag::Match;
        constraint.var = var(alternate.vars, VarUse::TermPattern, "the subject of a match");
        constraint.pattern = read_pattern(alternate.vars);
      } else {
        fail(at, "unknown constraint tag " + std::to_string(tag));
      }
      alternate.constraints.push_back(std::move(constraint));
    }
    return alternate;
  }

  Head read_head(const std::vector<Var>& vars) {
    Head head;
    size_t at = pos_;
    uint8_t tag = u8("a head tag");
    if (tag == 0) {
      head.tag = Head::Tag::Name;
      size_t name_at = pos_;
      const std::string& name = str("an operator name");
      std::optional<ir::OpKind> op = ir::find_op(name);
      if (!op) fail(name_at, "unknown operator '" + name + "'");
      head.op = *op;
    } else if (tag == 1) {
      head.tag = Head::Tag::Var;
      head.var = var(vars, VarUse::OpHead, "an operator variable");
    } else {
      fail(at, "unknown head tag " + std::to_string(tag));
    }
    return head;
  }

  std::vector<AttrExpr> read_attrs(const std::vector<Var>& vars) {
    std::vector<AttrExpr> attrs;
    uint32_t n = count("attributes", 5);
    for (uint32_t i = 0; i < n; ++i) {
      AttrExpr attr;
      attr.name = str("an attribute name");
      attr.value = read_expr(vars);
      attrs.push_back(std::move(attr));
    }
    return attrs;
  }

  Pattern read_pattern(const std::vector<Var>& vars) {
    size_t at = pos_;
    Nesting nesting(*this, at);
    Pattern pattern;
    uint8_t tag = u8("a pattern tag");
    switch (tag) {
      case 0:
        pattern.tag = Pattern::Tag::Var;
        pattern.var = var(vars, VarUse::TermPattern, "a pattern variable");
        break;
      case 1: {
        pattern.tag = Pattern::Tag::App;
        pattern.head = read_head(vars);
        pattern.output_index = u32("an output index");
        uint32_t n = count("inputs", 5);
        for (uint32_t i = 0; i < n; ++i) pattern.args.push_back(read_pattern(vars));
        pattern.attrs = read_attrs(vars);
        if (pattern.head.tag == Head::Tag::Name) {
          if (auto problem = check_application(pattern.head.op, n, pattern.attrs)) {
            fail(at, *problem);
          }
        }
        break;
      }
      case 2:
        pattern.tag = Pattern::Tag::Const;
        pattern.value = f64("a constant");
        break;
      case 3: {
        pattern.tag = Pattern::Tag::Call;
        size_t callee_at = pos_;
        pattern.callee = u32("a definition index");
        if (pattern.callee >= definitions_) {
          fail(callee_at, "call of definition " + std::to_string(pattern.callee) +
                              ", but the file has " + std::to_string(definitions_));
        }
        uint32_t n = count("call arguments", 6);
        PendingCall call{at, pattern.callee, {}};
        for (uint32_t i = 0; i < n; ++i) {
          CallArg arg;
          size_t kind_at = pos_;
          uint8_t kind = u8("a call argument kind");
          if (kind == 0) {
            arg.kind = CallArg::Kind::Pattern;
            arg.pattern = read_pattern(vars);
          } else if (kind == 1) {
            arg.kind = CallArg::Kind::Head;
            arg.head = read_head(vars);
          } else {
            fail(kind_at, "unknown call argument kind " + std::to_string(kind));
          }
          call.arg_kinds.push_back(arg.kind);
          pattern.call_args.push_back(std::move(arg));
        }
        calls_.push_back(std::move(call));
        break;
      }
      case 4: {
        pattern.tag = Pattern::Tag::Alt;
        size_t n_at = pos_;
        uint32_t n = count("choices", 5);
        if (n == 0) fail(n_at, "an inline choice needs at least one option");
        for (uint32_t i = 0; i < n; ++i) pattern.args.push_back(read_pattern(vars));
        break;
      }
      default:
        fail(at, "unknown pattern tag " + std::to_string(tag));
    }
    return pattern;
  }

  Expr read_expr(const std::vector<Var>& vars) {
    size_t at = pos_;
    Nesting nesting(*this, at);
    Expr expr;
    uint8_t tag = u8("an expression tag");
    switch (tag) {
      case 0:
        expr.tag = Expr::Tag::Int;
        expr.int_value = i64("an int");
        break;
      case 1:
        expr.tag = Expr::Tag::Float;
        expr.float_value = f64("a float");
        break;
      case 2:
        expr.tag = Expr::Tag::Bool;
        expr.bool_value = boolean("a bool");
        break;
      case 3:
        expr.tag = Expr::Tag::String;
        expr.text = str("a string literal");
        break;
      case 4: {
        expr.tag = Expr::Tag::Ints;
        uint32_t n = count("list items", 8);
        for (uint32_t i = 0; i < n; ++i) expr.ints.push_back(i64("a list item"));
        break;
      }
      case 5: {
        expr.tag = Expr::Tag::List;
        uint32_t n = count("list expression items", 1);
        for (uint32_t i = 0; i < n; ++i) expr.operands.push_back(read_expr(vars));
        break;
      }
      case 10:
      case 11:
      case 12:
      case 13:
      case 14:
      case 15:
      case 16:
        expr.tag = static_cast<Expr::Tag>(tag);
        expr.var = var(vars, *expr_var_use(expr.tag), "the variable of an expression");
        if (expr.tag == Expr::Tag::Dim) expr.operands.push_back(read_expr(vars));
        if (expr.tag == Expr::Tag::Attr) expr.text = str("an attribute name");
        break;
      case 20:
      case 21:
      case 24:
        expr.tag = static_cast<Expr::Tag>(tag);
        expr.operands.push_back(read_expr(vars));
        break;
      case 22: {
        expr.tag = Expr::Tag::Binary;
        size_t op_at = pos_;
        uint8_t op = u8("a binary operator");
        if (op > kLastBinaryOp) fail(op_at, "unknown binary operator " + std::to_string(op));
        expr.op = static_cast<BinaryOp>(op);
        expr.operands.push_back(read_expr(vars));
        expr.operands.push_back(read_expr(vars));
        break;
      }
      case 23: {
        expr.tag = Expr::Tag::In;
        expr.operands.push_back(read_expr(vars));
        uint32_t n = count("choices of `in`", 1);
        for (uint32_t i = 0; i < n; ++i) expr.operands.push_back(read_expr(vars));
        break;
      }
      default:
        fail(at, "unknown expression tag " + std::to_string(tag));
    }
    return expr;
  }

  Term read_term(const std::vector<Var>& vars) {
    size_t at = pos_;
    Nesting nesting(*this, at);
    Term term;
    uint8_t tag = u8("a term tag");
    switch (tag) {
      case 0:
        term.tag = Term::Tag::Var;
        term.var = var(vars, VarUse::TermPattern, "a term variable");
        break;
      case 1: {
        term.tag = Term::Tag::App;
        term.head = read_head(vars);
        term.output_index = u32("an output index");
        uint32_t n = count("inputs", 5);
        for (uint32_t i = 0; i < n; ++i) term.args.push_back(read_term(vars));
        term.attrs = read_attrs(vars);
        if (term.head.tag == Head::Tag::Name) {
          auto problem = check_application(term.head.op, n, term.attrs);
          if (!problem) problem = check_construction(term.head.op, term.attrs);
          if (problem) fail(at, *problem);
        }
        break;
      }
      case 2:
        term.tag = Term::Tag::Const;
        term.value = f64("a constant");
        break;
      default:
        fail(at, "unknown term tag " + std::to_string(tag));
    }
    return term;
  }

  Rule read_rule(const Module& module) {
    Rule rule;
    rule.name = str("a rule name");
    size_t definition_at = pos_;
    rule.definition = u32("a definition index");
    if (rule.definition >= module.definitions.size()) {
      fail(definition_at, "rule '" + rule.name + "' names definition " +
                              std::to_string(rule.definition) + ", but the file has " +
                              std::to_string(module.definitions.size()));
    }
    const Definition& definition = module.definitions[rule.definition];
    rule.line = u32("a line number");
    uint32_t params = count("rule parameters", 4);
    for (uint32_t i = 0; i < params; ++i) {
      size_t at = pos_;
      uint32_t param = u32("a rule parameter");
      if (param >= definition.num_params) {
        fail(at, "rule '" + rule.name + "' names parameter " + std::to_string(param) + " of '" +
                     definition.name + "', which has " + std::to_string(definition.num_params));
      }
      rule.params.push_back(param);
    }
    std::vector<Var> vars = module.rule_variables(rule);
    uint32_t guards = count("rule guards", 1);
    for (uint32_t i = 0; i < guards; ++i) rule.guards.push_back(read_expr(vars));
    rule.replacement = read_term(vars);
    if (version_ >= 2) {
      uint32_t further = count("further replacements", 5);
      for (uint32_t i = 0; i < further; ++i) {
        size_t at = pos_;
        FurtherReplacement replacement;
        replacement.var = u32("a replaced variable");
        if (replacement.var >= vars.size() || vars[replacement.var].kind != VarKind::Term) {
          fail(at, "rule '" + rule.name + "' also replaces variable " +
                       std::to_string(replacement.var) + ", which is not a term variable of it");
        }
        replacement.term = read_term(vars);
        rule.also.push_back(std::move(replacement));
      }
    }
    return rule;
  }

  std::string_view bytes_;
  size_t pos_ = 0;
  uint16_t version_ = 1;
  std::vector<std::string> strings_;
  uint32_t definitions_ = 0;
  std::vector<size_t> definition_offsets_;
  std::vector<PendingCall> calls_;
  int depth_ = 0;
};

}  // namespace

Module read_pmb(std::string_view bytes) {
  return PmbReader(bytes).read();
}

Module load_pmb(const std::string& path) {
  std::string bytes = read_file(path);
  try {
    return read_pmb(bytes);
  } catch (const FormatError& error) {
    throw FormatError(error.offset(), error.detail(), path);
  }
}

}  // namespace saturate::pm
