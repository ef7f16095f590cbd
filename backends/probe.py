"""Asking a runtime which opsets it loads, instead of hard-coding what one release did."""
from __future__ import annotations

from typing import Callable

import onnx
from onnx import TensorProto, helper

from opconform.backends import opsets


def tiny_model(opset: int) -> onnx.ModelProto:
    """Identity on a float vector, at this opset and the lowest IR version that carries it."""
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n"])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, ["n"])
    graph = helper.make_graph([helper.make_node("Identity", ["x"], ["y"])], "probe", [x], [y])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=opsets.lowest_ir(opset))


def highest_loadable_opset(loads: Callable[[onnx.ModelProto], None], latest: int, floor: int = 13) -> int:
    """The newest opset for which loads(model) does not raise (searching down from the latest)."""
    for opset in range(latest, floor - 1, -1):
        try:
            loads(tiny_model(opset))
            return opset
        except Exception:  # noqa: BLE001 - any refusal means "not this opset"
            continue
    return floor
