"""Counting verdicts, and what "a spec passes" means.

A (backend, spec version) pair has one status:
  - "fail": at least one case failed (any verdict other than pass and unsupported);
  - "pass": at least one case passed and none failed (unsupported cases are allowed: the backend
    said so up front, it did not give a wrong answer);
  - "unsupported": every case was unsupported.
The pass rate counts only the cases that ran: pass / (cases - unsupported).
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Iterable

from opconform.model import Result, Verdict

VERDICTS: tuple[Verdict, ...] = tuple(Verdict)
FAILURES: tuple[Verdict, ...] = tuple(v for v in Verdict if v.is_failure)


@dataclass
class Tally:
    counts: Counter = field(default_factory=Counter)  # Verdict -> number of cases

    @classmethod
    def of(cls, results: Iterable[Result]) -> "Tally":
        return cls(Counter(r.verdict for r in results))

    def add(self, verdict: Verdict) -> None:
        self.counts[verdict] += 1

    def __add__(self, other: "Tally") -> "Tally":
        return Tally(self.counts + other.counts)

    def count(self, verdict: str | Verdict) -> int:
        return self.counts[Verdict(verdict)]

    @property
    def total(self) -> int:
        return sum(self.counts.values())

    @property
    def passed(self) -> int:
        return self.counts[Verdict.PASS]

    @property
    def unsupported(self) -> int:
        return self.counts[Verdict.UNSUPPORTED]

    @property
    def failed(self) -> int:
        return sum(self.counts[v] for v in FAILURES)

    @property
    def ran(self) -> int:
        return self.total - self.unsupported

    @property
    def pass_rate(self) -> float | None:
        return self.passed / self.ran if self.ran else None

    @property
    def status(self) -> str:
        if self.failed:
            return "fail"
        if self.passed:
            return "pass"
        return "unsupported"

    def as_dict(self) -> dict:
        return {
            "cases": self.total,
            "status": self.status,
            "pass_rate": None if self.pass_rate is None else round(self.pass_rate, 6),
            "verdicts": {v.value: self.counts[v] for v in VERDICTS if self.counts[v]},
        }
