"""Results from one or more results directories, grouped the way reports and the gate read them."""
from __future__ import annotations

import os
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Sequence

from opconform.model import Result
from opconform.reports.tally import Tally
from opconform.suites.merge import ResultsDir, dedup, read_dirs


def split_spec_id(spec_id: str) -> tuple[str, str, int]:
    """("onnx", "GatherND", 13) from "onnx::GatherND-13"; tolerant of ids no spec file defines."""
    dialect, _, rest = spec_id.partition("::")
    op, _, since = rest.rpartition("-")
    return dialect, op or rest, int(since) if since.isdigit() else 0


def spec_sort_key(spec_id: str) -> tuple:
    d, op, since = split_spec_id(spec_id)
    return (d, op.lower(), since)


@dataclass
class ResultSet:
    dirs: list[ResultsDir]
    results: list[Result]
    source: dict[tuple[str, str], Path] = field(default_factory=dict)  # (backend, case_id) -> its directory
    # (backend, spec_id) -> minimal cases shrunk from that pair's failures: shown, never counted
    shrunk: dict[tuple[str, str], list[Result]] = field(default_factory=dict)

    @classmethod
    def load(cls, paths: Iterable[str | os.PathLike]) -> "ResultSet":
        return cls.of(read_dirs(paths))

    @classmethod
    def of(cls, dirs: Sequence[ResultsDir]) -> "ResultSet":
        source = {(r.backend, r.case_id): d.path for d in dirs for r in d.results}
        shrunk: dict[tuple[str, str], list[Result]] = defaultdict(list)
        for r in dedup(r for d in dirs for r in d.shrunk):
            shrunk[(r.backend, r.spec_id)].append(r)
        return cls(list(dirs), dedup(r for d in dirs for r in d.results), source, dict(shrunk))

    @property
    def backends(self) -> list[str]:
        return sorted({r.backend for r in self.results})

    @property
    def spec_ids(self) -> list[str]:
        return sorted({r.spec_id for r in self.results}, key=spec_sort_key)

    def grouped(self) -> dict[tuple[str, str], list[Result]]:
        """(backend, spec_id) -> results, in file order."""
        out: dict[tuple[str, str], list[Result]] = defaultdict(list)
        for r in self.results:
            out[(r.backend, r.spec_id)].append(r)
        return dict(out)

    def tallies(self) -> dict[tuple[str, str], Tally]:
        return {k: Tally.of(v) for k, v in self.grouped().items()}

    def backend_versions(self) -> dict[str, str]:
        out = {}
        for d in self.dirs:
            if d.run.get("backend"):
                out[d.run["backend"]] = str(d.run.get("backend_version", ""))
        return out
