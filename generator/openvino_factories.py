"""The Python factories of OpenVINO's opsets: the function for an operator in an `openvino.opsetN`
module, and the call that passes a case's inputs and attributes to it; ADAPTERS holds the
operators whose function differs from the generic mapping. Apart from generator/openvino_model.py
so that the adapter modules (generator/openvino_*_adapters.py), which register themselves here,
need not import the model builder that imports them."""
from __future__ import annotations

import re
from typing import Any, Callable

__all__ = ["ADAPTERS", "FUNCTION_NAMES", "call", "factory", "function_name"]

# operator name -> callable(opset_module, args, attributes) -> openvino Node, for operators whose
# Python function differs from the generic mapping.
ADAPTERS: dict[str, Callable[[Any, list, dict], Any]] = {}

# operator name -> Python function, where neither the snake case nor the same letters without
# underscores name it (Abs is `absolute`)
FUNCTION_NAMES = {"Abs": "absolute"}


def function_name(operator: str) -> str:
    """GatherND -> gather_nd, Unique -> unique, ReduceSum -> reduce_sum, NMSRotated -> nms_rotated."""
    s = re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1_\2", operator)
    s = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", s)
    return s.lower()


def factory(opset: Any, operator: str) -> Callable | None:
    """The opset module's function for `operator`: FUNCTION_NAMES, the snake case, or the function
    whose name is the operator's letters without underscores (IsNaN -> is_nan, ReLU -> relu,
    SoftMax -> softmax, HSigmoid -> hsigmoid)."""
    for name in (FUNCTION_NAMES.get(operator), function_name(operator)):
        fn = getattr(opset, name, None) if name else None
        if callable(fn):
            return fn
    key = operator.lower()
    for name in dir(opset):
        if not name.startswith("_") and name.replace("_", "") == key and callable(getattr(opset, name)):
            return getattr(opset, name)
    return None


def call(fn: Callable, args: list, attributes: dict) -> Any:
    """fn(*args, **attributes) for the attributes its signature names; the others are set on the
    node by name afterwards (Divide's m_pythondiv, which opset1.divide() does not take), and
    an `attributes` dict parameter (IsInf's) receives those it does not name."""
    import inspect

    params = inspect.signature(fn).parameters
    named = {k: v for k, v in attributes.items() if k in params}
    rest = {k: v for k, v in attributes.items() if k not in params}
    if rest and "attributes" in params:
        named["attributes"], rest = rest, {}
    # the inputs fill the parameters the attributes leave, in order (opset12.pad takes pad_mode
    # before its optional pad value: pad(arg, pads_begin, pads_end, pad_mode, arg_pad_value))
    slots = [p for p in params.values() if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
             and p.name not in named and p.name != "name"]
    required = [p for p in slots if p.default is inspect.Parameter.empty]
    if len(args) < len(required):
        # the operation admits the input absent, its Python factory does not (opset3.cum_sum's axis):
        # this binding cannot build the case, which is no failure of the operation's
        raise RuntimeError(f"not supported by the Python factory {fn.__module__}.{fn.__name__}(): "
                           f"it requires {required[len(args)].name}, which the case leaves absent")
    order = [p.name for p in params.values() if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    if len(args) <= len(slots) and any(order.index(k) < len(args) for k in named if k in order):
        node = fn(**dict(zip((p.name for p in slots), args)), **named)
    else:  # positionally: some factories are wrappers whose own names differ (binary ops' left_node)
        node = fn(*args, **named)
    for k, v in rest.items():
        node.set_attribute(k, v)
    return node
