"""OpenVINO ScaledDotProductAttention-13: the oracle is the document's pseudo-code -- checked against
a direct per-batch loop (softmax of the scaled scores plus the bias, times value), with batch
dimensions broadcast, a boolean or additive mask, causal masking and a given scale."""
from __future__ import annotations

import numpy as np
import pytest

from opconform import oracle, specs


def _loop(q, k, v, bias, scale):
    batch = np.broadcast_shapes(q.shape[:-2], k.shape[:-2], v.shape[:-2])
    q, k, v = (np.broadcast_to(a, batch + a.shape[-2:]) for a in (q, k, v))
    bias = np.broadcast_to(bias, batch + (q.shape[-2], k.shape[-2]))
    out = np.zeros(batch + (q.shape[-2], v.shape[-1]))
    for b in np.ndindex(*batch):
        w = q[b] @ k[b].T * scale + bias[b]
        w = np.exp(w - w.max(axis=-1, keepdims=True))
        out[b] = (w / w.sum(axis=-1, keepdims=True)) @ v[b]
    return out


@pytest.mark.parametrize("mask_kind", ["none", "bool", "float", "causal"])
def test_pseudo_code_per_batch(mask_kind):
    rng = np.random.default_rng(4)
    q, k, v = rng.standard_normal((2, 1, 3, 4)), rng.standard_normal((1, 3, 5, 4)), rng.standard_normal((2, 3, 5, 2))
    mask, scale, bias = None, None, np.zeros((3, 5))
    if mask_kind == "bool":
        mask = rng.random((3, 5)) > 0.3
        mask[:, 0] = True  # no row fully masked
        bias = np.where(mask, 0.0, -np.inf)
    elif mask_kind == "float":
        mask = rng.standard_normal((1, 1, 3, 5))
        bias = mask
        scale = np.array(0.7)
    elif mask_kind == "causal":
        bias = np.triu(np.full((3, 5), -np.inf), k=1)
    (got,) = oracle.evaluate(specs.load("openvino::ScaledDotProductAttention-13"), [q, k, v, mask, scale],
                             {"causal": mask_kind == "causal"})
    want = _loop(q, k, v, bias, 0.5 if scale is None else float(scale))
    assert got.shape == (2, 3, 3, 2) and np.allclose(got, want, rtol=1e-12)
