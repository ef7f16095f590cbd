"""ai.onnx.ml SVMRegressor-1: sum_i coefficients[i] K(x, sv_i) + rho[0] with libsvm's kernels,
all rows and support vectors at once (or <coefficients, x> + rho without support vectors); a
one-class SVM answers the sign as +-1; then post_transform. In float64, rounded once to float32."""
from __future__ import annotations

import numpy as np

from opconform.oracle.kernels import ml
from opconform.oracle.kernels.elementwise import wide


def kernel(x: np.ndarray, sv: np.ndarray, kind: str, params) -> np.ndarray:
    """(N, V) kernel values of every row of x against every support vector."""
    gamma, coef0, degree = (float(np.float32(p)) for p in (params or [0.0, 0.0, 0.0]))
    dot = x @ sv.T if x.shape[1] else np.zeros((x.shape[0], sv.shape[0]))
    if kind == "LINEAR":
        return dot
    if kind == "POLY":
        return (gamma * dot + coef0) ** int(degree)
    if kind == "SIGMOID":
        return np.tanh(gamma * dot + coef0)
    squared = (x * x).sum(axis=1)[:, None] + (sv * sv).sum(axis=1)[None, :] - 2 * dot
    return np.exp(-gamma * np.maximum(squared, 0))


@ml.quiet
def run(spec, inputs, attributes, policies):
    x = wide(inputs[0])  # a signaling NaN quiets silently
    coef = np.asarray(attributes["coefficients"], dtype=np.float32).astype(np.float64)
    rho = float(np.float32(attributes["rho"][0]))
    n = int(attributes["n_supports"])
    if n > 0:
        sv = np.asarray(attributes["support_vectors"], dtype=np.float32).astype(np.float64).reshape(n, x.shape[1])
        score = kernel(x, sv, attributes["kernel_type"], attributes.get("kernel_params")) @ coef + rho
    else:
        score = (x @ coef if x.shape[1] else np.zeros(x.shape[0])) + rho
    if attributes["one_class"]:
        score = np.where(score > 0, 1.0, -1.0)
    out = ml.post_transform(score[:, None], attributes["post_transform"], policies, spec.id)
    return (out.astype(np.float32),)  # rounded once to float32: past its range is +-inf
