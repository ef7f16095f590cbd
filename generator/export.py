"""Writing generated cases as files: ONNX backend-test directories or OpenVINO IR, plus manifest.json."""
from __future__ import annotations

from pathlib import Path
from typing import Callable, Iterable

from opconform.generator import manifest, sampling
from opconform.generator.strategies import ExpectFn
from opconform.generator.writers import onnx_testdir, openvino_ir
from opconform.model import Case, SpecVersion


def case_dir_name(spec: SpecVersion, case: Case) -> str:
    """test_<operator>_<since>_<id>: backend-test runners collect directories named test_*."""
    return f"test_{spec.dialect}_{spec.operator.lower()}_{spec.since}_{case.id}"


def write_case(spec: SpecVersion, case: Case, out: Path) -> dict:
    name = case_dir_name(spec, case)
    writer = onnx_testdir.write if spec.dialect == "onnx" else openvino_ir.write
    return manifest.entry(spec, case, name, writer(spec, case, out / name))


def export(versions: Iterable[SpecVersion], count: int, seed: int, out: Path, *, profile: str = "smoke",
           expect: ExpectFn | None = None, spec_pattern: str = "", kind: str = "any",
           progress: Callable[[SpecVersion, int], None] | None = None) -> dict:
    """Draw `count` cases per spec version with `seed`, write them under `out`, and write
    `out/manifest.json`. Returns the manifest document."""
    out.mkdir(parents=True, exist_ok=True)
    entries = []
    for spec in versions:
        cases = sampling.generate(spec, count, seed, profile=profile, expect=expect, kind=kind)
        entries.extend(write_case(spec, c, out) for c in cases)
        if progress is not None:
            progress(spec, len(cases))
    doc = manifest.document(entries, seed=seed, count=count, profile=profile, spec_pattern=spec_pattern)
    manifest.write(out, doc)
    return doc
