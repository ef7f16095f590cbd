"""How a backend compiled the models it ran: once per signature with dynamic dimensions, or once per
input shape where its compiler refused the dynamic model (backends/compiled.py records it per
case, as the result's extra["compiled"]). Results that record nothing (an interpreter, or runs made
before it was recorded) give no line."""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from opconform.reports.resultset import ResultSet, spec_sort_key

DYNAMIC, PER_SHAPE = "dynamic", "per-shape"


@dataclass(frozen=True)
class CompileModes:
    """One backend's (or one backend and spec version's) cases by how their model was compiled."""

    dynamic_cases: int
    per_shape_cases: int
    dynamic_specs: tuple[str, ...] = ()  # spec versions every compiled case of which ran on a dynamic model
    per_shape_specs: tuple[str, ...] = ()  # spec versions with a case compiled for its shapes

    def as_dict(self) -> dict:
        return {"dynamic_cases": self.dynamic_cases, "per_shape_cases": self.per_shape_cases,
                "dynamic_spec_versions": len(self.dynamic_specs), "per_shape_spec_versions": list(self.per_shape_specs)}

    @property
    def text(self) -> str:
        """One line for a reader: which, and how much of each."""
        parts = []
        if self.dynamic_cases:
            parts.append(f"with dynamic dimensions, one model per signature ({self.dynamic_cases} cases"
                         + (f", {len(self.dynamic_specs)} spec version(s)" if self.dynamic_specs else "") + ")")
        if self.per_shape_cases:
            parts.append(f"per input shape where the dynamic model did not compile ({self.per_shape_cases} cases"
                         + (f", {len(self.per_shape_specs)} spec version(s)" if self.per_shape_specs else "") + ")")
        return "compiled " + "; ".join(parts)


def of_pair(modes: Counter) -> CompileModes | None:
    """From one pair's Counter of extra["compiled"] values; None where nothing was recorded."""
    if not modes[DYNAMIC] and not modes[PER_SHAPE]:
        return None
    return CompileModes(modes[DYNAMIC], modes[PER_SHAPE])


def pair_counts(rs: ResultSet) -> dict[tuple[str, str], Counter]:
    """(backend, spec_id) -> Counter of how its cases were compiled."""
    return {key: Counter(r.extra.get("compiled") for r in results) for key, results in rs.grouped().items()}


def by_backend(rs: ResultSet) -> dict[str, CompileModes]:
    """Backend -> how its cases were compiled, for backends that record it."""
    pairs = rs.derived(pair_counts)
    out = {}
    for b in rs.backends:
        mine = {s: c for (bb, s), c in pairs.items() if bb == b and (c[DYNAMIC] or c[PER_SHAPE])}
        if not mine:
            continue
        per_shape = tuple(sorted((s for s, c in mine.items() if c[PER_SHAPE]), key=spec_sort_key))
        out[b] = CompileModes(sum(c[DYNAMIC] for c in mine.values()), sum(c[PER_SHAPE] for c in mine.values()),
                              tuple(sorted((s for s in mine if s not in per_shape), key=spec_sort_key)), per_shape)
    return out
