"""openvino-native adapters for the detection and generation operations whose Python factories take
an attribute in another form than the IR: ReorgYolo's stride is one int in the IR and a list in
reorg_yolo() (which the Python modules define from openvino.opset2 on, the operation being
ReorgYolo-1)."""
from __future__ import annotations

import importlib
from typing import Any, Callable

from opconform.generator.openvino_model import ADAPTERS, _call, factory


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


ADAPTERS["ReorgYolo"] = _reorg_yolo
