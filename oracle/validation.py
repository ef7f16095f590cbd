"""Validates the spec library: every file against the schema and the loader's checks, then
every stored example through the oracle. `opconform validate` renders the result."""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from opconform import specs
from opconform.model import SpecVersion
from opconform.oracle.examples import ExampleResult, check_example
from opconform.specs.loader import implicit_relations


@dataclass(frozen=True)
class VersionReport:
    spec: SpecVersion
    oracle: str  # "yes", "missing", or why the oracle module does not import
    examples: tuple[ExampleResult, ...]
    written_relations: tuple[str, ...]  # relation ids the file states (the implicit ones excluded)

    @property
    def passed(self) -> int:
        return sum(r.passed for r in self.examples)

    @property
    def ok(self) -> bool:
        return self.oracle in ("yes", "missing") and self.passed == len(self.examples)


@dataclass
class LibraryReport:
    versions: list[VersionReport] = field(default_factory=list)
    malformed: list[str] = field(default_factory=list)  # one line per file that does not load

    @property
    def failed(self) -> list[VersionReport]:
        return [v for v in self.versions if not v.ok]


def validate(pattern: str | None = None, spec_dir: Path | None = None) -> LibraryReport:
    """Check every spec file (or those whose `dialect::Operator` or version id matches the
    comma-separated globs in `pattern`, as specs.selection chooses them) and every example it
    stores. `spec_dir` holds spec files as `<dir>/<dialect>/<Operator>.yaml`; default: the
    installed library."""
    files = None if spec_dir is None else sorted(Path(spec_dir).glob("*/*.yaml"))
    versions, malformed = specs.selection(pattern, files)
    return LibraryReport([validate_version(v) for v in versions], [str(e) for e in malformed.values()])


def validate_version(spec: SpecVersion) -> VersionReport:
    from opconform import oracle

    implicit = {r.id for r in implicit_relations(spec.inputs, list(spec.attributes))}
    written = tuple(r.id for r in spec.relations if r.id not in implicit)
    try:
        has = oracle.has_oracle(spec)
    except Exception as e:  # an oracle module that fails to import is a failure to report
        return VersionReport(spec, f"does not import: {type(e).__name__}: {e}", (), written)
    if not has:
        return VersionReport(spec, "missing", (), written)
    from opconform.oracle.openvino.layers import check_layer  # an OpenVINO document's IR <layer> examples count as examples

    results = tuple(check_example(spec, ex) for ex in spec.examples) + tuple(check_layer(spec, layer) for layer in spec.layers)
    return VersionReport(spec, "yes", results, written)
