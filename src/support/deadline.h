#pragma once

#include <algorithm>
#include <chrono>
#include <limits>
#include <string>

#include "support/error.h"

namespace saturate {

// A point in (steady) time by which a piece of work must end. Limits are passed down as one
// deadline rather than as seconds, so that every step below sees what is left of the whole
// budget, not a fresh budget of its own.
class Deadline {
 public:
  using Clock = std::chrono::steady_clock;

  static Deadline never() { return Deadline(Clock::time_point::max()); }
  static Deadline at(Clock::time_point when) { return Deadline(when); }
  // `seconds` from now; infinite or huge values mean never.
  static Deadline after(double seconds) { return never().sooner(seconds); }

  // The earlier of this deadline and `seconds` from now.
  Deadline sooner(double seconds) const {
    const double most =
        std::chrono::duration<double>(Clock::time_point::max() - Clock::now()).count();
    if (!(seconds < most)) return *this;
    const auto when = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                         std::chrono::duration<double>(std::max(seconds, 0.0)));
    return Deadline(std::min(when_, when));
  }
  Deadline sooner(Deadline other) const { return Deadline(std::min(when_, other.when_)); }

  bool is_never() const { return when_ == Clock::time_point::max(); }
  bool expired() const { return !is_never() && Clock::now() >= when_; }
  // Seconds left, at least 0; infinity for never.
  double seconds_left() const {
    if (is_never()) return std::numeric_limits<double>::infinity();
    return std::max(0.0, std::chrono::duration<double>(when_ - Clock::now()).count());
  }
  Clock::time_point when() const { return when_; }

 private:
  explicit Deadline(Clock::time_point when) : when_(when) {}
  Clock::time_point when_;
};

// Work stopped because its deadline came (a helper process killed mid-request): callers that
// can fall back (keep the original model, price by the analytic model) catch this one.
class DeadlinePassed : public Error {
 public:
  explicit DeadlinePassed(const std::string& message) : Error(message) {}
};

}  // namespace saturate
