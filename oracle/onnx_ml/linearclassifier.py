"""ai.onnx.ml LinearClassifier-1: scores X W^T + intercepts (one row of W per class; two labels
and one row: the policy binary_scores completes the first class), post_transform, and the label
of the top score. In float64, Z rounded once to float32."""
from __future__ import annotations

import numpy as np

from opconform.oracle.kernels import ml
from opconform.oracle.onnx_ml.linearregressor import scores
from opconform.oracle.onnx_ml.treeensembleclassifier import top_labels


def run(spec, inputs, attributes, policies):
    x = np.asarray(inputs[0])
    ints = attributes.get("classlabels_ints")
    labels = np.asarray(ints, dtype=np.int64) if ints else np.asarray(list(attributes["classlabels_strings"]), dtype=object)
    rows = len(attributes["coefficients"]) // x.shape[-1]
    s = scores(x, attributes["coefficients"], attributes.get("intercepts"), rows)
    transform = attributes["post_transform"]
    if rows == 1 and labels.size == 2:
        first = -s[:, 0] if policies["binary_scores"] == "negated" else 1 - s[:, 0]
        s = np.stack([first, s[:, 0]], axis=1)
    with np.errstate(over="ignore"):  # rounded once to float32: a score past its range is +-inf
        z = ml.post_transform(s, transform, policies, spec.id).astype(np.float32)
    return (top_labels(z, labels, policies["ties"]), z)
