#include "eqsat/rule_checker.h"

#include <algorithm>
#include <array>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <string>

#include "eqsat/term_builder.h"
#include "ir/attribute_text.h"
#include "ir/tensor_type.h"
#include "runtime/interpreter.h"
#include "support/error.h"

namespace saturate::eqsat {
namespace {

struct Variables {
  std::vector<std::string> tensors;
  std::vector<std::pair<std::string, ir::AttrKind>> attributes;
  std::set<std::string> split_inputs;  // tensor variables a split takes apart directly
};

void find_split_inputs(const Term& term, std::set<std::string>& found) {
  if (term.kind != Term::Kind::Apply) return;
  if (term.op->kind == LanguageOpKind::Split && term.args.size() == 2 &&
      term.args[1].kind == Term::Kind::TensorVariable) {
    found.insert(term.args[1].variable);
  }
  for (const Term& arg : term.args) find_split_inputs(arg, found);
}

Variables collect(const std::vector<RewriteRule>& parts) {
  Variables variables;
  std::set<std::string> seen;
  for (const RewriteRule& part : parts) {
    find_split_inputs(part.lhs, variables.split_inputs);
    find_split_inputs(part.rhs, variables.split_inputs);
    for (const Term* variable : variables_of(part.lhs)) {
      if (!seen.insert(variable->variable).second) continue;
      if (variable->kind == Term::Kind::TensorVariable) {
        variables.tensors.push_back(variable->variable);
      } else {
        variables.attributes.emplace_back(variable->variable, variable->attr_kind);
      }
    }
  }
  return variables;
}

class AssignmentSampler {
 public:
  explicit AssignmentSampler(uint64_t seed) : engine_(seed) {}

  int64_t pick(int64_t low, int64_t high) {  // inclusive
    return low + static_cast<int64_t>(engine_() % static_cast<uint64_t>(high - low + 1));
  }

  // Attempts cycle through regimes that trade variety for coincidence: rules relate several
  // tensors whose dimensions must agree, which independent draws rarely satisfy. Dimensions come
  // from a small pool drawn per attempt (one value, two values, or 2..4), with one rank for
  // every tensor or independent ranks; or every tensor takes one base shape drawn per attempt
  // with, now and then, one dimension changed (most rules relate tensors axis by axis).
  void start_attempt(int attempt) {
    regime_ = attempt % 5;
    shared_rank_ = static_cast<int>(pick(2, 4));
    pool_ = {pick(2, 4)};
    if (regime_ != 1) {
      int64_t second = pick(regime_ == 2 ? 1 : 2, 5);
      if (second != pool_[0]) pool_.push_back(second);
    }
    if (regime_ == 3) pool_ = {2, 3, 4};
    if (regime_ == 4) {
      for (auto& d : base_) d = pick(1, 6);
    }
  }

  int shared_rank() const { return shared_rank_; }

  ir::Dims dims() {
    int rank = regime_ == 2 ? static_cast<int>(pick(1, 4)) : shared_rank_;
    ir::Dims result(rank);
    for (int axis = 0; axis < rank; ++axis) {
      if (regime_ == 4) {
        // Changed dimensions are often multiples, as channel counts of grouped convs are.
        int64_t roll = pick(0, 9);
        result[axis] = roll == 0   ? pick(1, 8)
                       : roll == 1 ? base_[axis] * (pick(0, 1) == 0 ? 2 : 4)
                                   : base_[axis];
      } else {
        result[axis] = pool_[static_cast<size_t>(pick(0, static_cast<int64_t>(pool_.size()) - 1))];
      }
    }
    return result;
  }

  // Concat boundaries for a tensor that a rule splits directly: one or two cuts on every axis
  // long enough, so that whichever axis the split takes has a boundary to cut at.
  std::vector<std::vector<int64_t>> boundaries(const ir::Dims& dims) {
    std::vector<std::vector<int64_t>> result(dims.size());
    for (size_t axis = 0; axis < dims.size(); ++axis) {
      if (dims[axis] < 2) continue;
      int64_t cut = pick(1, dims[axis] - 1);
      if (dims[axis] >= 3 && pick(0, 1) == 1) {
        int64_t inner = pick(1, dims[axis] - 1);
        if (inner != cut) result[axis].push_back(inner);
      }
      result[axis].push_back(cut);
    }
    return result;
  }

  // Int lists are permutations (transpose) or reshape targets made from one of the tensors'
  // shapes (flattened, or its first two axes merged), so that both kinds of rule find cases.
  ir::AttrValue attribute(ir::AttrKind kind, const std::map<std::string, ir::Dims>& shapes) {
    switch (kind) {
      case ir::AttrKind::Activation:
        return pick(0, 3);  // TENSAT's; the others need fused_conv's parameters
      case ir::AttrKind::Padding:
        return pick(0, 1);
      case ir::AttrKind::Int:
        return pick(0, 2);
      case ir::AttrKind::Float:
        return pick(0, 1) == 0 ? 0.5 : 1.5;
      case ir::AttrKind::String:
        return std::string("f32");
      case ir::AttrKind::Ints: {
        int64_t choice = pick(0, 2);
        if (choice > 0 && !shapes.empty()) {
          auto it = shapes.begin();
          std::advance(it, pick(0, static_cast<int64_t>(shapes.size()) - 1));
          ir::Dims dims = it->second;
          if (choice == 1 || dims.size() < 2) {
            int64_t count = 1;
            for (int64_t d : dims) count *= d;
            return std::vector<int64_t>{count};
          }
          dims[1] *= dims[0];
          dims.erase(dims.begin());
          return dims;
        }
        std::vector<int64_t> perm(shared_rank_);
        for (int i = 0; i < shared_rank_; ++i) perm[i] = i;
        std::shuffle(perm.begin(), perm.end(), engine_);
        return perm;
      }
    }
    return int64_t{0};
  }

 private:
  std::mt19937_64 engine_;
  int regime_ = 0;
  int shared_rank_ = 2;
  std::vector<int64_t> pool_ = {2};
  std::array<int64_t, 4> base_ = {2, 2, 2, 2};
};

// The sides of every part built over inputs of `dtype` with the case's shapes, boundaries and
// attributes, as graph outputs lhs<k> and rhs<k>. nullopt when a side does not type-check (the
// rule would not fire there); otherwise the first part whose two sides' types differ, described
// ("" when none does).
std::optional<std::string> build_sides(
    ir::Graph& graph, const std::vector<RewriteRule>& parts, const Variables& variables,
    const std::map<std::string, ir::Dims>& shapes,
    const std::map<std::string, std::vector<std::vector<int64_t>>>& boundaries,
    const std::map<std::string, ir::AttrValue>& attributes, ir::DType dtype) {
  TermBindings bindings;
  bindings.attributes = attributes;
  for (const std::string& tensor : variables.tensors) {
    bindings.tensors[tensor] = graph.add_input(tensor, shapes.at(tensor), dtype);
  }
  std::vector<std::pair<ir::ValueRef, ir::ValueRef>> sides;
  try {
    TermBuilder builder(graph);
    for (const auto& [tensor, cuts] : boundaries)
      builder.set_boundaries(bindings.tensors[tensor], cuts);
    for (const RewriteRule& part : parts) {
      ir::ValueRef lhs = builder.build(part.lhs, bindings);
      ir::ValueRef rhs = builder.build(part.rhs, bindings);
      sides.emplace_back(lhs, rhs);
    }
  } catch (const Error&) {
    return std::nullopt;
  }
  for (size_t k = 0; k < sides.size(); ++k) {
    const auto& lhs_type = graph.type(sides[k].first);
    const auto& rhs_type = graph.type(sides[k].second);
    if (!(lhs_type == rhs_type)) {
      return "left side is " + ir::to_string(lhs_type) + " but right side is " +
             ir::to_string(rhs_type);
    }
    graph.add_output("lhs" + std::to_string(k), sides[k].first);
    graph.add_output("rhs" + std::to_string(k), sides[k].second);
  }
  return std::string();
}

// The largest relative difference between the sides of the parts, run in float32 (16-bit values
// rounded to their type) on the float64 run's feeds, themselves rounded to each input's type.
double rounded_difference(const ir::Graph& graph, const runtime::TensorMap& feeds, size_t parts) {
  runtime::TensorMap rounded;
  for (const auto& [name, tensor] : feeds) {
    auto value = graph.find_value(name);
    if (!value) continue;
    runtime::Tensor copy = tensor;
    const ir::DType dtype = graph.type(*value).dtype;
    for (double& v : copy.data) v = ir::round_to_precision(v, dtype);
    rounded.emplace(name, std::move(copy));
  }
  // Leaves the feeds lack (constants a side builds) take their own values.
  rounded = runtime::random_feeds(graph, 0, rounded);
  runtime::TensorMap values = runtime::Interpreter(runtime::Precision::F32).run(graph, rounded);
  double error = 0;
  for (size_t k = 0; k < parts; ++k) {
    error = std::max(error, runtime::max_relative_difference(values.at("lhs" + std::to_string(k)),
                                                             values.at("rhs" + std::to_string(k))));
  }
  return error;
}

RuleCheckReport check_parts(const std::string& name, const std::vector<RewriteRule>& parts,
                            const RuleCheckOptions& options) {
  RuleCheckReport report;
  report.rule = name;
  Variables variables = collect(parts);
  AssignmentSampler sampler(options.seed);
  std::set<std::string> tried;
  runtime::Interpreter interpreter(runtime::Precision::F64);

  for (int attempt = 0;
       attempt < options.max_attempts && report.cases_checked < options.cases_required; ++attempt) {
    sampler.start_attempt(attempt);
    std::map<std::string, ir::Dims> shapes;
    std::map<std::string, std::vector<std::vector<int64_t>>> boundaries;
    std::map<std::string, ir::AttrValue> attributes;
    std::string description;
    for (const std::string& tensor : variables.tensors) {
      shapes[tensor] = sampler.dims();
      description += "?" + tensor + "=" + ir::to_string(shapes[tensor]);
      if (variables.split_inputs.contains(tensor)) {
        boundaries[tensor] = sampler.boundaries(shapes[tensor]);
        description += " cut at";
        for (const auto& axis : boundaries[tensor]) {
          description += " [";
          for (size_t k = 0; k < axis.size(); ++k)
            description += (k > 0 ? " " : "") + std::to_string(axis[k]);
          description += "]";
        }
      }
      description += " ";
    }
    for (const auto& [attribute, kind] : variables.attributes) {
      attributes[attribute] = sampler.attribute(kind, shapes);
      description += "?" + attribute + "=" + ir::write_attribute(attributes[attribute], kind) + " ";
    }
    if (!tried.insert(description).second) continue;

    ConditionContext context{
        [&shapes](const std::string& v) -> std::optional<std::vector<int64_t>> {
          auto it = shapes.find(v);
          if (it == shapes.end()) return std::nullopt;
          return it->second;
        },
        [&attributes](const std::string& v) -> std::optional<int64_t> {
          auto it = attributes.find(v);
          if (it == attributes.end()) return std::nullopt;
          if (const auto* value = std::get_if<int64_t>(&it->second)) return *value;
          return std::nullopt;
        }};
    bool conditions_hold = true;
    for (const RewriteRule& part : parts) {
      for (const Condition& condition : part.conditions)
        conditions_hold &= holds(condition, context);
    }
    if (!conditions_hold) continue;

    ir::Graph graph("rule-check");
    const std::optional<std::string> mismatch =
        build_sides(graph, parts, variables, shapes, boundaries, attributes, ir::DType::F32);
    if (!mismatch) continue;  // this assignment does not type-check: the rule would not fire on it
    if (!mismatch->empty()) {
      report.failure = *mismatch + " for " + description;
      return report;
    }
    const runtime::TensorMap feeds =
        runtime::random_feeds(graph, options.seed + static_cast<uint64_t>(attempt));
    runtime::TensorMap values = interpreter.run(graph, feeds);
    for (size_t k = 0; k < parts.size(); ++k) {
      double error = runtime::max_relative_difference(values.at("lhs" + std::to_string(k)),
                                                      values.at("rhs" + std::to_string(k)));
      report.max_error = std::max(report.max_error, error);
      if (!(error <= options.tolerance)) {
        report.failure = "the two sides differ by " + std::to_string(error) + " for " + description;
        return report;
      }
    }
    const double float32_error = rounded_difference(graph, feeds, parts.size());
    report.float32_error = std::max(report.float32_error, float32_error);
    report.exact_in_float32 &= float32_error == 0;
    ir::Graph half("rule-check-float16");
    const std::optional<std::string> half_mismatch =
        build_sides(half, parts, variables, shapes, boundaries, attributes, ir::DType::F16);
    if (half_mismatch && half_mismatch->empty()) {
      const double float16_error = rounded_difference(half, feeds, parts.size());
      report.float16_error = std::max(report.float16_error.value_or(0), float16_error);
    }
    report.cases.push_back(description);
    ++report.cases_checked;
  }
  if (report.cases_checked < options.cases_required) {
    report.failure = "found only " + std::to_string(report.cases_checked) +
                     " valid shape assignments in " + std::to_string(options.max_attempts) +
                     " attempts";
  }
  return report;
}

}  // namespace

RuleCheckReport check_rule(const RewriteRule& rule, const RuleCheckOptions& options) {
  return check_parts(rule.name, {rule}, options);
}

RuleCheckReport check_rule(const MultiPatternRule& rule, const RuleCheckOptions& options) {
  return check_parts(rule.name, rule.parts, options);
}

}  // namespace saturate::eqsat
