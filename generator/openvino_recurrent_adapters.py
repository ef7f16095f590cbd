"""openvino-native adapters for the recurrent cells and sequences: the Python factories require B,
which LSTMCell-1 and GRUCell-3 leave optional (absent: zeros, the documents' "assumed to be 0"),
require rnn_cell()'s activation lists, and take clip 0.0 for the documents' default infinity (no
clipping)."""
from __future__ import annotations

from typing import Any

from opconform.generator.openvino_factories import ADAPTERS, call as _call, factory

# operator -> (position of B, gates of B, position of W) in the documents' input order
_B = {"GRUCell": (4, 3, 2), "LSTMCell": (5, 4, 3), "RNNCell": (4, 1, 2)}


def _recurrent(operator: str):
    def adapter(opset: Any, args: list, attributes: dict) -> Any:
        import openvino as ov

        args, attributes = list(args), dict(attributes)
        at, gates, w_at = _B.get(operator, (None, None, None))
        if at is not None and (len(args) <= at or args[at] is None):
            hidden = int(attributes["hidden_size"])
            if operator == "GRUCell" and attributes.get("linear_before_reset"):
                gates = 4
            count = max(gates * hidden, 0)  # a must-refuse case's hidden_size may be negative
            args = args[:at] + [ov.op.Constant(args[w_at].get_element_type(), ov.Shape([count]), [0.0] * count)]
        if attributes.get("clip") is None:
            attributes["clip"] = 0.0
        for k in ("activations_alpha", "activations_beta"):
            attributes.setdefault(k, None)
            if attributes[k] is None:
                attributes[k] = []
        if attributes.get("activations") is None:
            attributes.pop("activations", None)
        # the factories spell them activations_alpha/beta; rnn_cell() requires its activations
        if operator == "RNNCell":
            attributes.setdefault("activations", ["tanh"])
        try:
            return _call(factory(opset, operator), args, attributes)
        except ValueError as e:  # the binding's own check of a negative hidden_size: a refusal
            raise RuntimeError(f"{operator}: refused by the Python factory: {e}") from None
    return adapter


for _op in ("RNNCell", "GRUCell", "LSTMCell", "RNNSequence", "GRUSequence", "LSTMSequence"):
    ADAPTERS[_op] = _recurrent(_op)
