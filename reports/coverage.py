"""Coverage of the standard ONNX operator set: what opconform has for each of the 188 operators.

For every operator of reports/onnx-ops.txt (the standard-domain operators the onnx-mlir dialect
reference lists): the spec versions in the library, whether every version has an oracle and a
generator strategy, how many official ONNX node cases the oracle passes, and which backends the
given results directories ran on it. An operator is complete when all of those hold and every
official case passes.
"""
from __future__ import annotations

import os
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Iterable

from opconform import oracle, specs
from opconform.model import SpecError
from opconform.oracle import official

OPS_FILE = Path(__file__).with_name("onnx-ops.txt")


@dataclass
class CoverageRow:
    operator: str
    versions: list[int]  # since-versions in the spec library
    has_oracle: bool  # every version has an oracle module
    has_strategy: bool | None  # every version has a generator strategy; None: the generator cannot tell
    official_passed: int
    official_total: int
    backends: list[str]  # backends with results on any version of the operator
    complete: bool
    missing: list[str] = field(default_factory=list)  # why it is not complete, in words

    def to_json(self) -> dict:
        return asdict(self)


def operators() -> list[str]:
    """The 188 standard-domain ONNX operators, in file order."""
    lines = OPS_FILE.read_text(encoding="utf-8").splitlines()
    return [s.strip() for s in lines if s.strip() and not s.lstrip().startswith("#")]


def _strategy_check():
    try:
        from opconform.generator import has_strategy
    except ImportError:  # a generator without has_strategy: report 'unknown', not 'no'
        return None
    return has_strategy


def _backends_by_operator(results_dirs: Iterable[str | os.PathLike]) -> dict[str, set[str]]:
    from opconform.suites.merge import read_dirs

    out: dict[str, set[str]] = {}
    for d in read_dirs(results_dirs):
        for r in d.results:
            dialect, _, rest = r.spec_id.partition("::")
            if dialect == "onnx":
                out.setdefault(rest.rpartition("-")[0] or rest, set()).add(r.backend)
    return out


def row(operator: str, backends: Iterable[str] = (), has_strategy=None) -> CoverageRow:
    """The coverage of one operator (has_strategy: the generator's check, or None for unknown)."""
    missing: list[str] = []
    try:
        versions = list(specs.load_spec("onnx", operator).versions)
    except KeyError:
        versions = []
        missing.append("no spec")
    except SpecError as e:
        versions = []
        missing.append(f"spec does not load: {e}")
    with_oracle = bool(versions) and all(oracle.has_oracle(v) for v in versions)
    if versions and not with_oracle:
        missing.append("no oracle")
    strategy: bool | None = None
    if versions and has_strategy is not None:
        strategy = all(has_strategy(v) for v in versions)
        if not strategy:
            missing.append("no strategy")
    elif versions:
        missing.append("strategy unknown")
    if with_oracle:
        results = official.check_operator(operator)
        passed, total = sum(r.passed for r in results), len(results)
    else:
        passed, total = 0, len(official.cases_for(operator))
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


def rows(results_dirs: Iterable[str | os.PathLike] = (), only: Iterable[str] | None = None) -> list[CoverageRow]:
    """One row per standard ONNX operator (or per operator of `only`, which must be among them).

    Raises ResultsError (one line) for an unreadable results directory, ValueError for an operator
    that is not a standard ONNX operator."""
    known = operators()
    picked = known if only is None else list(only)
    unknown = [op for op in picked if op not in known]
    if unknown:
        raise ValueError(f"not standard ONNX operators: {', '.join(unknown)} (expected names from {OPS_FILE.name})")
    backends = _backends_by_operator(results_dirs)
    check = _strategy_check()
    return [row(op, backends.get(op, ()), check) for op in picked]


def complete_count(table: Iterable[CoverageRow]) -> int:
    return sum(r.complete for r in table)
