"""ONNX Multinomial: sample_size class indices per row of unnormalized log-probabilities (random
output, compare: judged). run() gives the representative (every index the row's likeliest class, int32 or int64 by `dtype`);
judge() holds a backend's draws to each row's softmax (oracle/kernels/random_outputs.py). A row whose
every log-probability is -inf has no distribution (oracle-side relation row_has_an_outcome, undefined)."""
from __future__ import annotations

import numpy as np

from opconform.model import RelationBroken
from opconform.oracle.kernels import random_outputs


def run(spec, inputs, attributes, policies):
    x = np.asarray(inputs[0])
    # here too, not only in judge(): rows of no class are undefined before any backend runs them
    # (a [4, 0] input was judged, and judge() raised: harness-error in tract's ci run)
    probabilities = _probabilities(spec, x)
    likeliest = np.argmax(probabilities, axis=1) if x.shape[1] else np.zeros(x.shape[0], dtype=np.int64)
    shape = (x.shape[0], int(attributes["sample_size"]))
    return (np.broadcast_to(likeliest[:, None], shape).astype(random_outputs.element_type(attributes)),)


def judge(spec, inputs, attributes, policies, outputs) -> str:
    return random_outputs.judge_categorical(np.asarray(outputs["output"]), _probabilities(spec, np.asarray(inputs[0])))


def _probabilities(spec, x: np.ndarray) -> np.ndarray:
    """Each row's softmax in float64 (-inf: probability 0)."""
    xf = np.asarray(x, dtype=np.float64)
    if xf.shape[1] == 0 and xf.shape[0] > 0 or (xf.size and np.any(np.all(np.isneginf(xf), axis=1))):
        raise RelationBroken(spec.id, "row_has_an_outcome", "undefined",
                             "a row without a class of non-zero probability (no class, or every log-probability -inf) has no distribution")
    top = np.max(xf, axis=1, keepdims=True) if xf.size else xf
    e = np.exp(xf - top)
    return e / e.sum(axis=1, keepdims=True)
