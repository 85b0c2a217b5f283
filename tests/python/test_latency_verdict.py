"""The latency check's sequential paired test (saturate.latency_verdict) on synthetic run times:
it decides early on a clear speedup or slowdown, calls equal models equivalent or undecided but
never faster more often than its error rate, keeps sampling on noise, and its median interval
has the coverage it states."""
import math
import random

import pytest

from saturate import latency_verdict
from saturate.latency_verdict import SequentialPairedTest, checkpoints, median_interval


def run(test: SequentialPairedTest, pairs) -> latency_verdict.Verdict:
    for original, optimized in pairs:
        test.add(original, optimized)
        if test.verdict is not None:
            break
    return test.finish()


def noisy_pairs(rng, speedup, rounds, noise=0.2, base=10.0):
    """Paired run times with a shared per-round load factor (a busy machine slows both runs of
    a round) and independent heavy-tailed noise per run."""
    for _ in range(rounds):
        load = 1 + abs(rng.gauss(0, noise)) * (3 if rng.random() < 0.1 else 1)
        yield (base * load * math.exp(rng.gauss(0, noise / 4)),
               base / speedup * load * math.exp(rng.gauss(0, noise / 4)))


def test_the_looks_double_up_to_the_cap():
    assert checkpoints(200) == [10, 20, 40, 80, 160, 200]
    assert checkpoints(10) == [10]
    assert checkpoints(3) == [3]


def test_a_clear_speedup_is_decided_at_the_first_look():
    verdict = run(SequentialPairedTest(200), [(10.0, 8.0 + 0.01 * k) for k in range(200)])
    assert verdict.kind == "faster" and verdict.rounds == 10
    assert verdict.speedup_low > 1 and verdict.speedup == pytest.approx(10 / 8.045, rel=0.01)


def test_a_clear_slowdown_is_decided_slower():
    verdict = run(SequentialPairedTest(200), [(8.0, 10.0 + 0.01 * k) for k in range(200)])
    assert verdict.kind == "slower" and verdict.speedup_high < 1


def test_equal_models_are_equivalent_once_the_interval_is_narrow():
    rng = random.Random(3)
    pairs = [(10 * (1 + rng.gauss(0, 0.002)), 10 * (1 + rng.gauss(0, 0.002)))
             for _ in range(200)]
    verdict = run(SequentialPairedTest(200), pairs)
    assert verdict.kind == "equivalent"
    assert 0.99 < verdict.speedup_low <= verdict.speedup <= verdict.speedup_high < 1.01


def test_noise_without_a_difference_is_rarely_called_faster():
    rng = random.Random(11)
    verdicts = [run(SequentialPairedTest(200), noisy_pairs(rng, 1.0, 200)).kind
                for _ in range(300)]
    # The whole sequence of looks errs at most 5 %; each direction about half of that.
    assert verdicts.count("faster") <= 0.05 * len(verdicts)


def test_a_five_percent_speedup_on_a_busy_machine_is_found():
    rng = random.Random(5)
    verdicts = [run(SequentialPairedTest(200), noisy_pairs(rng, 1.05, 200)).kind
                for _ in range(50)]
    assert verdicts.count("faster") >= 45


def test_a_budget_that_stops_early_gives_a_plain_undecided_with_its_interval():
    test = SequentialPairedTest(200)
    for original, optimized in [(10, 9), (10, 11), (10, 9.5), (10, 10.4), (10, 9.8)]:
        test.add(original, optimized)
    verdict = test.finish()
    assert verdict.kind == "undecided" and verdict.rounds == 5
    # Five rounds bound no interval at this confidence: the ends are unbounded (null in JSON).
    assert verdict.as_dict()["speedup_low"] == 0.0 and verdict.as_dict()["speedup_high"] is None


def test_the_median_interval_covers_as_stated():
    rng = random.Random(2)
    misses = 0
    for _ in range(2000):
        values = [rng.expovariate(1.0) - math.log(2) for _ in range(30)]  # median 0
        low, high = median_interval(values, 0.1)
        misses += not (low <= 0 <= high)
    assert misses / 2000 <= 0.1 + 0.02


def test_a_time_budget_never_ends_the_test_before_its_third_look():
    """A full-size model spends a 5 s budget in 20 rounds, where 8-10 % gains stayed undecided:
    the budget stops an undecided test only from the 40th round (or the last allowed)."""
    floor = latency_verdict.BUDGET_FLOOR
    assert floor == checkpoints(200)[2] == 40
    assert not latency_verdict.budget_stops(20, spent_seconds=60, budget_seconds=5, max_rounds=200)
    assert not latency_verdict.budget_stops(floor - 1, 60, 5, 200)
    assert latency_verdict.budget_stops(floor, 60, 5, 200)
    assert not latency_verdict.budget_stops(100, 4, 5, 200)  # within the budget
    assert latency_verdict.budget_stops(30, 60, 5, max_rounds=30)  # fewer rounds allowed
