"""Factor coverage of the generator alone: for each spec version, what a run under a profile would
plan (suites.plan, as `opconform run` does, with its case cache, but no backend): the factors, the
covering rows and those no case could hold, and the pairs (and, for certify, triples) of factor
values the planned valid cases exercise. `opconform coverage --spec PATTERN --profile P` plans the
cases (opconform.commands.coverage.planned) and prints this count of them; the HTML report shows the
same per backend (reports/factor_coverage.py).
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Sequence

from opconform import specs
from opconform.generator.factors import Factor, factors
from opconform.generator.tuple_coverage import tuple_coverage
from opconform.reports.factor_coverage import MAX_MISSING, tuple_text, value_text
from opconform.suites.plan import SpecCases


@dataclass
class Strength:
    t: int
    total: int
    exercised: int
    missing: list[str]  # the first MAX_MISSING not exercised, as text

    @property
    def fraction(self) -> float:
        return 1.0 if self.total == 0 else self.exercised / self.total


@dataclass
class PlannedCoverage:
    spec_id: str
    factors: list[str] = field(default_factory=list)  # "type:T (12: float32, ...)"
    rows: int = 0  # covering rows the valid cases were drawn for
    infeasible: list[tuple[int, str]] = field(default_factory=list)  # (row, why no case held it)
    cases: int = 0  # valid cases planned
    strengths: list[Strength] = field(default_factory=list)  # pairs, then triples for certify
    error: str | None = None  # why the spec version could not be planned

    def to_json(self) -> dict:
        return asdict(self)


def describe(spec_factor: Factor, spec) -> str:
    shown = [value_text(spec, spec_factor.name, v) for v in spec_factor.values]
    text = ", ".join(shown[:6]) + (", ..." if len(shown) > 6 else "")
    return f"{spec_factor.name} ({len(shown)}: {text})"


def of_planned(sc: SpecCases, t: int) -> PlannedCoverage:
    """Count the factor tuples one planned spec version's valid cases exercise (the must-refuse
    cases break a relation on purpose, as in plan.exercised_coverage)."""
    out = PlannedCoverage(sc.spec_id, rows=sc.rows, infeasible=list(sc.infeasible), error=sc.error)
    if sc.error:
        return out
    spec = specs.load(sc.spec_id)
    fs = factors(spec)
    out.factors = [describe(f, spec) for f in fs]
    valid = [c for c in sc.cases if c.expected.kind != "error" and not c.label.startswith("breaks:")]
    out.cases = len(valid)
    for k in sorted({2, max(t, 2)}):
        cov = tuple_coverage(spec, valid, k, fs)
        out.strengths.append(Strength(k, cov.total, cov.exercised, [tuple_text(spec, m) for m in cov.missing[:MAX_MISSING]]))
    return out


def totals(items: Sequence[PlannedCoverage]) -> dict[int, tuple[int, int]]:
    """t -> (exercised, total) over every spec version."""
    out: dict[int, tuple[int, int]] = {}
    for p in items:
        for s in p.strengths:
            e, n = out.get(s.t, (0, 0))
            out[s.t] = (e + s.exercised, n + s.total)
    return out
