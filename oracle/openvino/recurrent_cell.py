"""One time step of OpenVINO's RNNCell-3, GRUCell-3 and LSTMCell-1: the cells of the ONNX recurrent
kernel (oracle/kernels/recurrent.py) on OpenVINO's weights (oracle/openvino/recurrent_weights.py),
in float64, rounded once to T."""
from __future__ import annotations

import numpy as np

from opconform.oracle.kernels import recurrent
from opconform.oracle.kernels.elementwise import wide
from opconform.oracle.openvino.recurrent_weights import activations_of, clip_of, direction


def step(kind: str, inputs: list, attributes: dict) -> tuple[np.ndarray, ...]:
    """(Ho,) or, for LSTM, (Ho, Co): inputs X, H[, C], W, R[, B] in the documents' order."""
    x = np.asarray(inputs[0])
    lstm = kind == "LSTM"
    h0 = wide(inputs[1])
    c0 = wide(inputs[2]) if lstm else None
    W, R = inputs[3 if lstm else 2], inputs[4 if lstm else 3]
    k = 5 if lstm else 4
    B = inputs[k] if len(inputs) > k else None
    d = direction(kind, W, R, B, activations_of(kind, attributes), bool(attributes.get("linear_before_reset")))
    with np.errstate(all="ignore"):
        h, c = recurrent.CELLS[kind](d, wide(x), h0, c0, clip_of(attributes), {"linear_before_reset": attributes.get("linear_before_reset")})
        outs = (h,) if not lstm else (h, c)
        return tuple(np.asarray(o).astype(x.dtype) for o in outs)
