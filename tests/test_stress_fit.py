"""The stress profile's verdict rule on synthetic timing tables (suites/stress_fit.py, suites/stress.py):
slopes, the stated growth, the oracle as a control, the oracle factor and peak memory."""
from __future__ import annotations

import json
import math

import pytest

from opconform import specs
from opconform.suites import stress
from opconform.suites.stress_fit import GROWTH, Rung, Thresholds, growth_slope, judge, slope

SIZES = [100, 316, 1000, 3162, 10_000, 31_623, 100_000]


def table(backend, oracle=lambda n: 1e-8 * n * math.log(n), peak=lambda n: None, io=lambda n: 4 * n) -> list[Rung]:
    return [Rung(n, backend(n), oracle(n), peak(n), None, io(n)) for n in SIZES]


def test_slope_is_the_exponent_of_a_power_law():
    assert slope([1, 10, 100], [3, 300, 30000]) == pytest.approx(2.0)
    assert slope([10, 100, 1000], [5, 5, 5]) == pytest.approx(0.0)
    with pytest.raises(ValueError, match="two different sizes"):
        slope([10, 10], [1, 2])


def test_growth_slope_of_n_log_n_is_a_little_above_one():
    s = growth_slope("n log n", [10_000, 31_623, 100_000])
    assert 1.05 < s < 1.15
    assert growth_slope("n^2", [10, 100]) == pytest.approx(2.0)
    with pytest.raises(ValueError, match="complexity 'n!'"):
        growth_slope("n!", [10, 100])


def test_the_schema_names_exactly_the_growths_the_fit_knows():
    schema = json.loads(specs.SCHEMA_PATH.read_text())
    stress_schema = schema["$defs"]["version"]["properties"]["stress"]
    assert set(stress_schema["properties"]["complexity"]["enum"]) == set(GROWTH)


def test_n_log_n_as_stated_is_not_slow():
    j = judge(table(lambda n: 5e-8 * n * math.log(n) + 5e-5), "n log n")
    assert not j.slow, j.reasons
    assert j.slope == pytest.approx(growth_slope("n log n", j.fitted), abs=0.05)
    assert j.fitted == (10_000, 31_623, 100_000)


def test_quadratic_where_n_log_n_is_stated_is_slow_with_its_slope_as_evidence():
    j = judge(table(lambda n: 1e-9 * n * n + 5e-5), "n log n")
    assert j.slow
    assert j.slope == pytest.approx(2.0, abs=0.05)
    assert any("n^2.00" in r and "n log n" in r for r in j.reasons), j.reasons


def test_quadratic_is_not_slow_where_the_spec_states_quadratic():
    j = judge(table(lambda n: 1e-9 * n * n + 5e-5, oracle=lambda n: 1e-9 * n * n), "n^2")
    assert not j.slow, j.reasons


def test_no_time_rule_speaks_below_the_measurable():
    # quadratic, but the top rung takes 1 ms: fixed costs, timer resolution and load rule there
    j = judge(table(lambda n: 1e-13 * n * n + 1e-6, oracle=lambda n: 1e-9 * n), "n")
    assert j.slope is None and not j.slow
    assert "too few rungs" in j.summary


def test_the_oracle_growing_as_fast_is_the_machine_not_the_backend():
    grows = lambda n: 1e-10 * n ** 1.8  # noqa: E731
    alone = judge(table(grows, oracle=lambda n: 1e-9 * n), "n")  # oracle below the floor: no control
    assert alone.slow and alone.oracle_slope is None
    controlled = judge(table(grows, oracle=grows), "n")
    assert not controlled.slow, controlled.reasons
    assert controlled.oracle_slope == pytest.approx(controlled.slope, abs=0.1)


def test_far_slower_than_the_oracle_at_the_largest_common_size_is_slow():
    linear = lambda n: 1e-6 * n  # noqa: E731
    j = judge(table(linear, oracle=lambda n: 1e-6 * n / 500), "n")
    assert j.slow and j.ratio == pytest.approx(500) and j.ratio_at == 100_000
    assert any("500x the oracle" in r for r in j.reasons)
    assert not judge(table(linear, oracle=lambda n: 1e-6 * n / 50), "n").slow
    # the factor is a setting
    assert judge(table(linear, oracle=lambda n: 1e-6 * n / 50), "n", Thresholds(oracle_factor=20)).slow


def test_the_largest_common_size_is_the_last_the_oracle_also_ran():
    rungs = table(lambda n: 1e-6 * n, oracle=lambda n: 1e-6 * n)
    rungs[-1] = Rung(rungs[-1].n, rungs[-1].backend_seconds, None, None, None, 0)
    assert judge(rungs, "n").ratio_at == 31_623


def test_peak_memory_far_beyond_inputs_and_outputs_is_slow():
    linear = lambda n: 1e-7 * n  # noqa: E731
    big = judge(table(linear, oracle=linear, peak=lambda n: 4 * n * 1000, io=lambda n: 4 * n), "n")
    assert big.slow and any("peak memory" in r for r in big.reasons)
    assert big.memory_ratio == pytest.approx(1000)
    # the same ratio, but a few MiB: allocator pools, not a finding
    small = judge(table(linear, oracle=linear, peak=lambda n: 40 * n, io=lambda n: 4 * n / 100), "n")
    assert small.memory_ratio == pytest.approx(1000) and not small.slow
    fine = judge(table(linear, oracle=linear, peak=lambda n: 8 * n, io=lambda n: 4 * n), "n")
    assert not fine.slow


def rung_row(n: int, backend: float | None, oracle: float | None, verdict: str = "pass") -> dict:
    return {"verdict": verdict, "extra": {"stress": {"ladder": "distinct", "n": n, "backend_seconds": backend,
                                                     "oracle_seconds": oracle, "io_bytes": 4 * n}}}


def test_a_ladder_stops_past_the_cap_on_a_failure_and_at_its_top():
    assert stress.stop_reason(rung_row(1000, 0.1, 0.01), cap=0.5, last=False) == ""
    assert "backend took 0.7 s" in stress.stop_reason(rung_row(1000, 0.7, 0.01), cap=0.5, last=False)
    assert "oracle took 0.9 s" in stress.stop_reason(rung_row(1000, 0.1, 0.9), cap=0.5, last=False)
    assert stress.stop_reason(rung_row(1000, None, None, "timeout"), cap=0.5, last=False) == "timeout at n = 1,000"
    assert stress.stop_reason(rung_row(1000, 0.1, 0.01, "mismatch"), cap=0.5, last=False) == ""
    assert stress.stop_reason(rung_row(1000, 0.1, 0.01), cap=0.5, last=True) == "the top of the ladder"


def test_the_ladder_line_of_a_quadratic_ladder_is_slow_with_the_table():
    spec = specs.load("onnx::Unique-11")
    ladder = stress.Ladder(spec, "distinct", SIZES, seed=0, cap=0.5)
    for n in SIZES[:-1]:
        ladder.add(rung_row(n, 1e-9 * n * n + 5e-5, 1e-8 * n * math.log(n)))
    ladder.add(rung_row(SIZES[-1], None, None, "timeout"))
    line = stress.ladder_result(ladder, "somebackend", Thresholds())
    assert line["verdict"] == "slow" and line["detail"].startswith("slow: ")
    evidence = line["extra"]["stress_ladder"]
    assert [row["n"] for row in evidence["table"]] == SIZES[:-1]  # the timeout rung holds no time
    assert evidence["stopped"] == "timeout at n = 100,000"
    assert evidence["complexity"] == "n log n" and evidence["slope"] > 1.9


def test_a_ladder_with_no_timed_rung_has_no_line():
    ladder = stress.Ladder(specs.load("onnx::Unique-11"), "distinct", SIZES, seed=0, cap=0.5)
    ladder.add(rung_row(100, None, None, "unsupported"))
    assert ladder.stopped and stress.ladder_result(ladder, "b", Thresholds()) is None
