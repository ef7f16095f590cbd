"""Which standard ONNX operators there are, and which of them the spec library lacks.

Three sources, in this order: the 188 operators of the onnx-mlir dialect reference
(onnx-ops.txt, the project's starting list), the operators ONNX added after it (onnx-ops-added.txt),
and any other standard-domain operator the installed onnx defines (a newer onnx than these files
knows). Coverage is counted against all three, so a new onnx release shows up as missing specs
instead of going unnoticed.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from opconform.specs.loader import SPEC_ROOT, spec_path

LIST_FILE = Path(__file__).with_name("onnx-ops.txt")
ADDED_FILE = Path(__file__).with_name("onnx-ops-added.txt")
STANDARD_DOMAINS = ("", "ai.onnx")


@dataclass(frozen=True)
class StandardOperator:
    name: str
    origin: str  # "list" (onnx-ops.txt), "added" (onnx-ops-added.txt) or "onnx" (only the installed onnx knows it)


def read_names(path: Path) -> list[str]:
    """Operator names of a list file, one per line, '#' lines are comments."""
    lines = path.read_text(encoding="utf-8").splitlines()
    return [s.strip() for s in lines if s.strip() and not s.lstrip().startswith("#")]


def defined_by_onnx() -> list[str]:
    """The standard-domain operators the installed onnx defines (deprecated ones included: a model
    may still use their older versions)."""
    import onnx.defs

    return sorted({s.name for s in onnx.defs.get_all_schemas_with_history() if s.domain in STANDARD_DOMAINS})


@lru_cache(maxsize=1)
def standard_operators() -> tuple[StandardOperator, ...]:
    """Every standard ONNX operator: the list, then the ones added since, then the installed onnx's others."""
    out: list[StandardOperator] = []
    seen: set[str] = set()
    for origin, names in (("list", read_names(LIST_FILE)), ("added", read_names(ADDED_FILE)), ("onnx", defined_by_onnx())):
        for name in names:
            if name not in seen:
                seen.add(name)
                out.append(StandardOperator(name, origin))
    return tuple(out)


def has_spec(operator: str, spec_root: Path = SPEC_ROOT) -> bool:
    return spec_path("onnx", operator, spec_root).is_file()


def missing(spec_root: Path = SPEC_ROOT) -> list[StandardOperator]:
    """The standard operators without a spec file, in standard_operators() order."""
    return [op for op in standard_operators() if not has_spec(op.name, spec_root)]
