"""openvino-native adapters for the detection and generation operations whose Python factories take
an attribute in another form than the IR: ReorgYolo's stride is one int in the IR and a list in
reorg_yolo(); ROIPooling's pooled_h and pooled_w are one list output_roi in roi_pooling() (both
defined from openvino.opset2 on, the operations being version 1); PriorBoxClustered's and
PriorBox's attributes are one dict in prior_box_clustered() and prior_box(); the ExperimentalDetectron
operations have no Python function and are built by OpenVINO's NodeFactory."""
from __future__ import annotations

import importlib
from typing import Any, Callable

from opconform.generator.openvino_factories import ADAPTERS, call as _call, factory


def _first_factory(opset: Any, operator: str) -> Callable:
    """The factory in `opset` or the first later opset module that has one (the modules lag the C++ opsets)."""
    first = int(opset.__name__.rsplit("opset", 1)[1])
    for n in range(first, 17):
        fn = factory(importlib.import_module(f"openvino.opset{n}"), operator)
        if fn is not None:
            return fn
    raise NotImplementedError(f"no openvino.opsetN module from {first} on has a factory for {operator}")


def _reorg_yolo(opset: Any, args: list, attributes: dict) -> Any:
    attributes = dict(attributes, stride=[int(attributes["stride"])])
    return _call(_first_factory(opset, "ReorgYolo"), list(args), attributes)


def _roi_pooling(opset: Any, args: list, attributes: dict) -> Any:
    rest = {k: v for k, v in attributes.items() if k not in ("pooled_h", "pooled_w")}
    rest["output_roi"] = [int(attributes["pooled_h"]), int(attributes["pooled_w"])]
    return _call(_first_factory(opset, "ROIPooling"), list(args), rest)


def _with_attrs_dict(opset: Any, operator: str, args: list, attrs: dict) -> Any:
    """factory(*args, attrs), the dict keyed by the IR's attribute names (which the node factory
    reads; the Python checks name other keys, widths or step_widths, and see none of these but
    offset and variance, which they want positive): a case they refuse is one this binding cannot
    build, no failure of the operation."""
    try:
        return _first_factory(opset, operator)(*args, attrs)
    except Exception as e:  # the binding's own UserInputError, which is no RuntimeError
        if type(e).__name__ != "UserInputError":
            raise
        raise RuntimeError(f"not supported by the Python factory of {operator}: {e}") from None


def _prior_box_clustered(opset: Any, args: list, attributes: dict) -> Any:
    return _with_attrs_dict(opset, "PriorBoxClustered", [args[0], args[1] if len(args) > 1 else None], dict(attributes))


def _prior_box(opset: Any, args: list, attributes: dict) -> Any:
    return _with_attrs_dict(opset, "PriorBox", list(args), dict(attributes))


def _node_factory(operator: str, since: int) -> Callable[[Any, list, dict], Any]:
    """An operation no openvino.opsetN module has a Python function for (the ExperimentalDetectron
    family), or whose function checks its attributes narrower than the IR: built by OpenVINO's generic
    NodeFactory of its opset, attributes by their IR names, absent trailing inputs left out."""
    def adapter(opset: Any, args: list, attributes: dict) -> Any:
        from openvino.utils.node_factory import NodeFactory

        given = [a.output(0) for a in args if a is not None]
        return NodeFactory(f"opset{since}").create(operator, given, dict(attributes))
    return adapter


ADAPTERS["ReorgYolo"] = _reorg_yolo
ADAPTERS["ExperimentalDetectronPriorGridGenerator"] = _node_factory("ExperimentalDetectronPriorGridGenerator", 6)
ADAPTERS["PriorBoxClustered"] = _prior_box_clustered
ADAPTERS["PriorBox"] = _prior_box
ADAPTERS["Proposal"] = _node_factory("Proposal", 4)  # proposal() wants numpy unsigned ints for its int attributes
ADAPTERS["DetectionOutput"] = _node_factory("DetectionOutput", 8)
ADAPTERS["ROIPooling"] = _roi_pooling
