"""ONNX RotaryEmbedding-23: the text's NumPy algorithm, vectorized over every token and head at once:
X as (batch, sequence, heads, head_size), its first rdim entries split in halves (or even and odd
entries, interleaved) and rotated by the caches' cosine and sine at each token's position.

Policy intermediate_precision: products and sums in float64 rounded once to T (wide), each rounded to
T (input_type), or each expression a fused multiply-add, its first product exact and its second rounded
to T (fused: onnxruntime's compiled a * b - c * d)."""
from __future__ import annotations

import numpy as np

from opconform.oracle.kernels import precision


def run(spec, inputs, attributes, policies):
    x, cos, sin, positions = (np.asarray(a) if a is not None else None for a in (list(inputs) + [None])[:4])
    t = x.dtype
    # 3-D X: hidden = num_heads * head_size, the head size stated rather than -1 (an empty X has no inferable -1)
    tokens = np.transpose(x, (0, 2, 1, 3)) if x.ndim == 4 else x.reshape(x.shape[:2] + (heads := int(attributes["num_heads"]), x.shape[2] // heads))
    head_size = tokens.shape[3]
    rdim = int(attributes.get("rotary_embedding_dim") or 0) or head_size
    if positions is not None:
        cos, sin = cos[positions], sin[positions]
    mode = policies.get("intermediate_precision", "wide")
    work = t if mode == "input_type" else np.float64
    c, s = (precision.to_type(a, work)[:, :, None, :] for a in (cos, sin))
    rotate = precision.to_type(tokens[..., :rdim], work)
    if attributes.get("interleaved", 0):
        x1, x2 = rotate[..., 0::2], rotate[..., 1::2]
    else:
        x1, x2 = rotate[..., : rdim // 2], rotate[..., rdim // 2 :]
    with np.errstate(all="ignore"):
        if mode == "fused":  # fma(cos, x1, -(sin * x2)): the first product exact (float64 holds it), the second rounded to T
            real = c * x1 - (s * x2).astype(t)
            imag = s * x1 + (c * x2).astype(t)
        else:
            real = (c * x1).astype(work) - (s * x2).astype(work)
            imag = (s * x1).astype(work) + (c * x2).astype(work)
    if attributes.get("interleaved", 0):
        rotated = np.stack([real, imag], axis=-1).reshape(rotate.shape)
    else:
        rotated = np.concatenate([real, imag], axis=-1)
    out = np.concatenate([precision.to_type(rotated, t), tokens[..., rdim:]], axis=-1)
    return ((np.transpose(out, (0, 2, 1, 3)) if x.ndim == 4 else out.reshape(x.shape)),)
