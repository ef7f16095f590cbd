"""Whether a backend ran a spec version at all, and why not.

A case ran when the backend answered it (Verdict.ran: not unsupported, not harness-error). That is
not enough for a spec version: a backend that implements none of it still refuses every
must-refuse case, and each refusal passes ("refused as required"); tract on onnx::Unique, whose
every valid case is unsupported, would show 100% pass on those alone. So a spec version is *not run*
on a backend when it had valid cases (expected outputs) and none of them ran; its passes then say
nothing and count in no pass rate, and the backend's messages for the valid cases say why.

The runner's summary (suites) and the report's tallies (reports) both decide it here.
"""
from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Iterable

from opconform.model import Result, Verdict

REASONS_SHOWN = 2


@dataclass
class Attempts:
    """What one backend did with the cases of one spec version, as far as "did it run" goes."""

    valid: int = 0  # valid cases (the spec expects outputs)
    valid_ran: int = 0  # of those, the ones the backend answered
    passes: int = 0  # cases that passed, valid or not
    reasons: Counter = field(default_factory=Counter)  # first line of the message of each valid case that did not run

    def add(self, verdict: Verdict, expected_kind: str, message: str = "") -> None:
        if verdict is Verdict.PASS:
            self.passes += 1
        if expected_kind != "outputs":
            return
        self.valid += 1
        if verdict.ran:
            self.valid_ran += 1
        else:
            self.reasons[first_line(message) or verdict.value] += 1

    @property
    def not_run(self) -> bool:
        """Valid cases there were, and the backend answered none of them."""
        return self.valid > 0 and self.valid_ran == 0

    @property
    def idle_passes(self) -> int:
        """Passes that count in no pass rate: those of a spec version not run (refusals of a backend
        that refuses everything)."""
        return self.passes if self.not_run else 0

    def reason(self) -> str:
        """Why the valid cases did not run: the backend's most frequent messages."""
        top = self.reasons.most_common(REASONS_SHOWN)
        text = "; ".join(f"{m} ({n} case{'s' if n > 1 else ''})" for m, n in top)
        more = len(self.reasons) - len(top)
        return text + (f"; and {more} other message{'s' if more > 1 else ''}" if more > 0 else "")


def per_pair(results: Iterable[Result]) -> dict[tuple[str, str], Attempts]:
    """(backend, spec id) -> its Attempts, over any results (a run, shards merged, a report's set)."""
    pairs: dict[tuple[str, str], Attempts] = defaultdict(Attempts)
    for r in results:
        pairs[(r.backend, r.spec_id)].add(r.verdict, expected_kind(r.extra, r.case), r.backend_message or r.detail)
    return dict(pairs)


def not_run(results: Iterable[Result]) -> dict[str, str]:
    """Spec version -> why none of its valid cases ran, for those not run (one backend's results;
    with several, the spec id is prefixed with the backend's name)."""
    pairs = per_pair(results)
    several = len({b for b, _ in pairs}) > 1
    return {(f"{b} {s}" if several else s): a.reason() for (b, s), a in sorted(pairs.items()) if a.not_run}


def first_line(message: str, limit: int = 200) -> str:
    text = (message or "").strip()
    return text.splitlines()[0].split(" | ")[0][:limit] if text else ""


def expected_kind(result_extra: dict | None, case: dict | None) -> str:
    """A result line's expected kind: extra["expected_kind"], else its case's expectation."""
    kind = (result_extra or {}).get("expected_kind")
    if kind:
        return str(kind)
    return str(((case or {}).get("expected") or {}).get("kind", ""))
