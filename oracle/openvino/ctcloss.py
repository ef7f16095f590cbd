"""OpenVINO CTCLoss-4: -ln of the summed probability of every path of logit_length[i] steps that
decodes to the processed target (the first label_length[i] labels, repeats collapsed with
preprocess_collapse_repeated, then the unique ones in order of occurrence with unique). A path
decodes by merging repeated classes (ctc_merge_repeated) and dropping blanks. The sum runs as the
usual forward recursion over the target's states, in log space in float64 (the document's Note 2),
rounded once to T_F; no aligned path gives +inf. ONNX has no CTC loss: the oracle is its own."""
from __future__ import annotations

import itertools

import numpy as np

from opconform.model import SpecVersion
from opconform.oracle.kernels.elementwise import wide


def _target(labels: np.ndarray, collapse: bool, unique: bool) -> list[int]:
    g = [int(v) for v in labels]
    if collapse:
        g = [k for k, _ in itertools.groupby(g)]
    if unique:
        g = list(dict.fromkeys(g))
    return g


def _log_softmax(x: np.ndarray) -> np.ndarray:
    m = np.max(x, axis=-1, keepdims=True)
    return x - m - np.log(np.sum(np.exp(x - m), axis=-1, keepdims=True))


def log_likelihood(logp: np.ndarray, target: list[int], blank: int, merge: bool) -> float:
    """ln of the summed probability of the paths through logp [L, C] that decode to target."""
    steps, n = logp.shape[0], len(target)
    if merge:  # states: blank, g1, blank, g2, ..., gn, blank
        ext = [blank]
        for g in target:
            ext += [g, blank]
        alpha = np.full(len(ext), -np.inf)
        if steps == 0:
            return 0.0 if n == 0 else -np.inf
        alpha[0] = logp[0, blank]
        if len(ext) > 1:
            alpha[1] = logp[0, ext[1]]
        for t in range(1, steps):
            prev = alpha
            alpha = np.full(len(ext), -np.inf)
            for s in range(len(ext)):
                terms = [prev[s]]
                if s >= 1:
                    terms.append(prev[s - 1])
                if s >= 2 and ext[s] != blank and ext[s] != ext[s - 2]:
                    terms.append(prev[s - 2])
                alpha[s] = np.logaddexp.reduce(terms) + logp[t, ext[s]]
        ends = [alpha[-1]] + ([alpha[-2]] if len(ext) > 1 else [])
        return float(np.logaddexp.reduce(ends))
    # without merging a path decodes by dropping its blanks only: state j = labels emitted so far
    alpha = np.full(n + 1, -np.inf)
    alpha[0] = 0.0
    for t in range(steps):
        stay = alpha + logp[t, blank]
        move = np.concatenate([[-np.inf], alpha[:-1] + np.array([logp[t, g] for g in target])]) if n else stay[:0]
        alpha = np.logaddexp(stay, move) if n else stay
    return float(alpha[n])


def run(spec: SpecVersion, inputs: list, attributes: dict, policies: dict) -> tuple[np.ndarray, ...]:
    logits = np.asarray(inputs[0])
    logit_length, labels, label_length = (np.asarray(a).astype(np.int64) for a in inputs[1:4])
    given = inputs[4] if len(inputs) > 4 else None
    blank = logits.shape[2] - 1 if given is None else int(np.asarray(given).reshape(-1)[0])
    x = wide(logits)
    loss = np.zeros(logits.shape[0])
    with np.errstate(all="ignore"):
        for i in range(logits.shape[0]):
            target = _target(labels[i, :label_length[i]], bool(attributes.get("preprocess_collapse_repeated", False)),
                             bool(attributes.get("unique", False)))
            logp = _log_softmax(x[i, :logit_length[i]])
            loss[i] = -log_likelihood(logp, target, blank, bool(attributes.get("ctc_merge_repeated", True)))
        return (loss.astype(logits.dtype),)
