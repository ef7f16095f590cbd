"""Counting verdicts, and what "a spec passes" means.

A (backend, spec version) pair has one status:
  - "fail": at least one case failed (Verdict.is_failure: not pass, unsupported or harness-error);
  - "pass": at least one case passed and none failed (unsupported cases are allowed: the backend
    said so up front, it did not give a wrong answer);
  - "not-run": no case ran, or none of its valid cases did (opconform.attempts): its refusals of
    must-refuse cases pass but say nothing, and `reason` says why nothing ran.
The pass rate counts only the cases that ran (Verdict.ran: not unsupported, not harness-error),
leaving out the passes of a pair not run. Harness errors are opconform's own failures: counted
apart, in no rate and in no status.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Iterable

from opconform.attempts import Attempts, per_pair
from opconform.model import Result, Verdict

VERDICTS: tuple[Verdict, ...] = tuple(Verdict)
FAILURES: tuple[Verdict, ...] = tuple(v for v in Verdict if v.is_failure)


@dataclass
class Tally:
    counts: Counter = field(default_factory=Counter)  # Verdict -> number of cases
    idle_passes: int = 0  # passes of (backend, spec version) pairs not run: in no pass rate
    not_run_reasons: Counter = field(default_factory=Counter)  # why the valid cases of pairs not run did not run

    @classmethod
    def of(cls, results: Iterable[Result]) -> "Tally":
        """The tally of any results: whether a pair ran is decided per (backend, spec version)."""
        results = list(results)
        t = cls(Counter(r.verdict for r in results))
        for a in per_pair(results).values():
            if a.not_run:
                t.idle_passes += a.idle_passes
                t.not_run_reasons.update(a.reasons)
        return t

    def add(self, verdict: Verdict) -> None:
        self.counts[verdict] += 1

    def __add__(self, other: "Tally") -> "Tally":
        return Tally(self.counts + other.counts, self.idle_passes + other.idle_passes,
                     self.not_run_reasons + other.not_run_reasons)

    def count(self, verdict: str | Verdict) -> int:
        return self.counts[Verdict(verdict)]

    @property
    def total(self) -> int:
        return sum(self.counts.values())

    @property
    def passed(self) -> int:
        """Passes that count: those of pairs that ran."""
        return self.counts[Verdict.PASS] - self.idle_passes

    @property
    def unsupported(self) -> int:
        return self.counts[Verdict.UNSUPPORTED]

    @property
    def failed(self) -> int:
        return sum(self.counts[v] for v in FAILURES)

    @property
    def harness_errors(self) -> int:
        return self.counts[Verdict.HARNESS_ERROR]

    @property
    def ran(self) -> int:
        """Cases the backend answered, less the passes of pairs not run: the pass rate's denominator."""
        return sum(n for v, n in self.counts.items() if v.ran) - self.idle_passes

    @property
    def pass_rate(self) -> float | None:
        return self.passed / self.ran if self.ran else None

    @property
    def status(self) -> str:
        if self.failed:
            return "fail"
        if self.passed:
            return "pass"
        return "not-run"

    @property
    def reason(self) -> str:
        """Why a pair did not run (its valid cases' most frequent messages); "" when it ran."""
        if self.status != "not-run":
            return ""
        if self.not_run_reasons:
            return Attempts(reasons=self.not_run_reasons).reason()
        return "every case unsupported" if self.unsupported else "no case ran"

    def as_dict(self) -> dict:
        d = {
            "cases": self.total,
            "status": self.status,
            "pass_rate": None if self.pass_rate is None else round(self.pass_rate, 6),
            "ran": self.ran,
            "verdicts": {v.value: self.counts[v] for v in VERDICTS if self.counts[v]},
        }
        if self.status == "not-run":
            d["not_run_reason"] = self.reason
        return d
