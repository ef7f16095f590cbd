"""manifest.json: everything about every written case, including what the file layouts cannot
say (expected errors and undefined behaviour, every allowed alternative, the policies), and the
full case (Case.to_json) so a case id replays its case without drawing again.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterable, Mapping

import hypothesis
import numpy as np

from opconform import __version__
from opconform.model import Case, SpecVersion, _jsonable

MANIFEST = "manifest.json"
FORMAT_VERSION = 1


def entry(spec: SpecVersion, case: Case, directory: str, files: dict) -> dict:
    """The manifest record of one written case."""
    exp = case.expected
    return {
        "id": case.id,
        "spec_id": spec.id,
        "dir": directory,
        "label": case.label,
        "seed": case.seed,
        "attributes": _plain(dict(case.attributes)),
        "attributes_resolved": _plain(spec.resolved_attributes(case.attributes)),
        "outputs_requested": [p.name for p, on in zip(spec.outputs, case.outputs_requested) if on],
        "absent_inputs": [p.name for p, x in zip(spec.inputs, case.inputs) if x is None],
        "constant_inputs": [p.name for p, c in zip(spec.inputs, case.constant_inputs) if c],
        "expected": {
            "kind": exp.kind,
            "relation": exp.relation,
            "relation_text": _relation_text(spec, exp.relation),
            "alternatives": [dict(a.policies) for a in exp.alternatives],
            "written_alternative": 0 if exp.kind == "outputs" and exp.alternatives else None,
        },
        "policies": {p.name: {"options": list(p.options), "default": p.default} for p in spec.policies},
        "files": files,
        "case": case.to_json(),
    }


def _relation_text(spec: SpecVersion, rid: str | None) -> str | None:
    if rid is None:
        return None
    try:
        r = spec.relation(rid)
    except KeyError:
        return None
    return r.check


def _plain(d: Any) -> Any:
    """Attributes as JSON: tensor attributes (ndarrays, whatever their size) as tensors.encode
    writes them, NumPy scalars as Python ones. Anything else is a TypeError: str() of an unknown
    object can hold a memory address, and the manifest must be the same bytes on every run."""
    return json.loads(json.dumps(_jsonable(d), default=_scalar))


def _scalar(v: Any) -> Any:
    if isinstance(v, np.generic):
        return v.item()
    raise TypeError(f"attribute value of type {type(v).__name__} has no JSON form; expected a number, "
                    "string, list or ndarray")


def document(entries: Iterable[dict], *, seed: int, count: int, profile: str, spec_pattern: str,
             not_generated: Mapping[str, str] | None = None) -> dict:
    """The manifest. not_generated: spec id -> why none of its cases were written."""
    return {
        "format_version": FORMAT_VERSION,
        "generator": {
            "opconform_version": __version__,
            "hypothesis_version": hypothesis.__version__,
            "seed": seed,
            "count_per_spec": count,
            "profile": profile,
            "spec_pattern": spec_pattern,
        },
        "cases": list(entries),
        "not_generated": dict(sorted((not_generated or {}).items())),
    }


def write(out: Path, doc: dict) -> Path:
    path = out / MANIFEST
    path.write_text(json.dumps(doc, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return path


def read(path: str | Path) -> dict:
    """A manifest (the file, or the directory holding it); one clear line when it is not one."""
    path = Path(path)
    if path.is_dir():
        path = path / MANIFEST
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise ValueError(f"{path}: cannot read manifest: {e}") from None
    if not isinstance(doc, dict) or "cases" not in doc:
        raise ValueError(f"{path}: not an opconform manifest: expected an object with a 'cases' list")
    return doc


def case(doc: dict, case_id: str) -> Case:
    """Replay: the case with this id, exactly as written."""
    for e in doc["cases"]:
        if e["id"] == case_id:
            return Case.from_json(e["case"])
    raise KeyError(f"no case {case_id!r} in the manifest")
