"""Per-operator hooks: `hooks/<dialect>/<operator lower-case>.py` (see docs/generator-hooks.md)."""
from __future__ import annotations

import importlib
from types import ModuleType

from opconform.model import SpecVersion


def module_for(spec: SpecVersion) -> ModuleType | None:
    """The operator's hook module, or None when the family and default steps suffice."""
    name = f"opconform.generator.hooks.{spec.dialect}.{spec.operator.lower()}"
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as e:
        if e.name == name:
            return None
        raise
