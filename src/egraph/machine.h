#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "egraph/pattern_ast.h"
#include "egraph/subst.h"

namespace saturate::egraph {

// A pattern compiled to a small e-matching program (egg's machine.rs, after de Moura and
// Bjørner's abstract machine). Registers hold e-class ids; register 0 holds the class being
// searched. Three instructions:
//   bind    for every node in class reg[in] with the given label and arity, put its children
//           in reg[out], reg[out+1], ... and run the rest of the program (the only branching);
//   compare stop unless reg[a] and reg[b] are the same class (a repeated variable, ?x ... ?x);
//   lookup  build a subterm whose variables are all bound by hash-cons lookups, no enumeration,
//           and stop unless it exists and is the class in reg[in].
// The compiler orders work as egg does: subterms that are ground given the variables bound so
// far first (they become lookups), then those with more free variables, then smaller ones.
template <Operator Op>
class Program {
 public:
  enum class Kind : std::uint8_t { Bind, Compare, Lookup };

  // One entry of a lookup term: a register, or a label over earlier entries.
  struct LookupStep {
    bool is_register = false;
    std::uint32_t reg = 0;
    ENode<Op> node;
  };

  struct Instruction {
    Kind kind = Kind::Bind;
    std::uint32_t in = 0;   // bind, lookup: the register holding the class to inspect;
                            // compare: the first register
    std::uint32_t out = 0;  // bind: first output register; compare: the second register;
                            // lookup: the index of the term in lookup_terms()
    Op op{};                // bind: the label
    std::uint32_t arity = 0;
    // bind: no bind or lookup follows, so a match that is not new by now can only become new
    // through this node.
    bool last_node_step = false;
  };

  // Scratch space reused across the classes of one search.
  struct State {
    std::vector<EClassId> registers;
    std::vector<EClassId> lookup;
  };

  static Program compile(const PatternAst<Op>& ast, const std::vector<Var>& vars) {
    Compiler compiler(ast);
    Program program;
    compiler.compile(program);
    for (auto it = program.instructions_.rbegin(); it != program.instructions_.rend(); ++it) {
      if (it->kind == Kind::Compare) continue;
      if (it->kind == Kind::Bind) it->last_node_step = true;
      break;
    }
    for (Var var : vars) program.var_registers_.push_back(compiler.register_of(var));
    program.vars_ = vars;
    return program;
  }

  // Calls yield(const Subst&) for each match rooted in `eclass`; yield returns false to stop
  // the search, and then so does run(). The e-graph must be clean.
  //
  // With `since` > 0, only the matches new since generation `since`: those whose root node's form
  // or another node's place is stamped later (NodeStamp). The others were all there, and found,
  // when the e-graph was at that generation. This is semi-naive evaluation; it needs
  // uses_nodes().
  template <typename Graph, typename Yield>
  bool run(const Graph& egraph, EClassId eclass, State& state, Yield&& yield,
           std::uint32_t since = 0) const {
    state.registers.resize(register_count_);
    state.registers[0] = egraph.find(eclass);
    return step(0, egraph, state, yield, since, since == 0);
  }

  // Whether a match involves at least one e-node (a bind or a lookup), which is what makes
  // run(..., since) meaningful; a pattern that is a bare variable matches classes, not nodes.
  bool uses_nodes() const {
    return std::any_of(instructions_.begin(), instructions_.end(),
                       [](const Instruction& i) { return i.kind != Kind::Compare; });
  }

  const std::vector<Instruction>& instructions() const { return instructions_; }
  // Terms of the lookup instructions; each root is last.
  const std::vector<std::vector<LookupStep>>& lookup_terms() const { return lookup_terms_; }
  std::size_t register_count() const { return register_count_; }

  // One instruction a line, for debugging and for tests that check how a pattern compiled.
  std::string to_string() const {
    std::string text;
    for (const Instruction& instruction : instructions_) {
      switch (instruction.kind) {
        case Kind::Bind:
          text += "bind r" + std::to_string(instruction.in) + " " + instruction.op.to_string() +
                  "/" + std::to_string(instruction.arity) + " -> r" +
                  std::to_string(instruction.out) + "\n";
          break;
        case Kind::Compare:
          text += "compare r" + std::to_string(instruction.in) + " r" +
                  std::to_string(instruction.out) + "\n";
          break;
        case Kind::Lookup:
          text += "lookup r" + std::to_string(instruction.in) + " (" +
                  std::to_string(lookup_terms_[instruction.out].size()) + " steps)\n";
          break;
      }
    }
    return text;
  }

 private:
  // `fresh`: the nodes bound so far make the match new since generation `since`.
  template <typename Graph, typename Yield>
  bool step(std::size_t pc, const Graph& egraph, State& state, Yield& yield, std::uint32_t since,
            bool fresh) const {
    for (; pc < instructions_.size(); ++pc) {
      const Instruction& instruction = instructions_[pc];
      switch (instruction.kind) {
        case Kind::Bind: {
          const auto& eclass = egraph.eclass(state.registers[instruction.in]);
          // The root node counts by its form: moved into this class, it matched in its old one.
          const bool is_root = instruction.in == 0;
          const bool must_be_new = !fresh && instruction.last_node_step;
          if (must_be_new && (is_root ? eclass.newest.form : eclass.newest.placed) <= since)
            return true;
          const auto& nodes = eclass.nodes;
          const auto& filter = egraph.node_filter();
          auto first = std::lower_bound(
              nodes.begin(), nodes.end(), instruction, [](const auto& node, const Instruction& i) {
                return node.op < i.op || (node.op == i.op && node.arity() < i.arity);
              });
          for (auto it = first;
               it != nodes.end() && it->op == instruction.op && it->arity() == instruction.arity;
               ++it) {
            const NodeStamp& stamp = eclass.stamps[static_cast<std::size_t>(it - nodes.begin())];
            bool now_fresh = fresh || (is_root ? stamp.form : stamp.placed) > since;
            if (must_be_new && !now_fresh) continue;
            if (filter && !filter(eclass.id, *it)) continue;
            std::copy(it->children.begin(), it->children.end(),
                      state.registers.begin() + instruction.out);
            if (!step(pc + 1, egraph, state, yield, since, now_fresh)) return false;
          }
          return true;
        }
        case Kind::Compare:
          if (egraph.find(state.registers[instruction.in]) !=
              egraph.find(state.registers[instruction.out]))
            return true;
          break;
        case Kind::Lookup: {
          state.lookup.clear();
          for (const LookupStep& entry : lookup_terms_[instruction.out]) {
            if (entry.is_register) {
              state.lookup.push_back(egraph.find(state.registers[entry.reg]));
              continue;
            }
            ENode<Op> node = entry.node;
            for (EClassId& child : node.children) child = state.lookup[child.index()];
            auto found = egraph.lookup(node);
            if (!found || !egraph.is_visible(*found, node)) return true;
            if (!fresh && egraph.stamp_of(*found, node).placed > since) fresh = true;
            state.lookup.push_back(*found);
          }
          if (state.lookup.back() != egraph.find(state.registers[instruction.in])) return true;
          break;
        }
      }
    }
    if (!fresh) return true;
    Subst subst;
    for (std::size_t i = 0; i < vars_.size(); ++i) {
      subst.append_new(vars_[i], egraph.find(state.registers[var_registers_[i]]));
    }
    return yield(static_cast<const Subst&>(subst));
  }

  class Compiler {
   public:
    explicit Compiler(const PatternAst<Op>& ast) : ast_(ast) {
      for (const PatternNode<Op>& entry : ast.entries()) {
        std::vector<Var> free;
        std::size_t size = 0;
        if (entry.is_var()) {
          free.push_back(*entry.var);
        } else {
          size = 1;
          for (EClassId child : entry.node.children) {
            free.insert(free.end(), free_vars_[child.index()].begin(),
                        free_vars_[child.index()].end());
            size += subtree_size_[child.index()];
          }
          std::sort(free.begin(), free.end());
          free.erase(std::unique(free.begin(), free.end()), free.end());
        }
        free_vars_.push_back(std::move(free));
        subtree_size_.push_back(size);
      }
    }

    void compile(Program& program) {
      next_register_ = 1;
      add_todo(ast_.root(), 0, program);
      while (!todo_.empty()) {
        auto [id, reg] = take_next();
        const ENode<Op>& node = ast_[id].node;
        if (!node.is_leaf() && unbound_count(id) == 0) {
          Instruction lookup;
          lookup.kind = Kind::Lookup;
          lookup.in = reg;
          lookup.out = static_cast<std::uint32_t>(program.lookup_terms_.size());
          std::vector<LookupStep> term;
          std::vector<std::uint32_t> step_of(ast_.size());
          append_lookup_steps(id, term, step_of);
          program.lookup_terms_.push_back(std::move(term));
          program.instructions_.push_back(lookup);
          continue;
        }
        Instruction bind;
        bind.kind = Kind::Bind;
        bind.in = reg;
        bind.out = next_register_;
        bind.op = node.op;
        bind.arity = static_cast<std::uint32_t>(node.arity());
        next_register_ += bind.arity;
        program.instructions_.push_back(bind);
        for (std::size_t i = 0; i < node.arity(); ++i) {
          add_todo(node.children[i], bind.out + static_cast<std::uint32_t>(i), program);
        }
      }
      program.register_count_ = next_register_;
    }

    std::uint32_t register_of(Var var) const {
      for (const auto& [bound, reg] : var_registers_) {
        if (bound == var) return reg;
      }
      throw Error("pattern compiler: variable '" + std::string(var.name()) + "' was never bound");
    }

   private:
    bool is_bound(Var var) const {
      return std::any_of(var_registers_.begin(), var_registers_.end(),
                         [var](const auto& binding) { return binding.first == var; });
    }
    std::size_t unbound_count(EClassId id) const {
      const std::vector<Var>& free = free_vars_[id.index()];
      return static_cast<std::size_t>(
          std::count_if(free.begin(), free.end(), [this](Var var) { return !is_bound(var); }));
    }

    void add_todo(EClassId id, std::uint32_t reg, Program& program) {
      const PatternNode<Op>& entry = ast_[id];
      if (!entry.is_var()) {
        todo_.emplace_back(id, reg);
        return;
      }
      for (const auto& [bound, bound_reg] : var_registers_) {
        if (bound == *entry.var) {
          Instruction compare;
          compare.kind = Kind::Compare;
          compare.in = reg;
          compare.out = bound_reg;
          program.instructions_.push_back(compare);
          return;
        }
      }
      var_registers_.emplace_back(*entry.var, reg);
    }

    // egg's order: ground-now first, then most free variables, then smallest subterm.
    std::pair<EClassId, std::uint32_t> take_next() {
      auto key = [this](const std::pair<EClassId, std::uint32_t>& item) {
        std::size_t unbound = unbound_count(item.first);
        return std::make_tuple(unbound == 0, unbound,
                               -static_cast<std::ptrdiff_t>(subtree_size_[item.first.index()]));
      };
      auto best = todo_.begin();
      for (auto it = todo_.begin() + 1; it < todo_.end(); ++it) {
        if (key(*best) < key(*it)) best = it;
      }
      auto chosen = *best;
      todo_.erase(best);
      return chosen;
    }

    void append_lookup_steps(EClassId id, std::vector<LookupStep>& steps,
                             std::vector<std::uint32_t>& step_of) {
      const PatternNode<Op>& entry = ast_[id];
      LookupStep step;
      if (entry.is_var()) {
        step.is_register = true;
        step.reg = register_of(*entry.var);
      } else {
        step.node = entry.node;
        for (EClassId& child : step.node.children) {
          append_lookup_steps(child, steps, step_of);
          child = EClassId(step_of[child.index()]);
        }
      }
      step_of[id.index()] = static_cast<std::uint32_t>(steps.size());
      steps.push_back(std::move(step));
    }

    const PatternAst<Op>& ast_;
    std::vector<std::vector<Var>> free_vars_;
    std::vector<std::size_t> subtree_size_;
    std::vector<std::pair<Var, std::uint32_t>> var_registers_;
    std::vector<std::pair<EClassId, std::uint32_t>> todo_;
    std::uint32_t next_register_ = 1;
  };

  std::vector<Instruction> instructions_;
  std::vector<std::vector<LookupStep>> lookup_terms_;
  std::vector<Var> vars_;
  std::vector<std::uint32_t> var_registers_;  // vars_[i] ends up in register var_registers_[i]
  std::uint32_t register_count_ = 1;
};

}  // namespace saturate::egraph
