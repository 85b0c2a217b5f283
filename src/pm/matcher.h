#pragma once

// The algorithmic matcher of docs/PYPM.md §2: depth-first with continuations. Every choice point
// (an alternate, an inline choice, a producer of a value in an e-graph view) is tried in order;
// when something later fails (a constraint, a sibling, the caller's argument check) control
// returns to the most recent choice point, whose binder undoes its binding on the way out, and
// the next option is tried. Continuations are FunctionRefs, so an attempt allocates nothing once
// the slot stack has grown to its working size.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ir/op_registry.h"
#include "pm/core.h"
#include "pm/errors.h"
#include "pm/expr_eval.h"
#include "pm/function_ref.h"
#include "pm/match.h"
#include "pm/match_trace.h"
#include "pm/match_view.h"
#include "pm/pattern_text.h"
#include "pm/root_index.h"
#include "pm/stack_limit.h"
#include "support/strings.h"

namespace saturate::pm {

struct MatchOptions {
  // Calls alive at once (a recursive pattern nests one per level); more is a PatternError.
  size_t max_call_depth = 10000;
  // The continuation style nests C++ frames for the whole match (about 1 KiB per call level
  // in an optimized build, more under sanitizers). When a match has used this much of the
  // current stack it continues on a fresh 64 MiB stack (a helper thread it waits for), up to
  // 16 times before it gives up with a PatternError. 0: what the thread's stack has left, less
  // a margin; tests set it small to exercise the switch.
  size_t stack_segment_bytes = 0;
};

// Precondition: the module passed check_module() (read_pmb() checks it). A Matcher keeps its
// working state between calls (to allocate nothing per attempt): use one per thread.
template <MatchView View>
class Matcher {
 public:
  using Value = typename View::Value;
  using NodeRef = typename View::NodeRef;
  using MatchType = BasicMatch<Value>;

  Matcher(const Module& module, const View& view, MatchOptions options = {})
      : module_(&module), view_(&view), options_(options), index_(module) {}

  // The first match in the algorithm's order, if any.
  std::optional<MatchType> match_first(uint32_t definition, Value value) {
    std::optional<MatchType> result;
    run(definition, value, [&](const Frame& frame) {
      result = extract(frame);
      return true;
    });
    return result;
  }

  // Every match, in order; on_match(const MatchType&) returns true to stop.
  template <class OnMatch>
  void match_all(uint32_t definition, Value value, OnMatch&& on_match) {
    run(definition, value,
        [&](const Frame& frame) { return static_cast<bool>(on_match(extract(frame))); });
  }

  // False when the definition's root cannot be produced by any producer of the value.
  bool may_match(uint32_t definition, Value value) const {
    return (index_.definition_mask(definition) & producer_mask(value)) != 0;
  }

  // Records the attempts in `trace` (nullptr: stop recording).
  void set_trace(MatchTrace* trace) { trace_ = trace; }
  const RootIndex& root_index() const { return index_; }

 private:
  // A variable's binding: a value for a term variable, a producing node for an op variable
  // (its symbol is that node's operator and attributes).
  struct Slot {
    bool bound = false;
    Value value{};
    NodeRef symbol{};
  };
  // An activation of one alternate: its variables are slots_[base, base + vars.size()).
  struct Frame {
    uint32_t definition;
    uint32_t alternate;
    size_t base;
  };
  using Next = FunctionRef<bool()>;
  using Then = FunctionRef<bool(const Frame&)>;

  class FrameScope final : public ExprScope {
   public:
    FrameScope(const Matcher& matcher, const Frame& frame) : matcher_(matcher), frame_(frame) {}
    size_t num_variables() const override { return vars().size(); }
    const Var& variable(uint32_t var) const override { return vars()[var]; }
    bool is_bound(uint32_t var) const override { return slot(var).bound; }
    const ir::TensorType& type_of(uint32_t var) const override {
      return matcher_.view_->type(slot(var).value);
    }
    ir::OpKind op_of(uint32_t var) const override { return matcher_.view_->op(node_of(var)); }
    const ir::Attributes& attrs_of(uint32_t var) const override {
      return matcher_.view_->attrs(node_of(var));
    }

   private:
    const std::vector<Var>& vars() const { return matcher_.alternate(frame_).vars; }
    const Slot& slot(uint32_t var) const { return matcher_.slots_[frame_.base + var]; }
    // The node an expression reads: an op variable's symbol, or the (first) producer of a term.
    NodeRef node_of(uint32_t var) const {
      if (vars()[var].kind == VarKind::Op) return slot(var).symbol;
      return matcher_.first_producer(slot(var).value);
    }

    const Matcher& matcher_;
    const Frame& frame_;
  };

  // Keeps the live-call count right however a call is left (including by an exception).
  struct DepthGuard {
    explicit DepthGuard(size_t& depth) : depth_(depth) { ++depth_; }
    ~DepthGuard() { --depth_; }
    DepthGuard(const DepthGuard&) = delete;
    DepthGuard& operator=(const DepthGuard&) = delete;
    size_t& depth_;
  };

  template <class Final>
  void run(uint32_t definition, Value value, Final&& final_continuation) {
    slots_.clear();
    depth_ = 0;
    stack_origin_ = reinterpret_cast<uintptr_t>(__builtin_frame_address(0));
    stack_budget_ = segment_budget(stack_origin_);
    stack_switches_ = 0;
    if (!may_match(definition, value) && trace_ == nullptr) return;
    match_definition(definition, value, final_continuation);
  }

  const Alternate& alternate(const Frame& frame) const {
    return module_->definitions[frame.definition].alternates[frame.alternate];
  }

  std::string where(const Frame& frame, uint32_t line) const {
    const Definition& definition = module_->definitions[frame.definition];
    return source_position(*module_, line) + ": pattern '" + definition.name + "', alternate " +
           std::to_string(frame.alternate + 1);
  }

  NodeRef first_producer(Value value) const {
    NodeRef found{};
    view_->for_each_producer(value, [&](NodeRef node, uint32_t) {
      found = node;
      return true;
    });
    return found;
  }

  RootIndex::OpMask producer_mask(Value value) const {
    RootIndex::OpMask mask = 0;
    view_->for_each_producer(value, [&](NodeRef node, uint32_t) {
      mask |= RootIndex::bit(view_->op(node));
      return false;
    });
    return mask;
  }

  std::string describe(Value value) const {
    std::string text = view_->describe(value);
    std::string ops;
    view_->for_each_producer(value, [&](NodeRef node, uint32_t) {
      ops += (ops.empty() ? "" : "|") + std::string(ir::to_string(view_->op(node)));
      return false;
    });
    return text + " (" + ops + ")";
  }

  size_t segment_budget(uintptr_t origin) const {
    return options_.stack_segment_bytes != 0 ? options_.stack_segment_bytes
                                             : usable_stack_bytes(origin);
  }

  bool stack_is_short() const {
    auto here = reinterpret_cast<uintptr_t>(__builtin_frame_address(0));
    uintptr_t used = stack_origin_ > here ? stack_origin_ - here : here - stack_origin_;
    return used > stack_budget_;
  }

  // Runs the rest of the match on a fresh stack; the matcher's state is the same object, only
  // the machine stack changes.
  [[gnu::noinline]] bool on_fresh_stack(uint32_t definition, Value value, Next rest) {
    static constexpr size_t kMaxSwitches = 16;
    static constexpr size_t kFreshStackBytes = size_t{64} << 20;
    if (stack_switches_ >= kMaxSwitches) fail_stack(definition, value);
    struct Restore {
      Matcher& matcher;
      uintptr_t origin;
      size_t budget;
      ~Restore() {
        matcher.stack_origin_ = origin;
        matcher.stack_budget_ = budget;
        --matcher.stack_switches_;
      }
    } restore{*this, stack_origin_, stack_budget_};
    ++stack_switches_;
    std::optional<bool> result = run_on_new_stack(
        [&] {
          stack_origin_ = reinterpret_cast<uintptr_t>(__builtin_frame_address(0));
          stack_budget_ = segment_budget(stack_origin_);
          return rest();
        },
        kFreshStackBytes);
    if (!result) fail_stack(definition, value);
    return *result;
  }

  // Everything that builds text lives out of line (cold), so that the frames of the recursive
  // matching functions stay small: each nested call of a recursive pattern costs a few of them.
  [[noreturn, gnu::noinline, gnu::cold]] void fail_depth(uint32_t definition, Value value) const {
    const Definition& def = module_->definitions[definition];
    throw PatternError(source_position(*module_, def.line) + ": pattern '" + def.name +
                       "': recursion deeper than " + std::to_string(options_.max_call_depth) +
                       " nested calls (at " + view_->describe(value) + ")");
  }

  [[noreturn, gnu::noinline, gnu::cold]] void fail_stack(uint32_t definition, Value value) const {
    const Definition& def = module_->definitions[definition];
    throw PatternError(source_position(*module_, def.line) + ": pattern '" + def.name +
                       "': the match ran out of stack after " + std::to_string(depth_) +
                       " nested calls (at " + view_->describe(value) + ")");
  }

  [[gnu::noinline, gnu::cold]] void trace_matched() const { trace_->note("matched"); }

  [[gnu::noinline, gnu::cold]] void trace_unbound(const Var& var) const {
    trace_->note("variable " + var.name + " is never bound");
  }

  [[gnu::noinline, gnu::cold]] void trace_not_constant(double constant, Value value) const {
    trace_->note(describe(value) + " is not the constant " + format_double(constant));
  }

  [[gnu::noinline, gnu::cold]] size_t trace_open_call(uint32_t definition, Value value) const {
    return trace_->open(module_->definitions[definition].name + " at " + describe(value));
  }

  [[gnu::noinline, gnu::cold]] std::string alternate_label(uint32_t definition, uint32_t a) const {
    const Alternate& alt = module_->definitions[definition].alternates[a];
    return "alternate " + std::to_string(a + 1) + " (line " + std::to_string(alt.line) + ")";
  }

  [[gnu::noinline, gnu::cold]] void trace_skipped_alternate(uint32_t definition, uint32_t a,
                                                            Value value) const {
    const Alternate& alt = module_->definitions[definition].alternates[a];
    trace_->note(alternate_label(definition, a) + ": " + describe(value) +
                 " cannot be the root of " + to_string(alt.body, alt.vars, *module_));
  }

  [[gnu::noinline, gnu::cold]] void trace_var_conflict(const Frame& frame, uint32_t var,
                                                       Value bound, Value value) const {
    trace_->note(alternate(frame).vars[var].name + " is already " + describe(bound) + ", not " +
                 describe(value));
  }

  [[gnu::noinline, gnu::cold]] void trace_head_mismatch(const Head& head, NodeRef node,
                                                        const Frame& frame) const {
    if (head.tag == Head::Tag::Name) {
      trace_->note("operator " + std::string(ir::to_string(view_->op(node))) + " is not " +
                   std::string(ir::to_string(head.op)));
      return;
    }
    NodeRef bound = slots_[frame.base + head.var].symbol;
    trace_->note(alternate(frame).vars[head.var].name + " is already " +
                 std::string(ir::to_string(view_->op(bound))) +
                 " (with its attributes), not this " + std::string(ir::to_string(view_->op(node))));
  }

  [[gnu::noinline, gnu::cold]] void trace_app_mismatch(const Pattern& pattern, Value value,
                                                       NodeRef node, uint32_t output,
                                                       const Frame& frame) const {
    std::string wanted = to_string(pattern, alternate(frame).vars, *module_);
    if (pattern.head.tag == Head::Tag::Name && view_->op(node) != pattern.head.op) {
      trace_->note(describe(value) + " does not match " + wanted + ": it is " +
                   std::string(ir::to_string(view_->op(node))) + ", not " +
                   std::string(ir::to_string(pattern.head.op)));
      return;
    }
    if (output != pattern.output_index) {
      trace_->note(describe(value) + " is output " + std::to_string(output) + ", " + wanted +
                   " needs output " + std::to_string(pattern.output_index));
      return;
    }
    trace_->note(describe(value) + " has " + std::to_string(view_->num_inputs(node)) + " inputs, " +
                 wanted + " needs " + std::to_string(pattern.args.size()));
  }

  [[gnu::noinline, gnu::cold]] void trace_attribute_mismatch(const AttrExpr& attr,
                                                             const ir::AttrValue* actual,
                                                             const ir::AttrSpec* spec,
                                                             const ExprValue& wanted,
                                                             Value value) const {
    std::string has = actual == nullptr ? "missing" : to_string(attribute_value(*actual, spec));
    trace_->note(describe(value) + ": attribute " + attr.name + " is " + has +
                 ", the pattern needs " + to_string(wanted));
  }

  [[gnu::noinline, gnu::cold]] void trace_guard_false(const Constraint& constraint,
                                                      const Frame& frame) const {
    trace_->note("guard `" + to_string(constraint.guard, alternate(frame).vars) + "` (line " +
                 std::to_string(constraint.line) + ") is false");
  }

  [[gnu::noinline, gnu::cold]] void trace_constraint(const Constraint& constraint,
                                                     const Frame& frame,
                                                     const Slot& subject) const {
    const Alternate& alt = alternate(frame);
    std::string head = "constraint " + alt.vars[constraint.var].name +
                       " <= " + to_string(constraint.pattern, alt.vars, *module_) + " (line " +
                       std::to_string(constraint.line) + ")";
    trace_->note(subject.bound ? head + " at " + describe(subject.value)
                               : head + ": the variable is not bound");
  }

  // Tries each alternate of the definition at `value` in a fresh frame; `then` continues with
  // the frame of an alternate whose body and constraints hold.
  bool match_definition(uint32_t definition, Value value, Then then) {
    if (depth_ >= options_.max_call_depth) fail_depth(definition, value);
    if (stack_is_short()) {
      return on_fresh_stack(definition, value,
                            [&] { return match_alternates(definition, value, then); });
    }
    return match_alternates(definition, value, then);
  }

  bool match_alternates(uint32_t definition, Value value, Then then) {
    DepthGuard depth_guard(depth_);
    bool is_root = depth_ == 1;
    const Definition& def = module_->definitions[definition];
    RootIndex::OpMask producers = producer_mask(value);
    size_t caller_entry = 0;
    size_t call_entry = 0;
    if (trace_ != nullptr) {
      caller_entry = trace_->cursor();
      call_entry = trace_open_call(definition, value);
    }
    for (uint32_t a = 0; a < def.alternates.size(); ++a) {
      const Alternate& alt = def.alternates[a];
      if ((index_.alternate_mask(definition, a) & producers) == 0) {
        if (trace_ != nullptr) trace_skipped_alternate(definition, a, value);
        continue;
      }
      size_t alt_entry = trace_ != nullptr ? trace_->open(alternate_label(definition, a)) : 0;
      size_t base = slots_.size();
      slots_.resize(base + alt.vars.size());
      Frame frame{definition, a, base};
      bool stop = match_pattern(alt.body, value, frame, [&] {
        return match_constraints(0, frame, [&] {
          if (!all_bound(frame)) return false;
          // The caller's continuation runs deeper still: the check of match_definition again.
          if (stack_is_short()) {
            return on_fresh_stack(definition, value, [&] {
              return continue_caller(frame, then, caller_entry, alt_entry, is_root);
            });
          }
          return continue_caller(frame, then, caller_entry, alt_entry, is_root);
        });
      });
      slots_.resize(base);
      if (trace_ != nullptr) trace_->move_to(call_entry);
      if (stop) {
        if (trace_ != nullptr) trace_->move_to(caller_entry);
        return true;
      }
    }
    if (trace_ != nullptr) {
      trace_->append(call_entry, ": no alternate matched");
      trace_->move_to(caller_entry);
    }
    return false;
  }

  bool continue_caller(const Frame& frame, Then then, size_t caller_entry, size_t alt_entry,
                       bool is_root) {
    if (trace_ == nullptr) return then(frame);
    trace_matched();
    // A callee's success continues in its caller; the root's in the matched alternate.
    if (!is_root) trace_->move_to(caller_entry);
    bool done = then(frame);
    trace_->move_to(alt_entry);
    return done;
  }

  bool all_bound(const Frame& frame) {
    const Alternate& alt = alternate(frame);
    for (size_t v = 0; v < alt.vars.size(); ++v) {
      if (!slots_[frame.base + v].bound) {
        if (trace_ != nullptr) trace_unbound(alt.vars[v]);
        return false;
      }
    }
    return true;
  }

  [[gnu::noinline]] bool guard_holds(const Constraint& constraint, const Frame& frame) const {
    FrameScope scope(*this, frame);
    return evaluate_guard(constraint.guard, scope, [&] { return where(frame, constraint.line); });
  }

  bool match_constraints(size_t i, const Frame& frame, Next next) {
    const Alternate& alt = alternate(frame);
    if (i == alt.constraints.size()) return next();
    const Constraint& constraint = alt.constraints[i];
    if (constraint.tag == Constraint::Tag::Guard) {
      if (!guard_holds(constraint, frame)) {
        if (trace_ != nullptr) trace_guard_false(constraint, frame);
        return false;
      }
      return match_constraints(i + 1, frame, next);
    }
    Slot subject = slots_[frame.base + constraint.var];
    if (trace_ != nullptr) trace_constraint(constraint, frame, subject);
    if (!subject.bound) return false;
    return match_pattern(constraint.pattern, subject.value, frame,
                         [&] { return match_constraints(i + 1, frame, next); });
  }

  bool match_pattern(const Pattern& pattern, Value value, const Frame& frame, Next next) {
    switch (pattern.tag) {
      case Pattern::Tag::Var:
        return match_var(pattern.var, value, frame, next);
      case Pattern::Tag::App:
        return match_app(pattern, value, frame, next);
      case Pattern::Tag::Const:
        return match_const(pattern, value, next);
      case Pattern::Tag::Call:
        return match_definition(pattern.callee, value, [&](const Frame& callee) {
          return match_call_args(pattern, 0, frame, callee, next);
        });
      case Pattern::Tag::Alt:
        for (const Pattern& option : pattern.args) {
          if (match_pattern(option, value, frame, next)) return true;
        }
        return false;
    }
    return false;
  }

  bool match_var(uint32_t var, Value value, const Frame& frame, Next next) {
    size_t i = frame.base + var;
    if (!slots_[i].bound) {
      slots_[i].bound = true;
      slots_[i].value = value;
      if (next()) return true;
      slots_[i].bound = false;
      return false;
    }
    if (view_->same(slots_[i].value, value)) return next();
    if (trace_ != nullptr) trace_var_conflict(frame, var, slots_[i].value, value);
    return false;
  }

  bool same_symbol(NodeRef a, NodeRef b) const {
    return a == b || (view_->op(a) == view_->op(b) && view_->attrs(a) == view_->attrs(b));
  }

  // Unifies a head with the operator symbol of `node`.
  bool match_head(const Head& head, NodeRef node, const Frame& frame, Next next) {
    if (head.tag == Head::Tag::Name) {
      if (view_->op(node) == head.op) return next();
      if (trace_ != nullptr) trace_head_mismatch(head, node, frame);
      return false;
    }
    size_t i = frame.base + head.var;
    if (!slots_[i].bound) {
      slots_[i].bound = true;
      slots_[i].symbol = node;
      if (next()) return true;
      slots_[i].bound = false;
      return false;
    }
    if (same_symbol(slots_[i].symbol, node)) return next();
    if (trace_ != nullptr) trace_head_mismatch(head, node, frame);
    return false;
  }

  bool match_app(const Pattern& pattern, Value value, const Frame& frame, Next next) {
    return view_->for_each_producer(value, [&](NodeRef node, uint32_t output) -> bool {
      if ((pattern.head.tag == Head::Tag::Name && view_->op(node) != pattern.head.op) ||
          output != pattern.output_index || view_->num_inputs(node) != pattern.args.size()) {
        if (trace_ != nullptr) trace_app_mismatch(pattern, value, node, output, frame);
        return false;
      }
      return match_head(pattern.head, node, frame, [&] {
        if (!attributes_hold(pattern, node, frame, value)) return false;
        return match_inputs(pattern, node, 0, frame, next);
      });
    });
  }

  bool attributes_hold(const Pattern& pattern, NodeRef node, const Frame& frame, Value value) {
    return pattern.attrs.empty() || check_attributes(pattern, node, frame, value);
  }

  [[gnu::noinline]] bool check_attributes(const Pattern& pattern, NodeRef node, const Frame& frame,
                                          Value value) {
    const ir::Attributes& attrs = view_->attrs(node);
    const ir::OpInfo& info = ir::op_info(view_->op(node));
    for (const AttrExpr& attr : pattern.attrs) {
      const ir::AttrValue* actual = attrs.find(attr.name);
      FrameScope scope(*this, frame);
      // A value that depends on symbolic sizes matches nothing.
      std::optional<ExprValue> decided = evaluate_decided(attr.value, scope, [&] {
        return where(frame, alternate(frame).line) + ", attribute '" + attr.name + "'";
      });
      if (!decided) return false;
      const ExprValue& wanted = *decided;
      const ir::AttrSpec* spec = info.find_attribute(attr.name);
      if (actual == nullptr || !attribute_matches(*actual, spec, wanted)) {
        if (trace_ != nullptr) trace_attribute_mismatch(attr, actual, spec, wanted, value);
        return false;
      }
    }
    return true;
  }

  bool match_inputs(const Pattern& pattern, NodeRef node, size_t i, const Frame& frame, Next next) {
    if (i == pattern.args.size()) return next();
    return match_pattern(pattern.args[i], view_->input(node, i), frame,
                         [&] { return match_inputs(pattern, node, i + 1, frame, next); });
  }

  bool match_const(const Pattern& pattern, Value value, Next next) {
    return view_->for_each_producer(value, [&](NodeRef node, uint32_t) -> bool {
      std::optional<double> constant = view_->constant_value(node);
      if (constant && close_enough(*constant, pattern.value, view_->type(value).dtype)) {
        return next();
      }
      if (trace_ != nullptr) trace_not_constant(pattern.value, value);
      return false;
    });
  }

  // After the callee matched: each argument against the callee's parameter binding, in the
  // caller's frame.
  bool match_call_args(const Pattern& call, size_t i, const Frame& caller, const Frame& callee,
                       Next next) {
    if (i == call.call_args.size()) return next();
    const CallArg& arg = call.call_args[i];
    Slot param = slots_[callee.base + i];  // a copy: the slot stack may grow below
    auto rest = [&] { return match_call_args(call, i + 1, caller, callee, next); };
    if (arg.kind == CallArg::Kind::Pattern)
      return match_pattern(arg.pattern, param.value, caller, rest);
    return match_head(arg.head, param.symbol, caller, rest);
  }

  MatchType extract(const Frame& frame) const {
    const Definition& def = module_->definitions[frame.definition];
    MatchType match;
    match.definition = frame.definition;
    match.alternate = frame.alternate;
    match.params.reserve(def.num_params);
    for (uint32_t p = 0; p < def.num_params; ++p) {
      const Slot& slot = slots_[frame.base + p];
      if (def.param(p).kind == VarKind::Op) {
        match.params.emplace_back(OpSymbol{view_->op(slot.symbol), view_->attrs(slot.symbol)});
      } else {
        match.params.emplace_back(slot.value);
      }
    }
    return match;
  }

  const Module* module_;
  const View* view_;
  MatchOptions options_;
  RootIndex index_;
  std::vector<Slot> slots_;
  size_t depth_ = 0;
  uintptr_t stack_origin_ = 0;
  size_t stack_budget_ = 0;
  size_t stack_switches_ = 0;
  MatchTrace* trace_ = nullptr;
};

}  // namespace saturate::pm
