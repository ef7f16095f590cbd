"""OpenVINO's RNNSequence-5, GRUSequence-5 and LSTMSequence-5: each direction's steps by the ONNX
recurrent kernel (oracle/kernels/recurrent.py) on OpenVINO's weights and layouts (X [batch, seq,
input]; states [batch, num_directions, hidden]; Y [batch, num_directions, seq, hidden]). A row
runs its own sequence_lengths steps (a reverse pass from its last real step down to 0); past them
Y is open (policy past_sequence_end) and so is the state of a row of length 0 (policy
empty_sequence_state), as for ONNX's layers."""
from __future__ import annotations

import numpy as np

from opconform.oracle.kernels import recurrent
from opconform.oracle.kernels.elementwise import wide
from opconform.oracle.openvino.recurrent_weights import activations_of, clip_of, direction


def run_sequence(kind: str, inputs: list, attributes: dict, policies: dict) -> tuple[np.ndarray, ...]:
    lstm = kind == "LSTM"
    X = np.asarray(inputs[0])
    h0 = wide(inputs[1])
    c0 = wide(inputs[2]) if lstm else None
    k = 3 if lstm else 2
    lengths, W, R, B = np.asarray(inputs[k]).astype(np.int64), inputs[k + 1], inputs[k + 2], inputs[k + 3]
    x = wide(X).transpose(1, 0, 2)  # [seq, batch, input]
    dirs = np.asarray(W).shape[0]
    names = activations_of(kind, attributes)
    lbr = bool(attributes.get("linear_before_reset"))
    empty = (lengths == 0)[:, None] & (policies.get("empty_sequence_state") == "zero")
    Ys, hs, cs = [], [], []
    for d in range(dirs):
        weights = direction(kind, np.asarray(W)[d], np.asarray(R)[d], np.asarray(B)[d], names, lbr)
        reverse = attributes["direction"] == "reverse" or d == 1
        with np.errstate(all="ignore"):
            Y, h, c = recurrent.run_direction(kind, weights, x, h0[:, d], None if c0 is None else c0[:, d], lengths, reverse,
                                              clip_of(attributes), {"linear_before_reset": lbr}, policies["past_sequence_end"])
        Ys.append(Y.transpose(1, 0, 2))  # [batch, seq, hidden]
        hs.append(np.where(empty, 0.0, h))
        cs.append(None if c is None else np.where(empty, 0.0, c))
    outs = [np.stack(Ys, axis=1), np.stack(hs, axis=1)] + ([np.stack(cs, axis=1)] if lstm else [])
    with np.errstate(all="ignore"):
        return tuple(o.astype(X.dtype) for o in outs)
