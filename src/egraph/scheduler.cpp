#include "egraph/scheduler.h"

#include <limits>

namespace saturate::egraph {
namespace {

constexpr std::size_t kUnlimited = std::numeric_limits<std::size_t>::max();

// limit * 2^shift, saturating instead of overflowing.
std::size_t shifted(std::size_t limit, std::size_t shift) {
  if (limit == kUnlimited) return kUnlimited;
  if (shift >= 63 || limit > (kUnlimited >> shift)) return kUnlimited;
  return limit << shift;
}

}  // namespace

std::size_t SimpleScheduler::search_limit(std::size_t, std::size_t) {
  return kUnlimited;
}
bool SimpleScheduler::accept_matches(std::size_t, std::size_t, std::size_t) {
  return true;
}
bool SimpleScheduler::can_stop(std::size_t) {
  return true;
}

BackoffScheduler& BackoffScheduler::with_initial_match_limit(std::size_t limit) {
  match_limit_ = limit;
  return *this;
}

BackoffScheduler& BackoffScheduler::with_ban_length(std::size_t iterations) {
  ban_length_ = iterations;
  return *this;
}

BackoffScheduler& BackoffScheduler::with_rule_match_limit(const std::string& rule,
                                                          std::size_t limit) {
  overrides_.push_back(Override{rule, limit, 0});
  return *this;
}

BackoffScheduler& BackoffScheduler::with_rule_ban_length(const std::string& rule,
                                                         std::size_t iterations) {
  overrides_.push_back(Override{rule, 0, iterations});
  return *this;
}

BackoffScheduler& BackoffScheduler::do_not_ban(const std::string& rule) {
  return with_rule_match_limit(rule, kUnlimited);
}

void BackoffScheduler::start(const std::vector<std::string>& rule_names) {
  rules_.assign(rule_names.size(), RuleState{match_limit_, ban_length_, 0, 0});
  for (std::size_t rule = 0; rule < rule_names.size(); ++rule) {
    for (const Override& override_ : overrides_) {
      if (override_.rule != rule_names[rule]) continue;
      if (override_.match_limit != 0) rules_[rule].match_limit = override_.match_limit;
      if (override_.ban_length != 0) rules_[rule].ban_length = override_.ban_length;
    }
  }
}

std::size_t BackoffScheduler::threshold(const RuleState& state) const {
  return shifted(state.match_limit, state.times_banned);
}

std::size_t BackoffScheduler::search_limit(std::size_t rule, std::size_t iteration) {
  if (rule >= rules_.size()) rules_.resize(rule + 1, RuleState{match_limit_, ban_length_, 0, 0});
  const RuleState& state = rules_[rule];
  if (iteration < state.banned_until) return 0;
  std::size_t limit = threshold(state);
  // One more than the threshold, so accept_matches can tell "at the limit" from "over it".
  return limit == kUnlimited ? kUnlimited : limit + 1;
}

bool BackoffScheduler::accept_matches(std::size_t rule, std::size_t iteration,
                                      std::size_t matches) {
  RuleState& state = rules_[rule];
  if (matches <= threshold(state)) return true;
  std::size_t ban = shifted(state.ban_length, state.times_banned);
  state.times_banned += 1;
  state.banned_until = ban == kUnlimited ? kUnlimited : iteration + ban;
  return false;
}

bool BackoffScheduler::can_stop(std::size_t iteration) {
  bool any_banned = false;
  for (RuleState& state : rules_) {
    if (state.banned_until > iteration) {
      any_banned = true;
      state.banned_until = iteration;
    }
  }
  return !any_banned;
}

}  // namespace saturate::egraph
