"""ai.onnx.ml TreeEnsembleClassifier-1 and -3: every row walks every tree to a leaf
(oracle/kernels/ml.py), a class's score is its base value plus the weights the reached leaves
vote for it, post_transform is applied to the scores, and Y is the label of the top score.
Policy binary_scores: a two-class model voting for one class only, completed as converters'
runtimes do. Computed in float64, Z rounded once to float32."""
from __future__ import annotations

import numpy as np

from opconform.oracle.kernels import ml


def labels_of(attributes: dict) -> np.ndarray:
    ints = attributes.get("classlabels_int64s")
    return np.asarray(ints, dtype=np.int64) if ints else np.asarray(list(attributes["classlabels_strings"]), dtype=object)


def top_labels(z: np.ndarray, labels: np.ndarray, ties: str) -> np.ndarray:
    """The label of each row's largest score (NaN never largest); ties by the policy."""
    if z.shape[1] == 0:
        return labels[np.zeros(z.shape[0], dtype=np.int64)][:0]
    filled = np.where(np.isnan(z), -np.inf, z)
    pick = filled.argmax(axis=1) if ties == "first" else z.shape[1] - 1 - filled[:, ::-1].argmax(axis=1)
    return labels[pick]


def complement(scores: np.ndarray, voted: set[int], n_labels: int, transform: str) -> np.ndarray:
    """Two labels and votes for one class c only: [1 - s, s] (NONE, PROBIT) or [-s, s], s class c's score."""
    if n_labels != 2 or len(voted) != 1:
        return scores
    s = scores[:, next(iter(voted))]
    first = 1 - s if transform in ("NONE", "PROBIT") else -s
    return np.stack([first, s], axis=1)


@ml.quiet  # NaN and infinite features are data here
def run(spec, inputs, attributes, policies):
    x = np.asarray(inputs[0])
    labels = labels_of(attributes)
    forest, votes, _ = ml.node_tuple_forest(attributes, "class", "class_ids", labels.size, "SUM", spec.id)
    reached = ml.leaves(forest, x.astype(np.float64), spec.id)
    base = ml.tensor_or_list(attributes, "base_values")
    scores = ml.aggregate(votes, reached, "SUM", np.zeros(labels.size) if base is None else base, "base_value", np.float32)
    transform = attributes["post_transform"]
    if policies["binary_scores"] == "complement":
        scores = complement(scores, set(np.asarray(attributes.get("class_ids") or [], dtype=np.int64).tolist()),
                            labels.size, transform)
    z = ml.post_transform(scores, transform, policies, spec.id).astype(np.float32)
    y = top_labels(z, labels, policies["ties"])
    return (y.astype(labels.dtype) if labels.dtype != object else y, z)
