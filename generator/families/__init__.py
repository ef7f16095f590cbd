"""Family strategies: steps shared by every operator of a family (see docs/generator-hooks.md).

A family module defines any of the steps of `families.default` (presence, element_types,
attributes, inputs, outputs); the ones it leaves out come from the default.
"""
from __future__ import annotations

import importlib
from types import ModuleType

from opconform.model import SpecVersion

# spec family -> module in this package
FAMILY_MODULES: dict[str, str] = {
    "elementwise_binary": "broadcasting",
    "variadic": "broadcasting",
    "comparison": "broadcasting",
    "logical": "broadcasting",
    "reduction": "reduction",
    "control_flow": "control_flow",
    "openvino_control_flow": "openvino_control_flow",
    "sequence": "sequence",
    "gradient": "gradient",
}


def module_for(spec: SpecVersion) -> ModuleType:
    name = FAMILY_MODULES.get(spec.family or "", "default")
    return importlib.import_module(f"opconform.generator.families.{name}")
