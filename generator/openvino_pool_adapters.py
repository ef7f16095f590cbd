"""openvino-native adapters for MaxPool-14 and AvgPool-16: the documents' (and the IR's) `kernel`
is the Python factories' `kernel_shape`, and opset14.max_pool() requires the dilations the IR
lets default to 1 on every spatial axis."""
from __future__ import annotations

from typing import Any

from opconform.generator.openvino_factories import ADAPTERS, call as _call, factory


def _pool(operator: str):
    def adapter(opset: Any, args: list, attributes: dict) -> Any:
        attributes = dict(attributes)
        attributes["kernel_shape"] = attributes.pop("kernel")
        if attributes.get("dilations") is None:
            attributes["dilations"] = [1] * len(attributes["kernel_shape"])
        return _call(factory(opset, operator), args, attributes)
    return adapter


for _op in ("MaxPool", "AvgPool"):
    ADAPTERS[_op] = _pool(_op)
