"""OpenVINO Multinomial-13: num_samples class indices per row of probs (random output, compare:
judged). The row's probabilities are probs / sum(probs), or exp(probs) normalised with log_probs (a
softmax). run() gives the representative (every index the row's likeliest class, in convert_type);
judge(): with replacement, each (row, class) count a binomial test (oracle/kernels/random_outputs.py);
without replacement, every index in range and no class twice in a row (the draws are dependent: no
count test)."""
from __future__ import annotations

import numpy as np

from opconform import dtypes
from opconform.model import RelationBroken, SpecVersion
from opconform.oracle.kernels import random_outputs


def probabilities(spec: SpecVersion, probs: np.ndarray, log_probs: bool) -> np.ndarray:
    """Each row normalised (exp'd first with log_probs); a row of no probability has no distribution."""
    x = np.asarray(probs, dtype=np.float64)
    if log_probs:
        top = np.max(x, axis=1, keepdims=True) if x.size else x
        x = np.exp(x - top)
    total = x.sum(axis=1, keepdims=True)
    if x.shape[0] and (x.shape[1] == 0 or not np.all(total > 0)):
        raise RelationBroken(spec.id, "row_has_an_outcome", "undefined",
                             "a row without a class of non-zero probability (no class, all 0, or every log-probability -inf) has no distribution")
    return x / total


def _count(inputs: list) -> int:
    return int(np.asarray(inputs[1]).reshape(-1)[0])


def run(spec: SpecVersion, inputs: list, attributes: dict, policies: dict) -> tuple[np.ndarray, ...]:
    x = np.asarray(inputs[0])
    dtype = dtypes.numpy_dtype(spec.outputs[0].type_map[attributes["convert_type"]])
    with np.errstate(all="ignore"):
        p = probabilities(spec, x, bool(attributes["log_probs"]))
    likeliest = np.argmax(p, axis=1) if x.shape[1] else np.zeros(x.shape[0], dtype=np.int64)
    return (np.broadcast_to(likeliest[:, None], (x.shape[0], _count(inputs))).astype(dtype),)


def judge_without_replacement(y: np.ndarray, classes: int) -> str:
    yi = np.asarray(y).astype(np.int64)
    bad = (yi < 0) | (yi >= classes)
    if bad.any():
        at = [int(i) for i in np.argwhere(bad)[0]]
        return f"output at {at}: got {yi[tuple(at)]!r}, expected a class index in [0, {classes})"
    for r, row in enumerate(yi):
        if len(set(row.tolist())) < row.size:
            return f"row {r}: {row.tolist()} draws a class twice without replacement"
    return ""


def judge(spec: SpecVersion, inputs: list, attributes: dict, policies: dict, outputs) -> str:
    y, x = np.asarray(outputs["output"]), np.asarray(inputs[0])
    if not attributes["with_replacement"]:
        return judge_without_replacement(y, x.shape[1])
    with np.errstate(all="ignore"):
        return random_outputs.judge_categorical(y, probabilities(spec, x, bool(attributes["log_probs"])))
