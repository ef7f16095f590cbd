"""openvino-native adapters for operations that no openvino.opsetN module wraps in a Python
function (the ExperimentalDetectron operations of opset6), or whose function adds nodes of its own
(opset13.scaled_dot_product_attention() builds a ConvertLike for an absent mask beside a scale):
the node is created by its IR type name through OpenVINO's NodeFactory of the opset, with the
IR's attribute names. ScaledDotProductAttention's scale without a mask gets the mask the document
says means none, a scalar zero of the query's type."""
from __future__ import annotations

from typing import Any

from opconform.generator.openvino_factories import ADAPTERS

# operator -> the opset whose NodeFactory creates it
_OPSETS = {"ExperimentalDetectronTopKROIs": "opset6", "ScaledDotProductAttention": "opset13",
           "ExperimentalDetectronROIFeatureExtractor": "opset6",
           "ExperimentalDetectronGenerateProposalsSingleImage": "opset6", "ExperimentalDetectronDetectionOutput": "opset6"}


def _by_name(operator: str, opset_name: str):
    def adapter(opset: Any, args: list, attributes: dict) -> Any:
        from openvino.utils.node_factory import NodeFactory

        args = list(args)
        if operator == "ScaledDotProductAttention" and len(args) > 4 and args[3] is None and args[4] is not None:
            import openvino as ov

            args[3] = ov.op.Constant(args[0].get_element_type(), ov.Shape([]), [0])
        # a variadic port (ROIFeatureExtractor's pyramid) arrives as one list of nodes
        flat = [n for a in args if a is not None for n in (a if isinstance(a, (list, tuple)) else [a])]
        outputs = [a.output(0) if hasattr(a, "output") else a for a in flat]
        return NodeFactory(opset_name).create(operator, outputs, {k: v for k, v in attributes.items() if v is not None})
    return adapter


for _op, _opset in _OPSETS.items():
    ADAPTERS[_op] = _by_name(_op, _opset)
