#pragma once

// How busy the machine is while operator costs are timed. Costs timed while other work competes
// for the cores come out too high, and once cached they would be reused as truth by every later
// run (the same model optimized four times at once gave four different results). So the
// measured cost model asks a probe before and after each batch it times, and caches only the
// batches timed on a quiet machine; the others price this run alone.
#include <string>

namespace saturate::cost {

class LoadProbe {
 public:
  virtual ~LoadProbe() = default;
  // Milliseconds per unit of the probe's work when its cores are free: the least of many short
  // runs, since some short run finds the cores free even on a busy machine.
  virtual double quiet_ms() = 0;
  // Milliseconds per unit now: the median of a few longer runs, which competing work slows.
  virtual double current_ms() = 0;
  // Identifies the probe's work in the cost cache, where the quiet time is kept per machine.
  virtual std::string name() const = 0;
};

// A batch timed while the probe ran this many times slower than quiet is not cached. A fixed
// register-only computation varies by a few percent on an idle machine; one competing process
// on its cores makes it about twice as slow.
inline constexpr double kBusyLoadRatio = 1.3;

// The probe Saturate uses: a fixed chain of dependent floating-point operations, run on as many
// threads as the operator timer uses, so that work on any of the timer's cores is seen. Each
// thread times its own loop (thread start-up is not counted); a run takes the slowest thread.
class CalibrationKernel : public LoadProbe {
 public:
  explicit CalibrationKernel(int threads);
  double quiet_ms() override;
  double current_ms() override;
  std::string name() const override;

 private:
  // Milliseconds per unit of `units` units on every thread at once (the slowest thread).
  double run_ms(int units) const;

  int threads_;
};

}  // namespace saturate::cost
