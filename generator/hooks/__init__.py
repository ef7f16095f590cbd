"""Per-operator hooks: `hooks/<dialect>/<operator lower-case>.py` (see docs/generator-hooks.md)."""
from __future__ import annotations

import importlib
from types import ModuleType

from opconform.model import SpecVersion


# operators drawn by another operator's hook as it is (no code of their own, so no module)
SHARED: dict[str, str] = {
    "onnx::Scatter": "onnx.scatterelements",  # ScatterElements' inputs and relations, without reduction
    "openvino::GatherND": "onnx.gathernd",  # the hook reads the dialect for the differences
}


def module_for(spec: SpecVersion) -> ModuleType | None:
    """The operator's hook module (its own, or the one it shares), or None when the family and
    default steps suffice."""
    shared = SHARED.get(f"{spec.dialect}::{spec.operator}")
    name = f"opconform.generator.hooks.{shared or f'{spec.dialect}.{spec.operator.lower()}'}"
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as e:
        if e.name == name:
            return None
        raise
