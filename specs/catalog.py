"""Which standard ONNX operators there are, and which of them the spec library lacks.

Three sources, in this order: the 188 operators of the onnx-mlir dialect reference
(onnx-ops.txt, the project's starting list), the operators ONNX added after it (onnx-ops-added.txt),
and any other standard-domain operator the installed onnx defines (a newer onnx than these files
knows). Coverage is counted against all three, so a new onnx release shows up as missing specs
instead of going unnoticed. The other ONNX dialects of specs/dialects.py (ai.onnx.ml) are counted
the same way: their list file `<dialect>-ops.txt`, then what the installed onnx defines in their
domain; their operators are named `<dialect>::<Operator>` (`onnx_ml::TreeEnsemble`).
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from opconform.specs import dialects
from opconform.specs.loader import SPEC_ROOT, spec_path

LIST_FILE = Path(__file__).with_name("onnx-ops.txt")
ADDED_FILE = Path(__file__).with_name("onnx-ops-added.txt")
STANDARD_DOMAINS = ("", "ai.onnx")


@dataclass(frozen=True)
class StandardOperator:
    name: str
    origin: str  # "list" (onnx-ops.txt), "added" (onnx-ops-added.txt) or "onnx" (only the installed onnx knows it)
    dialect: str = "onnx"

    @property
    def key(self) -> str:
        """How coverage names it: the name in the default domain, `dialect::name` in another."""
        return self.name if self.dialect == "onnx" else f"{self.dialect}::{self.name}"


def read_names(path: Path) -> list[str]:
    """Operator names of a list file, one per line, '#' lines are comments."""
    lines = path.read_text(encoding="utf-8").splitlines()
    return [s.strip() for s in lines if s.strip() and not s.lstrip().startswith("#")]


def defined_by_onnx(domains: tuple[str, ...] = STANDARD_DOMAINS) -> list[str]:
    """The operators of these domains (default: the standard one) the installed onnx defines
    (deprecated ones included: a model may still use their older versions)."""
    import onnx.defs

    return sorted({s.name for s in onnx.defs.get_all_schemas_with_history() if s.domain in domains})


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


@lru_cache(maxsize=1)
def all_operators() -> tuple[StandardOperator, ...]:
    """The standard operators, then each other ONNX dialect's: its list file, then the others the
    installed onnx defines in its domain."""
    out = list(standard_operators())
    for d in dialects.DIALECTS:
        if d.format != "onnx" or d.name == "onnx":
            continue
        listed = SPEC_ROOT / f"{d.name}-ops.txt"
        names = read_names(listed) if listed.is_file() else []
        out += [StandardOperator(n, "list", d.name) for n in names]
        out += [StandardOperator(n, "onnx", d.name) for n in defined_by_onnx((d.domain,)) if n not in names]
    return tuple(out)


def split_key(key: str) -> tuple[str, str]:
    """'onnx_ml::Scaler' -> ('onnx_ml', 'Scaler'); 'Abs' -> ('onnx', 'Abs')."""
    dialect, sep, name = key.rpartition("::")
    return (dialect, name) if sep else ("onnx", key)


def has_spec(operator: str, spec_root: Path = SPEC_ROOT, dialect: str = "onnx") -> bool:
    return spec_path(dialect, operator, spec_root).is_file()


def missing(spec_root: Path = SPEC_ROOT) -> list[StandardOperator]:
    """The operators of every ONNX dialect without a spec file, in all_operators() order."""
    return [op for op in all_operators() if not has_spec(op.name, spec_root, op.dialect)]
