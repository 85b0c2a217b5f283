#pragma once

// The PyPM core calculus (docs/PYPM.md §2) as plain data: what the .pmb reader produces, what
// the matchers interpret and what the writer serializes. Patterns are trees; variables are
// indices into the enclosing alternate's (or rule's) variable list. A Module straight from
// read_pmb() or one that passed check_module() satisfies every invariant the matchers rely on.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ir/op_kind.h"

namespace saturate::pm {

enum class VarKind : uint8_t { Term = 0, Op = 1 };

struct Var {
  std::string name;
  VarKind kind = VarKind::Term;
  bool operator==(const Var&) const = default;
};

enum class BinaryOp : uint8_t {
  Add = 0,
  Sub = 1,
  Mul = 2,
  Div = 3,
  FloorDiv = 4,
  Mod = 5,
  Eq = 6,
  Ne = 7,
  Lt = 8,
  Le = 9,
  Gt = 10,
  Ge = 11,
  And = 12,
  Or = 13,
};
inline constexpr uint8_t kLastBinaryOp = static_cast<uint8_t>(BinaryOp::Or);

// A guard or attribute expression. One struct for every tag keeps the tree simple; each tag
// uses the fields its comment names.
struct Expr {
  enum class Tag : uint8_t {
    Int = 0,      // int_value
    Float = 1,    // float_value
    Bool = 2,     // bool_value
    String = 3,   // text
    Ints = 4,     // ints
    List = 5,     // operands: int expressions, a list of ints (a shape built from dims)
    Rank = 10,    // var (term)
    Dim = 11,     // var (term), operands[0] = index
    Numel = 12,   // var (term)
    DType = 13,   // var (term)
    OpName = 14,  // var (term or op)
    Attr = 15,    // var (term or op), text = attribute name
    Shape = 16,   // var (term)
    Not = 20,     // operands[0]
    Neg = 21,     // operands[0]
    Binary = 22,  // op, operands = {lhs, rhs}
    In = 23,      // operands[0] in operands[1..]
    Proven = 24,  // operands[0]: true where it holds at every size, else false (never undecided)
  };

  Tag tag = Tag::Bool;
  int64_t int_value = 0;
  double float_value = 0;
  bool bool_value = false;
  std::string text;
  std::vector<int64_t> ints;
  uint32_t var = 0;
  BinaryOp op = BinaryOp::Add;
  std::vector<Expr> operands;

  bool operator==(const Expr&) const = default;
};

// `name = value` on an application: an equality constraint in a pattern, a setting in a rule.
struct AttrExpr {
  std::string name;
  Expr value;
  bool operator==(const AttrExpr&) const = default;
};

// The operator position of an application: a fixed operator or an operator variable.
struct Head {
  enum class Tag : uint8_t { Name = 0, Var = 1 };
  Tag tag = Tag::Name;
  ir::OpKind op = ir::OpKind::Input;  // Name
  uint32_t var = 0;                   // Var: an op variable

  bool operator==(const Head&) const = default;
};

struct CallArg;

struct Pattern {
  enum class Tag : uint8_t { Var = 0, App = 1, Const = 2, Call = 3, Alt = 4 };

  Tag tag = Tag::Var;
  uint32_t var = 0;                // Var: a term variable
  Head head;                       // App
  uint32_t output_index = 0;       // App
  std::vector<Pattern> args;       // App: one per input; Alt: the options, in order
  std::vector<AttrExpr> attrs;     // App
  double value = 0;                // Const
  uint32_t callee = 0;             // Call: a definition index
  std::vector<CallArg> call_args;  // Call: one per callee parameter

  bool operator==(const Pattern&) const = default;
};

// An argument of a call: a pattern for a term parameter, a head for an op parameter.
struct CallArg {
  enum class Kind : uint8_t { Pattern = 0, Head = 1 };
  Kind kind = Kind::Pattern;
  Pattern pattern;
  Head head;

  bool operator==(const CallArg&) const = default;
};

struct Constraint {
  enum class Tag : uint8_t { Guard = 0, Match = 1 };
  Tag tag = Tag::Guard;
  uint32_t line = 0;
  Expr guard;        // Guard
  uint32_t var = 0;  // Match: var <= pattern
  Pattern pattern;   // Match

  bool operator==(const Constraint&) const = default;
};

struct Alternate {
  uint32_t line = 0;
  std::vector<Var> vars;  // the definition's parameters first, then locals
  Pattern body;
  std::vector<Constraint> constraints;

  bool operator==(const Alternate&) const = default;
};

struct Definition {
  std::string name;
  uint32_t line = 0;
  uint32_t num_params = 0;
  std::vector<Alternate> alternates;  // never empty in a checked module

  // Parameter kinds agree in every alternate of a checked module; the first one is canonical.
  const Var& param(size_t i) const { return alternates.front().vars[i]; }
  bool operator==(const Definition&) const = default;
};

// Replacement terms: variables are indices into the rule's parameter list.
struct Term {
  enum class Tag : uint8_t { Var = 0, App = 1, Const = 2 };

  Tag tag = Tag::Var;
  uint32_t var = 0;             // Var
  Head head;                    // App
  uint32_t output_index = 0;    // App
  std::vector<Term> args;       // App
  std::vector<AttrExpr> attrs;  // App
  double value = 0;             // Const

  bool operator==(const Term&) const = default;
};

// A further value a rule replaces besides the matched root: the value bound to rule variable
// `var` (a term variable) becomes `term`. A fused kernel that also computes a value the pattern
// went through (a pre-norm block's residual sum) replaces it with its second output.
struct FurtherReplacement {
  uint32_t var = 0;
  Term term;

  bool operator==(const FurtherReplacement&) const = default;
};

struct Rule {
  std::string name;
  uint32_t definition = 0;
  uint32_t line = 0;
  std::vector<uint32_t> params;  // rule variable i is parameter params[i] of the definition
  std::vector<Expr> guards;
  Term replacement;
  std::vector<FurtherReplacement> also;  // .pmb version 2

  bool operator==(const Rule&) const = default;
};

struct Module {
  std::string source_file;
  std::vector<Definition> definitions;
  std::vector<Rule> rules;

  std::optional<uint32_t> find_definition(std::string_view name) const;
  // The rule's variables (names and kinds taken from the definition's parameters).
  std::vector<Var> rule_variables(const Rule& rule) const;
  // Whether some rule is attached to the definition.
  bool has_rules(uint32_t definition) const;

  bool operator==(const Module&) const = default;
};

}  // namespace saturate::pm
