"""Writing generated cases as files: ONNX backend-test directories or OpenVINO IR, plus manifest.json.

One spec version is the unit of failure: when drawing its cases or writing one of them fails,
the case directories already written for it are removed, the reason goes to the manifest's
"not_generated" map, and the other spec versions are written as if it were not there.
"""
from __future__ import annotations

import shutil
from pathlib import Path
from typing import Callable, Iterable


from opconform.generator import manifest, sampling
from opconform.generator.strategies import ExpectFn
from opconform.generator.writers import onnx_testdir, openvino_ir
from opconform.model import Case, SpecVersion
from opconform.specs import dialects


class CaseNotWritten(Exception):
    """Writing one case failed; the message names the case and the reason."""


def case_dir_name(spec: SpecVersion, case: Case) -> str:
    """test_<operator>_<since>_<id>: backend-test runners collect directories named test_*."""
    return f"test_{spec.dialect}_{spec.operator.lower()}_{spec.since}_{case.id}"


def write_case(spec: SpecVersion, case: Case, out: Path) -> dict:
    name = case_dir_name(spec, case)
    writer = onnx_testdir.write if dialects.is_onnx(spec.dialect) else openvino_ir.write
    return manifest.entry(spec, case, name, writer(spec, case, out / name))


def reason(e: BaseException) -> str:
    """One line: the exception type and the first line of its message."""
    lines = str(e).strip().splitlines()
    return f"{type(e).__name__}: {lines[0]}" if lines else type(e).__name__


def export_spec(spec: SpecVersion, count: int, seed: int, out: Path, *, profile: str = "smoke",
                expect: ExpectFn | None = None, kind: str = "any") -> list[dict]:
    """Draw and write the cases of one spec version; their manifest entries. On a failure to write
    a case, every directory written for this spec version is removed and CaseNotWritten raised."""
    cases = sampling.generate(spec, count, seed, profile=profile, expect=expect, kind=kind)
    entries = []
    for case in cases:
        try:
            entries.append(write_case(spec, case, out))
        except Exception as e:  # noqa: BLE001 - any failure of a writer: clean up, then name the case
            for c in cases[:len(entries) + 1]:
                shutil.rmtree(out / case_dir_name(spec, c), ignore_errors=True)
            raise CaseNotWritten(f"case {case.id}: {reason(e)}") from e
    return entries


def export(versions: Iterable[SpecVersion], count: int, seed: int, out: Path, *, profile: str = "smoke",
           expect: ExpectFn | None = None, spec_pattern: str = "", kind: str = "any",
           progress: Callable[[SpecVersion, int], None] | None = None) -> dict:
    """Draw `count` cases per spec version with `seed`, write them under `out`, and write
    `out/manifest.json`. Returns the manifest document; a spec version that could not be drawn or
    written is left out of "cases" and named in "not_generated" with the reason (one line)."""
    out.mkdir(parents=True, exist_ok=True)
    entries: list[dict] = []
    not_generated: dict[str, str] = {}
    for spec in versions:
        try:
            # no warning filter here: the code that meets NaN, inf and overflow says so where it does
            # (tests/test_generation_warnings.py), so a warning that shows is a new one to fix
            written = export_spec(spec, count, seed, out, profile=profile, expect=expect, kind=kind)
        except Exception as e:  # noqa: BLE001 - a strategy, oracle or writer defect in one spec must not lose the rest
            not_generated[spec.id] = str(e) if isinstance(e, CaseNotWritten) else reason(e)
            continue
        entries.extend(written)
        if progress is not None:
            progress(spec, len(written))
    doc = manifest.document(entries, seed=seed, count=count, profile=profile, spec_pattern=spec_pattern,
                            not_generated=not_generated)
    manifest.write(out, doc)
    return doc
