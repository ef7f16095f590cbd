"""Results from one or more results directories, grouped the way reports and the gate read them."""
from __future__ import annotations

import functools
import os
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence, TypeVar

from opconform.model import Result
from opconform.reports.tally import Tally
from opconform.suites.merge import ResultsDir, dedup, read_dirs

T = TypeVar("T")


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
    source: dict[tuple[str, str], Path] = field(default_factory=dict)  # (backend, case_id) -> its directory, absolute
    # (backend, spec_id) -> minimal cases shrunk from that pair's failures: shown, never counted
    shrunk: dict[tuple[str, str], list[Result]] = field(default_factory=dict)
    launched: dict[Path, str] = field(default_factory=dict)  # absolute directory -> run.json's "backend"
    _derived: dict[Callable, Any] = field(default_factory=dict, init=False, repr=False, compare=False)  # see derived()

    @classmethod
    def load(cls, paths: Iterable[str | os.PathLike]) -> "ResultSet":
        return cls.of(read_dirs(paths))

    @classmethod
    def of(cls, dirs: Sequence[ResultsDir]) -> "ResultSet":
        # absolute: a report is read from anywhere, not from where it was rendered
        source = {(r.backend, r.case_id): where for d in dirs for where in [d.path.resolve()] for r in d.results}
        shrunk: dict[tuple[str, str], list[Result]] = defaultdict(list)
        for r in dedup(r for d in dirs for r in d.shrunk):
            shrunk[(r.backend, r.spec_id)].append(r)
        launched = {d.path.resolve(): str(d.run["backend"]) for d in dirs if d.run.get("backend")}
        return cls(list(dirs), dedup(r for d in dirs for r in d.results), source, dict(shrunk), launched)

    # computed once: a report asks for these per spec version, and a ci run has tens of thousands of
    # results (the set is read, never changed, after loading)
    @functools.cached_property
    def backends(self) -> list[str]:
        return sorted({r.backend for r in self.results})

    @functools.cached_property
    def spec_ids(self) -> list[str]:
        return sorted({r.spec_id for r in self.results}, key=spec_sort_key)

    @functools.cached_property
    def _grouped(self) -> dict[tuple[str, str], list[Result]]:
        out: dict[tuple[str, str], list[Result]] = defaultdict(list)
        for r in self.results:
            out[(r.backend, r.spec_id)].append(r)
        return dict(out)

    def grouped(self) -> dict[tuple[str, str], list[Result]]:
        """(backend, spec_id) -> results, in file order."""
        return dict(self._grouped)

    def derived(self, compute: Callable[["ResultSet"], T]) -> T:
        """compute(self), computed once per set: the views of the results that the first view and
        every detail page read (reports.factor_coverage.of, reports.consensus_view.of). Those
        modules read a ResultSet, so the set knows them only as the function they pass here."""
        if compute not in self._derived:
            self._derived[compute] = compute(self)
        return self._derived[compute]

    def tallies(self) -> dict[tuple[str, str], Tally]:
        return {k: Tally.of(v) for k, v in self.grouped().items()}

    def launched_as(self, directory: Path | None, backend: str) -> str:
        """The --backend argument the run in `directory` was started with (run.json's "backend":
        a built-in name, an entry point name or package.module:Class), else the result's backend name.
        Results name a backend by its class's `name`, which `--backend` does not accept for a plugin."""
        return self.launched.get(directory, backend) if directory is not None else backend

    def backend_versions(self) -> dict[str, str]:
        """Backend name, as results name it, -> version. Keyed by the results' name, not run.json's
        "backend": for a plugin that is package.module:Class, which names no column of the report."""
        out = {}
        for d in self.dirs:
            if d.run.get("backend"):
                name = d.results[0].backend if d.results else d.run["backend"]
                out[name] = str(d.run.get("backend_version", ""))
        return out
