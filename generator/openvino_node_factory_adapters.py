"""openvino-native adapters for operations that no openvino.opsetN module wraps in a Python
function (ExperimentalDetectronTopKROIs-6): the node is created by its IR type name through
OpenVINO's NodeFactory of the opset, with the IR's attribute names."""
from __future__ import annotations

from typing import Any

from opconform.generator.openvino_model import ADAPTERS

# operator -> the opset whose NodeFactory creates it
_OPSETS = {"ExperimentalDetectronTopKROIs": "opset6"}


def _by_name(operator: str, opset_name: str):
    def adapter(opset: Any, args: list, attributes: dict) -> Any:
        from openvino.utils.node_factory import NodeFactory

        outputs = [a.output(0) if hasattr(a, "output") else a for a in args if a is not None]
        return NodeFactory(opset_name).create(operator, outputs, {k: v for k, v in attributes.items() if v is not None})
    return adapter


for _op, _opset in _OPSETS.items():
    ADAPTERS[_op] = _by_name(_op, _opset)
