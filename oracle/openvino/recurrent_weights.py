"""OpenVINO's recurrent weights read into the ONNX recurrent kernel (oracle/kernels/recurrent.py):
OpenVINO's LSTM gates come in the order f, i, c, o (ONNX: i, o, f, c), its B is the sum of the
input and recurrence biases (GRU with linear_before_reset: the z and r sums, then the h gate's
input and recurrence biases apart), and its activation functions are spelt in lower case."""
from __future__ import annotations

from typing import Sequence

import numpy as np

from opconform.oracle.kernels import recurrent
from opconform.oracle.kernels.elementwise import wide

_LSTM_TO_ONNX = (1, 3, 0, 2)  # ONNX's i, o, f, c taken from OpenVINO's f, i, c, o blocks
NAMES = {"relu": "Relu", "sigmoid": "Sigmoid", "tanh": "Tanh"}


def _onnx_order(kind: str, a: np.ndarray, hidden: int) -> np.ndarray:
    if kind != "LSTM":
        return a
    blocks = [a[k * hidden:(k + 1) * hidden] for k in range(4)]
    return np.concatenate([blocks[k] for k in _LSTM_TO_ONNX], axis=0)


def direction(kind: str, W, R, B, activations: Sequence[str], linear_before_reset: bool) -> recurrent.Direction:
    """One direction's weights (W [gates*H, I], R [gates*H, H], B [gates*H] or, GRU with
    linear_before_reset, [4*H]; None: zeros) and activation names, as the kernel reads them."""
    W, R = wide(W), wide(R)
    hidden = R.shape[1]
    gates = recurrent.GATES[kind] + (1 if kind == "GRU" and linear_before_reset else 0)  # B's blocks
    b = np.zeros(gates * hidden) if B is None else wide(B).reshape(-1)
    if kind == "GRU" and linear_before_reset:
        Wb = b[:3 * hidden]
        Rb = np.concatenate([np.zeros(2 * hidden), b[3 * hidden:4 * hidden]])
    else:
        Wb, Rb = b, np.zeros_like(b)
    bound = [recurrent.Bound(NAMES[a], 0.0, 0.0) for a in activations]
    return recurrent.Direction(_onnx_order(kind, W, hidden), _onnx_order(kind, R, hidden), _onnx_order(kind, Wb, hidden),
                               _onnx_order(kind, Rb, hidden), None, bound)


def clip_of(attributes: dict) -> float | None:
    """The clip attribute: absent (the document's default infinity) is no clipping."""
    c = attributes.get("clip")
    return None if c is None or np.isinf(c) else float(c)


def activations_of(kind: str, attributes: dict) -> list[str]:
    given = attributes.get("activations")
    return list(given) if given else [a.lower() for a in recurrent.DEFAULT_ACTIVATIONS[kind]]
