"""Coverage of the standard ONNX operator set: what opconform has for each standard operator.

For every standard-domain ONNX operator (opconform.specs.catalog: the 188 the onnx-mlir dialect
reference lists, those ONNX added since, and any other the installed onnx defines): the spec versions in the library, whether every version has an oracle and a
generator strategy, how many official ONNX node cases the oracle passes, and which backends the
given results directories ran on it. An operator is complete when all of those hold and every
official case passes.

This module renders; it runs neither the generator nor the oracle. The spec versions come from
the spec library, the backends from the results; what needs the oracle or the generator (an
oracle module per version, a strategy per version, the official cases run through the oracle)
comes in as OperatorFacts, gathered by the command (opconform.commands.coverage.library_facts).
Without them a row says "unknown".
"""
from __future__ import annotations

import os
from dataclasses import asdict, dataclass, field
from typing import Iterable, Mapping

from opconform import specs
from opconform.model import SpecError
from opconform.specs import catalog, dialects

OPS_FILE = catalog.LIST_FILE  # the starting list of 188; operators() counts every standard operator


@dataclass(frozen=True)
class OperatorFacts:
    """What the oracle and the generator have for one operator, found outside the reports."""

    has_oracle: bool  # every spec version has an oracle module (False without a spec)
    has_strategy: bool | None  # every spec version has a generator strategy; None: no spec, or not asked
    official_passed: int  # official ONNX node cases the oracle reproduces (0 without an oracle)
    official_total: int  # official ONNX node cases of the operator


@dataclass
class CoverageRow:
    operator: str
    versions: list[int]  # since-versions in the spec library
    has_oracle: bool | None  # every version has an oracle module; None: not known (no facts)
    has_strategy: bool | None  # every version has a generator strategy; None: not known
    official_passed: int
    official_total: int
    backends: list[str]  # backends with results on any version of the operator
    complete: bool
    missing: list[str] = field(default_factory=list)  # why it is not complete, in words

    def to_json(self) -> dict:
        return asdict(self)


def operators() -> list[str]:
    """Every standard-domain ONNX operator: the list's 188 in file order, then those added since;
    then the other ONNX domains' (ai.onnx.ml), named `dialect::Operator` (catalog.all_operators)."""
    return [op.key for op in catalog.all_operators()]


def backends_by_operator(results_dirs: Iterable[str | os.PathLike]) -> dict[str, set[str]]:
    """ONNX operator -> the backends with results on any of its versions in these directories."""
    from opconform.suites.merge import read_dirs

    out: dict[str, set[str]] = {}
    for d in read_dirs(results_dirs):
        for r in d.results:
            dialect, _, rest = r.spec_id.partition("::")
            if dialect in dialects.of_format("onnx"):
                name = rest.rpartition("-")[0] or rest
                out.setdefault(name if dialect == "onnx" else f"{dialect}::{name}", set()).add(r.backend)
    return out


def row(operator: str, backends: Iterable[str] = (), facts: OperatorFacts | None = None) -> CoverageRow:
    """The coverage of one operator: its spec versions from the library, the rest from `facts`
    (None: oracle, strategy and official cases unknown)."""
    missing: list[str] = []
    try:
        versions = list(specs.load_spec(*catalog.split_key(operator)).versions)
    except KeyError:
        versions = []
        missing.append("no spec")
    except SpecError as e:
        versions = []
        missing.append(f"spec does not load: {e}")
    with_oracle: bool | None = None if versions else False
    strategy: bool | None = None
    passed = total = 0
    if facts is None:
        if versions:
            missing.append("oracle, strategy and official cases unknown")
    else:
        with_oracle = bool(versions) and facts.has_oracle
        if versions and not with_oracle:
            missing.append("no oracle")
        strategy = facts.has_strategy if versions else None
        if versions and strategy is None:
            missing.append("strategy unknown")
        elif versions and not strategy:
            missing.append("no strategy")
        passed, total = (facts.official_passed if with_oracle else 0), facts.official_total
        if with_oracle and passed < total:
            missing.append(f"{total - passed} official case(s) fail")
    return CoverageRow(
        operator=operator,
        versions=[v.since for v in versions],
        has_oracle=with_oracle,
        has_strategy=strategy,
        official_passed=passed,
        official_total=total,
        backends=sorted(backends),
        complete=not missing,
        missing=missing,
    )


def picked(only: Iterable[str] | None = None) -> list[str]:
    """The standard ONNX operators, or those of `only`; ValueError naming any that is not one."""
    known = operators()
    out = known if only is None else list(only)
    unknown = [op for op in out if op not in known]
    if unknown:
        raise ValueError(f"not standard ONNX operators: {', '.join(unknown)} (expected names from the standard ONNX domain)")
    return out


def rows(results_dirs: Iterable[str | os.PathLike] = (), only: Iterable[str] | None = None,
         facts: Mapping[str, OperatorFacts] | None = None) -> list[CoverageRow]:
    """One row per standard ONNX operator (or per operator of `only`, which must be among them),
    with the backends of `results_dirs` and each operator's `facts` (unknown where it has none).

    Raises ResultsError (one line) for an unreadable results directory, ValueError for an operator
    that is not a standard ONNX operator."""
    ops = picked(only)
    backends = backends_by_operator(results_dirs)
    return [row(op, backends.get(op, ()), (facts or {}).get(op)) for op in ops]


def complete_count(table: Iterable[CoverageRow]) -> int:
    return sum(r.complete for r in table)
