#include "pm/format_writer.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <unordered_map>

#include "ir/op_registry.h"
#include "support/atomic_file.h"
#include "support/strings.h"

namespace saturate::pm {

namespace {

class PmbWriter {
 public:
  std::string write(const Module& module) {
    // Version 2 only where a rule replaces further values, so that other files keep the bytes
    // (and the readers) of version 1.
    further_ = std::ranges::any_of(module.rules, [](const Rule& r) { return !r.also.empty(); });
    str(module.source_file);
    u32(module.definitions.size());
    for (const Definition& definition : module.definitions) write(definition);
    u32(module.rules.size());
    for (const Rule& rule : module.rules) write(rule);

    std::string file = "SPMB";
    append_le(file, further_ ? uint16_t{2} : uint16_t{1}, 2);  // version
    append_le(file, uint16_t{0}, 2);                           // flags
    append_le(file, strings_.size(), 4);
    for (const std::string& text : strings_) {
      append_le(file, text.size(), 4);
      file += text;
    }
    return file + body_;
  }

 private:
  static void append_le(std::string& out, uint64_t value, int bytes) {
    for (int i = 0; i < bytes; ++i) out.push_back(static_cast<char>((value >> (8 * i)) & 0xff));
  }

  void u8(uint64_t value) { append_le(body_, value, 1); }
  void u32(uint64_t value) { append_le(body_, value, 4); }
  void i64(int64_t value) { append_le(body_, static_cast<uint64_t>(value), 8); }
  void f64(double value) { append_le(body_, std::bit_cast<uint64_t>(value), 8); }

  void str(const std::string& text) {
    auto [it, inserted] = string_ids_.emplace(text, strings_.size());
    if (inserted) strings_.push_back(text);
    u32(it->second);
  }

  void write(const Definition& definition) {
    str(definition.name);
    u32(definition.line);
    u32(definition.num_params);
    u32(definition.alternates.size());
    for (const Alternate& alternate : definition.alternates) {
      u32(alternate.line);
      u32(alternate.vars.size());
      for (const Var& var : alternate.vars) {
        str(var.name);
        u8(static_cast<uint8_t>(var.kind));
      }
      write(alternate.body);
      u32(alternate.constraints.size());
      for (const Constraint& constraint : alternate.constraints) {
        u8(static_cast<uint8_t>(constraint.tag));
        u32(constraint.line);
        if (constraint.tag == Constraint::Tag::Guard) {
          write(constraint.guard);
        } else {
          u32(constraint.var);
          write(constraint.pattern);
        }
      }
    }
  }

  void write(const Head& head) {
    u8(static_cast<uint8_t>(head.tag));
    if (head.tag == Head::Tag::Name) {
      str(ir::op_info(head.op).name);
    } else {
      u32(head.var);
    }
  }

  void write_attrs(const std::vector<AttrExpr>& attrs) {
    u32(attrs.size());
    for (const AttrExpr& attr : attrs) {
      str(attr.name);
      write(attr.value);
    }
  }

  void write(const Pattern& pattern) {
    u8(static_cast<uint8_t>(pattern.tag));
    switch (pattern.tag) {
      case Pattern::Tag::Var:
        u32(pattern.var);
        return;
      case Pattern::Tag::App:
        write(pattern.head);
        u32(pattern.output_index);
        u32(pattern.args.size());
        for (const Pattern& arg : pattern.args) write(arg);
        write_attrs(pattern.attrs);
        return;
      case Pattern::Tag::Const:
        f64(pattern.value);
        return;
      case Pattern::Tag::Call:
        u32(pattern.callee);
        u32(pattern.call_args.size());
        for (const CallArg& arg : pattern.call_args) {
          u8(static_cast<uint8_t>(arg.kind));
          if (arg.kind == CallArg::Kind::Head) {
            write(arg.head);
          } else {
            write(arg.pattern);
          }
        }
        return;
      case Pattern::Tag::Alt:
        u32(pattern.args.size());
        for (const Pattern& option : pattern.args) write(option);
        return;
    }
  }

  void write(const Expr& expr) {
    u8(static_cast<uint8_t>(expr.tag));
    switch (expr.tag) {
      case Expr::Tag::Int:
        i64(expr.int_value);
        return;
      case Expr::Tag::Float:
        f64(expr.float_value);
        return;
      case Expr::Tag::Bool:
        u8(expr.bool_value ? 1 : 0);
        return;
      case Expr::Tag::String:
        str(expr.text);
        return;
      case Expr::Tag::Ints:
        u32(expr.ints.size());
        for (int64_t value : expr.ints) i64(value);
        return;
      case Expr::Tag::List:
        u32(expr.operands.size());
        for (const Expr& item : expr.operands) write(item);
        return;
      case Expr::Tag::Rank:
      case Expr::Tag::Numel:
      case Expr::Tag::DType:
      case Expr::Tag::OpName:
      case Expr::Tag::Shape:
        u32(expr.var);
        return;
      case Expr::Tag::Dim:
        u32(expr.var);
        write(expr.operands.at(0));
        return;
      case Expr::Tag::Attr:
        u32(expr.var);
        str(expr.text);
        return;
      case Expr::Tag::Not:
      case Expr::Tag::Proven:
      case Expr::Tag::Neg:
        write(expr.operands.at(0));
        return;
      case Expr::Tag::Binary:
        u8(static_cast<uint8_t>(expr.op));
        write(expr.operands.at(0));
        write(expr.operands.at(1));
        return;
      case Expr::Tag::In:
        write(expr.operands.at(0));
        u32(expr.operands.size() - 1);
        for (size_t i = 1; i < expr.operands.size(); ++i) write(expr.operands[i]);
        return;
    }
  }

  void write(const Term& term) {
    u8(static_cast<uint8_t>(term.tag));
    switch (term.tag) {
      case Term::Tag::Var:
        u32(term.var);
        return;
      case Term::Tag::App:
        write(term.head);
        u32(term.output_index);
        u32(term.args.size());
        for (const Term& arg : term.args) write(arg);
        write_attrs(term.attrs);
        return;
      case Term::Tag::Const:
        f64(term.value);
        return;
    }
  }

  void write(const Rule& rule) {
    str(rule.name);
    u32(rule.definition);
    u32(rule.line);
    u32(rule.params.size());
    for (uint32_t param : rule.params) u32(param);
    u32(rule.guards.size());
    for (const Expr& guard : rule.guards) write(guard);
    write(rule.replacement);
    if (!further_) return;
    u32(rule.also.size());
    for (const FurtherReplacement& replacement : rule.also) {
      u32(replacement.var);
      write(replacement.term);
    }
  }

  bool further_ = false;  // version 2: rules carry their further replacements
  std::string body_;
  std::vector<std::string> strings_;
  std::unordered_map<std::string, size_t> string_ids_;
};

}  // namespace

std::string write_pmb(const Module& module) {
  return PmbWriter().write(module);
}

void save_pmb(const std::string& path, const Module& module) {
  write_file_atomically(path, write_pmb(module));
}

}  // namespace saturate::pm
