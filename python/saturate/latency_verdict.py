"""The latency check's verdict: a sequential paired test on whole-model run times.

Each round runs the original and the optimized model back to back (saturate.ort_latency); its
difference is ``d = ln(optimized ms / original ms)``. The estimated speedup is
``exp(-median d)``, with a distribution-free interval for the median from the order statistics
of the d's (no assumption on the noise, which on a busy machine is anything but normal). The
test looks at the rounds at fixed checkpoints (10, 20, 40, ... rounds, and once more when the
budget or the round cap ends sampling); each look uses ``alpha / looks`` (Bonferroni), so the
whole sequence errs with probability at most ``alpha``. At a look the verdict is

- ``faster``: the whole interval is a speedup (the optimized model is written);
- ``slower``: the whole interval is a slowdown;
- ``equivalent``: the whole interval lies within +-EQUIVALENCE (no difference worth a file);
- none yet: sampling continues; at the last look that is ``undecided``.

Only ``faster`` writes the optimized model; the report gives the speedup and its interval
either way, so "undecided, 0.97x to 1.08x" says plainly why the original was kept.
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass

ALPHA = 0.05  # the chance, over the whole sequence of looks, of a wrong faster/slower verdict
EQUIVALENCE = 0.01  # speedups within 1 % count as none
FIRST_LOOK = 10  # rounds: with fewer, no median interval is narrower than the data's range
# Rounds a time budget never cuts short (the third look): at 20 rounds, full-size BERT-base
# exports 8-10 % faster by their medians were undecided (interval 0.97-1.15 and 1.00-1.20).
BUDGET_FLOOR = 40


def budget_stops(rounds: int, spent_seconds: float, budget_seconds: float,
                 max_rounds: int) -> bool:
    """Whether a time budget ends an undecided test after ``rounds`` rounds: once it is spent,
    but not before BUDGET_FLOOR rounds (or every round allowed, if fewer)."""
    return spent_seconds > budget_seconds and rounds >= min(BUDGET_FLOOR, max_rounds)


@dataclass
class Verdict:
    kind: str  # faster, slower, equivalent or undecided
    rounds: int
    speedup: float  # original / optimized, from the median paired log-ratio
    speedup_low: float
    speedup_high: float
    confidence: float  # of the interval, per look

    def as_dict(self) -> dict:
        # An unbounded end (too few rounds for any interval) is null in JSON.
        return {key: (None if isinstance(value, float) and not math.isfinite(value) else value)
                for key, value in asdict(self).items()}


def checkpoints(max_rounds: int) -> list[int]:
    """The rounds at which the test looks (the final look when sampling stops is extra)."""
    looks, n = [], FIRST_LOOK
    while n < max_rounds:
        looks.append(n)
        n *= 2
    looks.append(max_rounds)
    return looks


def _binomial_cdf(k: int, n: int) -> float:
    """P(X <= k) for X ~ Binomial(n, 1/2)."""
    return sum(math.comb(n, i) for i in range(0, k + 1)) / 2.0 ** n


def median_interval(values: list[float], alpha: float) -> tuple[float, float]:
    """A two-sided 1 - alpha interval for the median of the distribution the values come from:
    [x_(k), x_(n-k+1)] with the largest k such that P(Binomial(n, 1/2) < k) <= alpha / 2. With
    too few values for that, the values' whole range (an interval that decides nothing)."""
    ordered = sorted(values)
    n = len(ordered)
    k = 0
    while k + 1 <= n // 2 and _binomial_cdf(k, n) <= alpha / 2:
        k += 1
    if k == 0:
        return -math.inf, math.inf
    return ordered[k - 1], ordered[n - k]


def look(diffs: list[float], alpha_per_look: float, final: bool) -> Verdict | None:
    """The verdict on the paired log-ratios so far; None (keep sampling) unless decided or
    final."""
    n = len(diffs)
    ordered = sorted(diffs)
    middle = ordered[n // 2] if n % 2 else (ordered[n // 2 - 1] + ordered[n // 2]) / 2
    low, high = median_interval(diffs, alpha_per_look)
    bound = math.log1p(EQUIVALENCE)
    if high < 0:
        kind = "faster"
    elif low > 0:
        kind = "slower"
    elif -bound < low and high < bound:
        kind = "equivalent"
    elif final:
        kind = "undecided"
    else:
        return None
    return Verdict(kind, n, math.exp(-middle), math.exp(-high), math.exp(-low),
                   1 - alpha_per_look)


class SequentialPairedTest:
    """Feed it each round's (original ms, optimized ms); ``verdict`` is set once decided."""

    def __init__(self, max_rounds: int, alpha: float = ALPHA):
        self.looks = checkpoints(max_rounds)
        self.alpha_per_look = alpha / (len(self.looks) + 1)
        self.diffs: list[float] = []
        self.verdict: Verdict | None = None

    def add(self, original_ms: float, optimized_ms: float) -> None:
        self.diffs.append(math.log(max(optimized_ms, 1e-9) / max(original_ms, 1e-9)))
        if self.verdict is None and len(self.diffs) in self.looks:
            self.verdict = look(self.diffs, self.alpha_per_look, final=False)

    def finish(self) -> Verdict:
        """The verdict when sampling stops (the budget ran out or the cap was reached)."""
        if self.verdict is None:
            self.verdict = look(self.diffs, self.alpha_per_look, final=True) if self.diffs else \
                Verdict("undecided", 0, 1.0, 0.0, math.inf, 1 - self.alpha_per_look)
        return self.verdict
