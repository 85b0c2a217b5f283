// The soundness property of docs/PYPM.md §2 on random modules and graphs: at every value, the
// algorithmic matcher finds a match iff the declarative one does, its first match is among the
// declarative matches, and (stronger) the set of all its matches equals the declarative set.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>

#include "ir/graph_builder.h"
#include "pm/builder.h"
#include "pm/declarative_matcher.h"
#include "pm/errors.h"
#include "pm/format_reader.h"
#include "pm/format_writer.h"
#include "pm/graph_view.h"
#include "pm/matcher.h"
#include "pm/module_check.h"

using namespace saturate;
using namespace saturate::pm;
using namespace saturate::pm::build;

namespace {

const std::vector<std::string> kUnary = {"relu", "tanh", "sigmoid"};
const std::vector<std::string> kBinary = {"ewadd", "ewmul", "add", "mul", "matmul"};

class Random {
 public:
  explicit Random(uint32_t seed) : engine_(seed) {}
  size_t below(size_t n) { return std::uniform_int_distribution<size_t>(0, n - 1)(engine_); }
  bool chance(double p) { return std::bernoulli_distribution(p)(engine_); }
  template <class T>
  const T& pick(const std::vector<T>& items) {
    return items[below(items.size())];
  }

 private:
  std::mt19937 engine_;
};

// Small graphs over 4x4 values (plus a [4] vector and two scalar constants for broadcasting
// operators), with shared inputs so that nonlinear patterns have something to find.
ir::Graph random_graph(Random& random) {
  ir::GraphBuilder b("random");
  std::vector<ir::ValueRef> square = {b.input("a", {4, 4}), b.input("b", {4, 4})};
  std::vector<ir::ValueRef> broadcastable = {b.input("v", {4}), b.constant(2.0), b.constant(0.5)};
  size_t operators = 3 + random.below(8);
  for (size_t i = 0; i < operators; ++i) {
    // Prefer recent values: deeper graphs.
    auto recent = [&] {
      size_t n = square.size();
      return random.chance(0.6) ? square[n - 1 - random.below(std::min<size_t>(n, 3))]
                                : random.pick(square);
    };
    ir::ValueRef x = recent();
    ir::ValueRef result;
    if (random.chance(0.45)) {
      std::string op = random.pick(kUnary);
      result = b.apply(*ir::find_op(op), {x});
    } else {
      // Matmuls with either activation give op variables attributes to disagree on.
      std::string op = random.chance(0.35) ? "matmul" : random.pick(kBinary);
      ir::ValueRef y = random.chance(0.3) ? x : recent();
      if ((op == "add" || op == "mul") && random.chance(0.4)) y = random.pick(broadcastable);
      ir::Attributes attrs;
      if (op == "matmul" && random.chance(0.5)) attrs.set("activation", int64_t{2});
      result = b.apply(*ir::find_op(op), {x, y}, attrs);
    }
    square.push_back(result);
  }
  b.output("y", square.back());
  return std::move(b).finish();
}

// Random modules: a few definitions with alternates, nonlinear variables, op variables, calls
// (to earlier definitions, and recursive calls below an application with a base case), inline
// choices, match constraints and guards on variables that are surely bound by then.
class ModuleGenerator {
 public:
  explicit ModuleGenerator(Random& random) : random_(random) {}

  Module generate() {
    Module module;
    module.source_file = "random.py";
    size_t definitions = 1 + random_.below(3);
    for (size_t d = 0; d < definitions; ++d) {
      module_ = &module;
      current_ = static_cast<uint32_t>(d);
      Definition definition;
      definition.name = "P" + std::to_string(d);
      definition.line = static_cast<uint32_t>(10 * d + 1);
      std::vector<Var> params;
      size_t term_params = 1 + random_.below(2);
      for (size_t i = 0; i < term_params; ++i) params.push_back(term("x" + std::to_string(i)));
      if (random_.chance(0.35)) params.push_back(op("f"));
      definition.num_params = static_cast<uint32_t>(params.size());
      // Recursive calls need the parameter kinds before the alternates exist.
      module.definitions.push_back(definition);
      module.definitions.back().alternates.push_back(alternate(params, v(0)));
      size_t alternates = 1 + random_.below(3);
      std::vector<Alternate> generated;
      for (size_t a = 0; a < alternates; ++a) {
        generated.push_back(generate_alternate(params, static_cast<uint32_t>(10 * d + 2 + a)));
      }
      module.definitions.back().alternates = std::move(generated);
    }
    return module;
  }

 private:
  using VarSet = std::set<uint32_t>;

  Alternate generate_alternate(std::vector<Var> vars, uint32_t line) {
    size_t locals = random_.below(3);
    for (size_t i = 0; i < locals; ++i) vars.push_back(term("l" + std::to_string(i)));
    if (random_.chance(0.2)) vars.push_back(op("g"));
    vars_ = &vars;
    Alternate alt;
    alt.line = line;
    VarSet bound;
    alt.body = pattern(0, /*consumed=*/false, bound);
    size_t constraints = random_.below(3);
    for (size_t c = 0; c < constraints; ++c) {
      std::vector<uint32_t> terms;
      for (uint32_t v : bound) {
        if (vars[v].kind == VarKind::Term) terms.push_back(v);
      }
      if (!terms.empty() && random_.chance(0.5)) {
        uint32_t subject = random_.pick(terms);
        // The subject may be the root: keep calls out of it so that no left recursion arises.
        no_calls_ = true;
        Pattern p = pattern(1, false, bound);
        no_calls_ = false;
        alt.constraints.push_back(match(subject, std::move(p), line));
      } else if (!bound.empty()) {
        alt.constraints.push_back(guard(guard_expr(bound), line));
      }
    }
    alt.vars = std::move(vars);
    return alt;
  }

  uint32_t any_var(VarKind kind) {
    std::vector<uint32_t> candidates;
    for (uint32_t v = 0; v < vars_->size(); ++v) {
      if ((*vars_)[v].kind == kind) candidates.push_back(v);
    }
    return candidates.empty() ? UINT32_MAX : random_.pick(candidates);
  }

  Head head(size_t arity, VarSet& bound) {
    uint32_t op_var = any_var(VarKind::Op);
    if (op_var != UINT32_MAX && random_.chance(0.5)) {
      bound.insert(op_var);
      return head_var(op_var);
    }
    return build::head(arity == 1 ? random_.pick(kUnary) : random_.pick(kBinary));
  }

  // `bound` collects the variables this pattern surely binds when it matches.
  Pattern pattern(int depth, bool consumed, VarSet& bound) {
    size_t choice = depth >= 3 ? 0 : random_.below(10);
    if (choice <= 2) {
      uint32_t x = any_var(VarKind::Term);
      bound.insert(x);
      return v(x);
    }
    if (choice <= 5) {
      size_t arity = 1 + random_.below(2);
      Head h = head(arity, bound);
      std::vector<Pattern> args;
      for (size_t i = 0; i < arity; ++i) args.push_back(pattern(depth + 1, true, bound));
      std::vector<AttrExpr> attrs;
      if (h.tag == Head::Tag::Name && h.op == ir::OpKind::MatMul && random_.chance(0.3)) {
        attrs.push_back({"activation", text(random_.chance(0.5) ? "relu" : "none")});
      }
      return app(h, std::move(args), std::move(attrs));
    }
    if (choice == 6) return constant(random_.chance(0.5) ? 2.0 : 0.5);
    if (choice == 7 && !no_calls_) {
      // Earlier definitions anywhere; this one only below an application (no left recursion).
      std::vector<uint32_t> callees;
      for (uint32_t d = 0; d < current_; ++d) callees.push_back(d);
      if (consumed) callees.push_back(current_);
      if (!callees.empty()) return call_of(random_.pick(callees), depth, bound);
    }
    // An inline choice: only what every option binds is surely bound.
    VarSet left = bound;
    VarSet right = bound;
    Pattern first = pattern(depth + 1, consumed, left);
    Pattern second = pattern(depth + 1, consumed, right);
    for (uint32_t x : left) {
      if (right.contains(x)) bound.insert(x);
    }
    return alt({std::move(first), std::move(second)});
  }

  Pattern call_of(uint32_t callee, int depth, VarSet& bound) {
    const Definition& definition = module_->definitions[callee];
    std::vector<CallArg> args;
    for (uint32_t p = 0; p < definition.num_params; ++p) {
      if (definition.param(p).kind == VarKind::Op) {
        args.push_back(arg(head(1, bound)));
      } else {
        args.push_back(arg(pattern(depth + 2, false, bound)));
      }
    }
    return call(callee, std::move(args));
  }

  Expr guard_expr(const VarSet& bound) {
    std::vector<uint32_t> terms;
    std::vector<uint32_t> ops;
    for (uint32_t v : bound) ((*vars_)[v].kind == VarKind::Term ? terms : ops).push_back(v);
    if (!ops.empty() && random_.chance(0.3)) {
      uint32_t f = random_.pick(ops);
      return in(op_name(f), {text("relu"), text("matmul"), text("add")});
    }
    uint32_t x = terms.empty() ? *bound.begin() : random_.pick(terms);
    if (terms.empty()) return eq(op_name(x), text("tanh"));
    switch (random_.below(7)) {
      case 0:
        return eq(rank(x), integer(2));
      case 1:  // short-circuit keeps the index in range on scalars
        return and_(ge(rank(x), integer(1)), eq(dim(x, integer(-1)), integer(4)));
      case 2:
        return gt(numel(x), integer(4));
      case 3:
        return in(op_name(x), {text("relu"), text("input"), text("matmul")});
      case 4:  // and the attribute is only read where it exists
        return or_(ne(op_name(x), text("matmul")), eq(attr(x, "activation"), text("none")));
      case 5:
        return not_(eq(op_name(x), text("constant")));
      default:
        return eq(dtype(x), text("f32"));
    }
  }

  Random& random_;
  Module* module_ = nullptr;
  uint32_t current_ = 0;
  std::vector<Var>* vars_ = nullptr;
  bool no_calls_ = false;
};

std::vector<Match> algorithmic_matches(const Module& module, const ir::Graph& graph,
                                       uint32_t definition, ir::ValueRef value) {
  GraphView view(graph);
  Matcher<GraphView> matcher(module, view);
  std::vector<Match> matches;
  matcher.match_all(definition, value, [&](const Match& match) {
    if (std::find(matches.begin(), matches.end(), match) == matches.end()) {
      matches.push_back(match);
    }
    return false;
  });
  return matches;
}

bool same_set(const std::vector<Match>& a, const std::vector<Match>& b) {
  if (a.size() != b.size()) return false;
  return std::all_of(a.begin(), a.end(),
                     [&](const Match& m) { return std::find(b.begin(), b.end(), m) != b.end(); });
}

}  // namespace

TEST(SemanticsProperty, AlgorithmicAgreesWithDeclarative) {
  Random random(20240611);
  int cases = 0;
  int values_with_matches = 0;
  int rejected_modules = 0;
  int first_not_all_alternate0 = 0;
  while (cases < 3000) {
    ModuleGenerator generator(random);
    Module module = generator.generate();
    // The loader and check_module must agree on every module; only valid ones are matched.
    std::string bytes = write_pmb(module);
    bool valid = true;
    try {
      check_module(module);
    } catch (const PatternError&) {
      valid = false;
    }
    try {
      Module loaded = read_pmb(bytes);
      ASSERT_TRUE(valid) << "the loader accepted what check_module rejects";
      ASSERT_EQ(loaded, module);
    } catch (const FormatError& error) {
      ASSERT_FALSE(valid) << "the loader rejected a valid module: " << error.what();
    }
    if (!valid) {
      ++rejected_modules;
      continue;
    }
    ir::Graph graph = random_graph(random);
    GraphView view(graph);
    Matcher<GraphView> matcher(module, view);
    for (uint32_t d = 0; d < module.definitions.size(); ++d) {
      for (ir::NodeId n = 0; n < graph.num_nodes(); ++n) {
        ir::ValueRef value{n, 0};
        std::vector<Match> declarative = match_declaratively(module, graph, d, value);
        std::optional<Match> first = matcher.match_first(d, value);
        ASSERT_EQ(first.has_value(), !declarative.empty())
            << "definition " << d << " at " << graph.value_name(value);
        if (first) {
          ++values_with_matches;
          ASSERT_NE(std::find(declarative.begin(), declarative.end(), *first), declarative.end());
          if (first->alternate != 0) ++first_not_all_alternate0;
        }
        std::vector<Match> all = algorithmic_matches(module, graph, d, value);
        ASSERT_TRUE(same_set(all, declarative))
            << "definition " << d << " at " << graph.value_name(value) << ": " << all.size()
            << " algorithmic vs " << declarative.size() << " declarative matches";
        if (!all.empty()) {
          ASSERT_EQ(all.front(), *first);
        }
      }
    }
    ++cases;
  }
  // The generator must exercise something: plenty of matches, some through later alternates,
  // and some modules the checks reject.
  EXPECT_GT(values_with_matches, 2000);
  EXPECT_GT(first_not_all_alternate0, 50);
  RecordProperty("values_with_matches", values_with_matches);
  RecordProperty("rejected_modules", rejected_modules);
  std::printf("cases %d, values with matches %d, later alternates %d, rejected modules %d\n", cases,
              values_with_matches, first_not_all_alternate0, rejected_modules);
}
