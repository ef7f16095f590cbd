"""ai.onnx.ml SVMClassifier-1 read as libsvm's C-SVC: with support vectors, the one-against-one
decision value of every pair of classes (all rows at once, one pair at a time), a vote per pair,
the label of most votes, and Z the decision values ([-d, d] for two classes) or, with prob_a and
prob_b, libsvm's coupled probabilities; without them (liblinear), scores <w_c, x> + rho[0] and
the top score's label. Then post_transform. In float64, Z rounded once to float32."""
from __future__ import annotations

import numpy as np

from opconform.model import RelationBroken
from opconform.oracle.kernels import ml
from opconform.oracle.kernels.elementwise import wide
from opconform.oracle.onnx_ml.svmregressor import kernel
from opconform.oracle.onnx_ml.treeensembleclassifier import top_labels

# libsvm's bounds on a pairwise probability (svm.cpp, svm_predict_probability: min_prob)
MIN_PROB = 1e-7
# a vote (or a top score) decided by less than this share of the magnitude of the terms summed,
# or by less than float32's underflow, goes either way in float32 arithmetic (erratum rounding)
ROUNDING, UNDERFLOW = 1e-5, 1e-35


@ml.quiet
def run(spec, inputs, attributes, policies):
    x = wide(inputs[0])  # a signaling NaN quiets silently
    ints = attributes.get("classlabels_ints")
    labels = np.asarray(ints, dtype=np.int64) if ints else np.asarray(list(attributes["classlabels_strings"]), dtype=object)
    floats = lambda name: np.asarray(attributes.get(name) or [], dtype=np.float32).astype(np.float64)  # noqa: E731
    coef, rho = floats("coefficients"), floats("rho")
    counts = np.asarray(attributes.get("vectors_per_class") or [], dtype=np.int64)
    if counts.sum() == 0:  # liblinear: one set of weights per class, rho[0] added to each score
        w = coef.reshape(labels.size, -1)
        scores = (x @ w.T if x.shape[1] else np.zeros((x.shape[0], labels.size))) + rho[0]
        _undecided_top(scores, np.abs(x) @ np.abs(w).T + abs(rho[0]), spec.id)
        z = ml.post_transform(scores, attributes["post_transform"], policies, spec.id)
        return (top_labels(scores, labels, policies["ties"]), z.astype(np.float32))
    sv = floats("support_vectors").reshape(int(counts.sum()), x.shape[1])
    k = kernel(x, sv, attributes["kernel_type"], attributes.get("kernel_params"))
    decisions, votes, magnitudes = one_against_one(k, coef.reshape(labels.size - 1, -1), rho, counts)
    if np.any((np.abs(decisions) <= ROUNDING * magnitudes + UNDERFLOW) & (magnitudes > 0)):
        raise RelationBroken(spec.id, "vote_within_rounding", "undefined",
                             "a pair's decision value is within float32 rounding of 0: its vote goes either way")
    prob_a = attributes.get("prob_a")
    if prob_a:
        scores = coupled_probabilities(decisions, floats("prob_a"), floats("prob_b"), labels.size)
    elif labels.size == 2:
        scores = np.concatenate([-decisions, decisions], axis=1)
    else:
        scores = decisions
    z = ml.post_transform(scores, attributes["post_transform"], policies, spec.id)
    return (top_labels(votes, labels, policies["ties"]), z.astype(np.float32))


def one_against_one(k: np.ndarray, coef: np.ndarray, rho: np.ndarray,
                    counts: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(N, pairs) decision values, (N, classes) votes and (N, pairs) magnitudes of the terms each
    decision sums, from (N, S) kernel values; libsvm's svm_predict_values: pair (i, j) weighs class
    i's vectors by coef[j-1] and class j's by coef[i]."""
    n_classes = counts.size
    start = np.concatenate([[0], np.cumsum(counts)[:-1]])
    own = lambda c: slice(int(start[c]), int(start[c] + counts[c]))  # noqa: E731
    decisions, magnitudes, votes = [], [], np.zeros((k.shape[0], n_classes))
    for i in range(n_classes):
        for j in range(i + 1, n_classes):
            d = rho[len(decisions)] + k[:, own(i)] @ coef[j - 1, own(i)] + k[:, own(j)] @ coef[i, own(j)]
            magnitudes.append(abs(rho[len(decisions)]) + np.abs(k[:, own(i)]) @ np.abs(coef[j - 1, own(i)])
                              + np.abs(k[:, own(j)]) @ np.abs(coef[i, own(j)]))
            decisions.append(d)
            votes[:, i] += d > 0
            votes[:, j] += ~(d > 0)
    return np.stack(decisions, axis=1), votes, np.stack(magnitudes, axis=1)


def coupled_probabilities(decisions: np.ndarray, prob_a: np.ndarray, prob_b: np.ndarray, n_classes: int) -> np.ndarray:
    """(N, classes): each pair's Platt probability, bounded by MIN_PROB, coupled by libsvm's
    multiclass_probability, every row iterated at once until its own stopping rule holds."""
    r = np.zeros((decisions.shape[0], n_classes, n_classes))
    p = 0
    for i in range(n_classes):
        for j in range(i + 1, n_classes):
            pair = np.clip(1.0 / (1.0 + np.exp(decisions[:, p] * prob_a[p] + prob_b[p])), MIN_PROB, 1 - MIN_PROB)
            r[:, i, j], r[:, j, i] = pair, 1 - pair
            p += 1
    return multiclass_probability(r)


def multiclass_probability(r: np.ndarray) -> np.ndarray:
    """libsvm's multiclass_probability over (N, k, k) pairwise probabilities r[i, j] = P(i | i or j)."""
    n, k = r.shape[0], r.shape[1]
    q = -r.transpose(0, 2, 1) * r  # q[t, j] = -r[j, t] r[t, j]
    off = ~np.eye(k, dtype=bool)
    q[:, np.arange(k), np.arange(k)] = (np.where(off[None], r, 0.0) ** 2).sum(axis=1)  # sum over j != t of r[j, t]^2
    p = np.full((n, k), 1.0 / k)
    active = np.ones(n, dtype=bool)
    for _ in range(max(100, k)):
        qp = np.einsum("nij,nj->ni", q, p)
        pqp = (p * qp).sum(axis=1)
        active &= ~(np.abs(qp - pqp[:, None]).max(axis=1) < 0.005 / k)
        if not active.any():
            break
        for t in range(k):
            diff = np.where(active, (-qp[:, t] + pqp) / q[:, t, t], 0.0)
            p[:, t] += diff
            pqp = (pqp + diff * (diff * q[:, t, t] + 2 * qp[:, t])) / (1 + diff) / (1 + diff)
            qp = (qp + diff[:, None] * q[:, t, :]) / (1 + diff)[:, None]
            p = p / (1 + diff)[:, None]
    return p


def _undecided_top(scores: np.ndarray, magnitudes: np.ndarray, spec_id: str) -> None:
    """A row whose two top scores are within float32 rounding of each other has no one label."""
    if scores.shape[1] < 2:
        return
    order = np.sort(np.where(np.isnan(scores), -np.inf, scores), axis=1)
    gap = order[:, -1] - order[:, -2]
    if np.any((gap <= ROUNDING * magnitudes.max(axis=1, initial=0.0) + UNDERFLOW) & (gap > 0)):
        raise RelationBroken(spec_id, "top_within_rounding", "undefined",
                             "two top scores within float32 rounding of each other: the label goes either way")
