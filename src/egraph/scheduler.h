#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace saturate::egraph {

// Decides, per rule and iteration, how many matches the Runner may collect and whether to apply
// them (egg's RewriteScheduler). Rules are numbered by their position in the list given to
// Runner::run. Schedulers see counts, not e-graphs, so they do not depend on the language.
class Scheduler {
 public:
  virtual ~Scheduler() = default;

  // Called once when a run starts.
  virtual void start(const std::vector<std::string>& rule_names) { (void)rule_names; }
  // The most matches to collect for the rule in this iteration; 0 skips its search.
  virtual std::size_t search_limit(std::size_t rule, std::size_t iteration) = 0;
  // Told how many matches the search found (at most search_limit); false drops them.
  virtual bool accept_matches(std::size_t rule, std::size_t iteration, std::size_t matches) = 0;
  // Asked when an iteration changed nothing: may the run stop as saturated? A scheduler that
  // held rules back says no (and lets them run again).
  virtual bool can_stop(std::size_t iteration) = 0;
};

// Every rule, every match, every iteration.
class SimpleScheduler : public Scheduler {
 public:
  std::size_t search_limit(std::size_t rule, std::size_t iteration) override;
  bool accept_matches(std::size_t rule, std::size_t iteration, std::size_t matches) override;
  bool can_stop(std::size_t iteration) override;
};

// egg's BackoffScheduler: a rule that finds more than its match limit is banned for a number of
// iterations and its matches dropped; each ban doubles both the rule's limit and its next ban
// length, so explosive rules (associativity, commutativity) cannot crowd out the others. When
// nothing else changes, banned rules are let back in before the run may count as saturated.
class BackoffScheduler : public Scheduler {
 public:
  // Per-rule match limit before the first ban. Default 1,000.
  BackoffScheduler& with_initial_match_limit(std::size_t limit);
  // Iterations of the first ban. Default 5.
  BackoffScheduler& with_ban_length(std::size_t iterations);
  BackoffScheduler& with_rule_match_limit(const std::string& rule, std::size_t limit);
  BackoffScheduler& with_rule_ban_length(const std::string& rule, std::size_t iterations);
  // The rule is never banned.
  BackoffScheduler& do_not_ban(const std::string& rule);

  void start(const std::vector<std::string>& rule_names) override;
  std::size_t search_limit(std::size_t rule, std::size_t iteration) override;
  bool accept_matches(std::size_t rule, std::size_t iteration, std::size_t matches) override;
  bool can_stop(std::size_t iteration) override;

  // How often a rule has been banned so far.
  std::size_t times_banned(std::size_t rule) const { return rules_.at(rule).times_banned; }

 private:
  struct RuleState {
    std::size_t match_limit = 0;
    std::size_t ban_length = 0;
    std::size_t times_banned = 0;
    std::size_t banned_until = 0;
  };
  struct Override {
    std::string rule;
    std::size_t match_limit;
    std::size_t ban_length;
  };
  std::size_t threshold(const RuleState& state) const;

  std::size_t match_limit_ = 1000;
  std::size_t ban_length_ = 5;
  std::vector<Override> overrides_;
  std::vector<RuleState> rules_;
};

}  // namespace saturate::egraph
