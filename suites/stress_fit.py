"""Whether a stress ladder's timings are `slow`: the fitted log-log slope of time against size
compared with the growth the spec states, the backend's time against the oracle's, and its peak
memory against the bytes of the inputs and outputs.

    judgement = judge(rungs, "n log n")
    judgement.slow, judgement.reasons, judgement.slope

Pure arithmetic on a table of measurements: the runner (suites/stress.py) measures, this decides.
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Callable, Sequence

# the growths a spec may state (specs/schema.json's stress.complexity), as functions of n
GROWTH: dict[str, Callable[[float], float]] = {
    "1": lambda n: 1.0,
    "log n": lambda n: math.log(n),
    "n": lambda n: n,
    "n log n": lambda n: n * math.log(n),
    "n^2": lambda n: n * n,
    "n^2 log n": lambda n: n * n * math.log(n),
    "n^3": lambda n: n ** 3,
}


@dataclass(frozen=True)
class Rung:
    """One size of a ladder as measured (None: not measured, e.g. the backend refused it)."""

    n: int
    # the time the rules read: the fastest of the warm runs. Load from other processes only adds
    # time (a preempted run of 1 ms takes 5 to 10), and on a busy machine it can disturb more than
    # half of the runs, which moves the median but not the fastest
    backend_seconds: float | None
    oracle_seconds: float | None
    backend_peak_bytes: int | None = None  # peak resident memory of a run above the resident memory before it
    oracle_peak_bytes: int | None = None
    io_bytes: int = 0  # bytes of the inputs and the expected outputs
    verdict: str = "pass"  # the rung's own verdict (its outputs against the spec)
    backend_median: float | None = None  # the median of the warm runs, for the table
    oracle_median: float | None = None

    def row(self) -> dict:
        return asdict(self)

    @classmethod
    def of(cls, row: dict) -> "Rung":
        return cls(**{k: row.get(k) for k in cls.__dataclass_fields__ if k in row})


@dataclass(frozen=True)
class Thresholds:
    """What `clearly` means. A quadratic where the spec states n log n fits about 0.9 above it;
    cache effects on a hash table or a tree at 1e5..1e6 elements add 0.3 to 0.4."""

    excess_slope: float = 0.6  # fitted slope above the stated growth's over the same sizes
    # the oracle as a control, where its times over the same sizes are all measurable: the machine's
    # own superlinearity (caches, memory bandwidth, load from other processes) slows it as much as
    # the backend, so the backend must also grow this much faster than the oracle did
    excess_over_oracle: float = 0.3
    fit_points: int = 3  # the top rungs the slope is fitted on (with two sizes a decade: one decade)
    floor_seconds: float = 2e-3  # faster rungs are left out of the fit: fixed per-call costs and the timer rule them
    min_seconds: float = 1e-2  # the top rung must take this long for any time rule to speak
    oracle_factor: float = 100.0  # backend time over the oracle's at the largest size both ran
    memory_factor: float = 16.0  # peak memory over the inputs' and outputs' bytes at the largest size
    min_memory_bytes: int = 256 << 20  # below this no memory rule speaks (allocator pools, libraries)
    memory_floor_bytes: int = 16 << 20  # rungs with less peak memory are left out of the memory fit


@dataclass(frozen=True)
class Judgement:
    slow: bool
    reasons: tuple[str, ...]  # why slow: one line each
    summary: str  # the measurements in one line, whatever the verdict
    slope: float | None = None  # fitted exponent of time in n over `fitted`
    expected_slope: float | None = None  # the stated growth's exponent over the same sizes
    fitted: tuple[int, ...] = ()
    oracle_slope: float | None = None
    ratio: float | None = None  # backend / oracle time at `ratio_at`
    ratio_at: int | None = None
    memory_slope: float | None = None  # exponent of peak memory in the bytes of inputs and outputs
    memory_ratio: float | None = None  # peak memory / (input + output bytes) at the largest size measured

    def as_dict(self) -> dict:
        d = asdict(self)
        d["reasons"], d["fitted"] = list(self.reasons), list(self.fitted)
        return d


def slope(xs: Sequence[float], ys: Sequence[float]) -> float:
    """Least-squares slope of log y against log x."""
    if len(xs) < 2 or len(xs) != len(ys):
        raise ValueError(f"a slope needs two points or more with as many x as y; got {len(xs)} x, {len(ys)} y")
    lx, ly = [math.log(x) for x in xs], [math.log(y) for y in ys]
    mx, my = sum(lx) / len(lx), sum(ly) / len(ly)
    var = sum((x - mx) ** 2 for x in lx)
    if var == 0:
        raise ValueError("a slope needs two different sizes")
    return sum((x - mx) * (y - my) for x, y in zip(lx, ly)) / var


def growth_slope(complexity: str, ns: Sequence[int]) -> float:
    """The stated growth's own log-log slope over these sizes (n log n: a little above 1)."""
    try:
        f = GROWTH[complexity]
    except KeyError:
        raise ValueError(f"complexity {complexity!r}; expected one of {', '.join(GROWTH)}") from None
    return slope(ns, [f(n) for n in ns])


def _top(rungs: Sequence[Rung], field: str, floor: float, points: int) -> list[Rung]:
    timed = [r for r in rungs if getattr(r, field) is not None and getattr(r, field) >= floor]
    return timed[-points:]


def _time_slope(rungs: Sequence[Rung], complexity: str, t: Thresholds) -> tuple[float | None, float | None, tuple[int, ...]]:
    top = _top(rungs, "backend_seconds", t.floor_seconds, t.fit_points)
    if len(top) < t.fit_points or top[-1].backend_seconds < t.min_seconds:
        return None, None, ()
    ns = [r.n for r in top]
    return slope(ns, [r.backend_seconds for r in top]), growth_slope(complexity, ns), tuple(ns)


def _control_slope(rungs: Sequence[Rung], fitted: tuple[int, ...], t: Thresholds) -> float | None:
    """The oracle's slope over the sizes the backend's was fitted on, where every one of its
    times there is above the floor (below it, Python's per-call costs flatten it); else None."""
    at = {r.n: r.oracle_seconds for r in rungs}
    times = [at.get(n) for n in fitted]
    if len(times) < 2 or any(s is None or s < t.floor_seconds for s in times):
        return None
    return slope(list(fitted), times)


def _memory(rungs: Sequence[Rung], t: Thresholds) -> tuple[float | None, float | None, Rung | None]:
    measured = [r for r in rungs if r.backend_peak_bytes is not None and r.io_bytes > 0]
    if not measured:
        return None, None, None
    last = measured[-1]
    ratio = last.backend_peak_bytes / last.io_bytes
    top = _top(measured, "backend_peak_bytes", t.memory_floor_bytes, t.fit_points)
    fitted = slope([r.io_bytes for r in top], [r.backend_peak_bytes for r in top]) \
        if len(top) >= t.fit_points and len({r.io_bytes for r in top}) > 1 else None
    return fitted, ratio, last


def judge(rungs: Sequence[Rung], complexity: str, thresholds: Thresholds | None = None) -> Judgement:
    """Slow when, over the top rungs, time grows clearly faster than the stated growth (and than
    the oracle's, where the oracle's times there are measurable); or the backend is `oracle_factor` times slower than the oracle at the largest size both ran; or its
    peak memory is far beyond the inputs and outputs (`memory_factor` times, or growing clearly
    faster than they do). No rule speaks on times or memory too small to measure."""
    t = thresholds or Thresholds()
    rungs = sorted(rungs, key=lambda r: r.n)
    reasons, facts = [], []
    fitted_slope, expected, fitted = _time_slope(rungs, complexity, t)
    oracle_slope = None
    if fitted_slope is not None:
        span = f"n = {fitted[0]:,}..{fitted[-1]:,}"
        oracle_slope = _control_slope(rungs, fitted, t)
        control = "" if oracle_slope is None else f", oracle n^{oracle_slope:.2f}"
        facts.append(f"time ~ n^{fitted_slope:.2f} over {span} (stated {complexity}: n^{expected:.2f}{control})")
        if fitted_slope - expected > t.excess_slope and (oracle_slope is None or fitted_slope - oracle_slope > t.excess_over_oracle):
            reasons.append(f"time grows as n^{fitted_slope:.2f} over {span}, clearly faster than the stated "
                           f"{complexity} (n^{expected:.2f} there{control})")
    else:
        facts.append(f"too few rungs above {t.floor_seconds * 1e3:g} ms to fit a slope")
    both = [r for r in rungs if r.backend_seconds is not None and r.oracle_seconds]
    ratio = ratio_at = None
    if both:
        last = both[-1]
        ratio, ratio_at = last.backend_seconds / last.oracle_seconds, last.n
        facts.append(f"{ratio:.3g}x the oracle at n = {ratio_at:,}")
        if ratio > t.oracle_factor and last.backend_seconds >= t.min_seconds:
            reasons.append(f"{ratio:.0f}x the oracle's time at n = {ratio_at:,} ({last.backend_seconds:.3g} s against "
                           f"{last.oracle_seconds:.3g} s; more than {t.oracle_factor:g}x)")
    memory_slope, memory_ratio, last_mem = _memory(rungs, t)
    if last_mem is not None:
        peak = last_mem.backend_peak_bytes
        facts.append(f"peak memory {peak / 2**20:.1f} MiB = {memory_ratio:.2g}x the inputs and outputs at n = {last_mem.n:,}")
        if peak >= t.min_memory_bytes and memory_ratio > t.memory_factor:
            reasons.append(f"peak memory {peak / 2**20:.0f} MiB at n = {last_mem.n:,} is {memory_ratio:.0f}x the "
                           f"{last_mem.io_bytes / 2**20:.1f} MiB of inputs and outputs (more than {t.memory_factor:g}x)")
        elif memory_slope is not None and memory_slope - 1 > t.excess_slope and peak >= t.min_memory_bytes:
            reasons.append(f"peak memory grows as (input and output bytes)^{memory_slope:.2f}, clearly faster than they do")
    return Judgement(bool(reasons), tuple(reasons), "; ".join(facts), fitted_slope, expected, fitted, oracle_slope,
                     ratio, ratio_at, memory_slope, memory_ratio)
