"""openvino-native adapters for OpenVINO's variables: ReadValue-3 and Assign-3 are built as the pair
every stateful model has, since neither stands alone (OpenVINO's CPU plugin refuses a ReadValue
without its Assign, "doesn't have sibling output"; Assign-3 finds its variable among the ReadValues
its input depends on, "Can't find variable with id").

ReadValue-3 under test: ReadValue(init_value) and an Assign writing its output back, so the variable
keeps what it held. Assign-3 under test: a ReadValue whose init is the variable's declared value (the
case's constant `variable` input) declares the variable, and new_value reaches the Assign through
Select(c, new_value, new_value), c read from the ReadValue's shape: new_value unchanged, of its own type
and shape, with the ReadValue among its ancestors as Assign-3 requires. The variable's values before
and after the inference are the cases' state ports (backends/openvino_state.py sets and reads them)."""
from __future__ import annotations

from typing import Any

import numpy as np

from opconform.generator.openvino_factories import ADAPTERS

__all__ = ["extra_results", "sinks"]


# the Assign written beside a ReadValue under test, by the ReadValue's id(): only the Python object
# keeps a node that no result reaches alive until the model holds it as a sink
_SIBLINGS: dict[int, Any] = {}
# the value an Assign under test writes, by the Assign's id(): a result reads it, as every stateful
# model reads what it assigns (OpenVINO's CPU plugin drops a variable whose model has no result)
_READ: dict[int, Any] = {}


def _read_value(opset: Any, args: list, attributes: dict) -> Any:
    node = opset.read_value(args[0], attributes["variable_id"])
    _SIBLINGS[id(node)] = opset.assign(node, attributes["variable_id"])
    return node


def _assign(opset: Any, args: list, attributes: dict) -> Any:
    import openvino.opset1 as ops1

    new_value, declared = args[0], args[1]
    variable = opset.read_value(declared, attributes["variable_id"])
    dims_sum = ops1.reduce_sum(opset.shape_of(variable), ops1.constant(np.int64(0)), keep_dims=False)
    condition = ops1.greater_equal(dims_sum, ops1.constant(np.int64(0)))  # any boolean does: both branches are new_value
    passed = ops1.select(condition, new_value, new_value)
    node = opset.assign(passed, attributes["variable_id"])
    _READ[id(node)] = (passed, variable)
    return node


def extra_results(node: Any) -> list:
    """Outputs the model reads besides the case's: for an Assign under test, the value it writes."""
    written, variable = _READ.pop(id(node), (None, None))
    if written is None or node.input_value(0).get_node().get_name() != written.get_name():
        return []
    return [written.output(0), variable.output(0)]


def sinks(node: Any) -> list:
    """The Assign nodes among `node` and the Assign written beside it: the model's sinks."""
    sibling = _SIBLINGS.pop(id(node), None)
    if sibling is not None and sibling.input_value(0).get_node().get_name() != node.get_name():
        sibling = None  # left by a build that failed before its model was made, for a node since freed
    return [n for n in (node, sibling) if n is not None and n.get_type_name() == "Assign"]


ADAPTERS["ReadValue"] = _read_value
ADAPTERS["Assign"] = _assign
