"""OpenVINO ScaledDotProductAttention-13: the document's pseudo-code in float64 -- a bias of -inf
above the diagonal (causal), or from the mask (boolean: -inf where False; else added), then
Softmax(query @ key^T * scale + bias) @ value, batch dimensions broadcast as MatMul broadcasts
them -- rounded once to T. A row whose every weight is -inf gives NaN, as the pseudo-code's
Softmax computes it. The default scale 1 / sqrt(E) is computed in T (ConvertLike, Sqrt)."""
from __future__ import annotations

import numpy as np

from opconform.model import SpecVersion
from opconform.oracle.kernels.elementwise import wide


def run(spec: SpecVersion, inputs: list, attributes: dict, policies: dict) -> tuple[np.ndarray, ...]:
    query, key, value = (np.asarray(a) for a in inputs[:3])
    mask = inputs[3] if len(inputs) > 3 else None
    scale = inputs[4] if len(inputs) > 4 else None
    L, S = query.shape[-2], key.shape[-2]
    if scale is None:
        e = np.asarray(query.shape[-1]).astype(query.dtype)
        with np.errstate(divide="ignore"):
            s = (np.asarray(1.0).astype(query.dtype) / np.sqrt(e)).astype(query.dtype)
    else:
        s = np.asarray(scale).reshape(-1)[0]
    bias = np.zeros((L, S))
    if attributes["causal"]:
        bias = np.triu(np.full((L, S), -np.inf), k=1)
    elif mask is not None and not (np.ndim(mask) == 0 and mask.dtype != bool):
        m = np.asarray(mask)
        bias = np.where(m, 0.0, -np.inf) if m.dtype == bool else bias + wide(m)
    with np.errstate(all="ignore"):
        weight = np.matmul(wide(query), np.swapaxes(wide(key), -1, -2)) * float(wide(np.asarray(s)))
        weight = weight + bias
        top = np.max(weight, axis=-1, keepdims=True)
        e = np.exp(weight - top)
        attn = e / np.sum(e, axis=-1, keepdims=True)
        return (np.matmul(attn, wide(value)).astype(query.dtype),)
