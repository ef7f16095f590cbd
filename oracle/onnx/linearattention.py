"""ONNX LinearAttention-27: the text's recurrence, one token after another (the state of token t
needs token t - 1's), each step one batched product over every batch and head at once:

    gated rules:  S <- exp(g_t) * S                     (g per head, or per key dimension)
    delta rules:  v_t <- beta_t * (v_t - S^T k_t)      (after the decay: gated_delta)
    every rule:   S <- S + k_t (outer) v_t;  o_t = scale * q_t^T S

in float64, each output rounded once (the spec's errata: the values drawn stay far from overflow).
Query head h reads key/value head h // (q_num_heads / kv_num_heads)."""
from __future__ import annotations

import numpy as np

from opconform.oracle.kernels import precision


def _heads(x: np.ndarray, heads: int) -> np.ndarray:
    """(B, T, H * D) as (B, H, T, D), in float64."""
    b, t, hd = x.shape
    return precision.to_type(x, np.float64).reshape(b, t, heads, hd // heads).transpose(0, 2, 1, 3)


def _per_head(x, b: int, t: int, kv: int) -> np.ndarray | None:
    """decay or beta of shape (B, T, H_kv * d) or (B, T, H_kv or 1) as (B, H_kv or 1, T, d or 1)."""
    if x is None:
        return None
    x = np.asarray(x)
    last = x.shape[2]
    heads = kv if last % kv == 0 and last >= kv else 1
    return _heads(x, heads) if last != heads else precision.to_type(x, np.float64).reshape(b, t, heads, 1).transpose(0, 2, 1, 3)


def run(spec, inputs, attributes, policies):
    query, key, value, past, decay, beta = (list(inputs) + [None] * 6)[:6]
    query, key, value = np.asarray(query), np.asarray(key), np.asarray(value)
    hq, hkv = int(attributes["q_num_heads"]), int(attributes["kv_num_heads"])
    b, t, _ = query.shape
    q, k, v = _heads(query, hq), _heads(key, hkv), _heads(value, hkv)
    d_k, d_v = q.shape[3], v.shape[3]
    rule = attributes.get("update_rule", "gated_delta")
    g = _per_head(decay, b, t, hkv) if rule in ("gated", "gated_delta") else None
    rate = _per_head(beta, b, t, hkv) if rule in ("delta", "gated_delta") else None
    state = np.zeros((b, hkv, d_k, d_v)) if past is None else precision.to_type(np.asarray(past), np.float64).copy()
    scale = float(attributes.get("scale") or 0.0) or 1.0 / np.sqrt(d_k)
    group = hq // hkv
    out = np.empty((b, hq, t, d_v))
    for i in range(t):
        if g is not None:
            state = state * np.exp(g[:, :, i, :])[..., None]  # one gate per head, or per key dimension
        v_t = v[:, :, i, :]
        if rate is not None:
            v_t = rate[:, :, i, :] * (v_t - np.einsum("bhdm,bhd->bhm", state, k[:, :, i, :]))
        state = state + k[:, :, i, :, None] * v_t[:, :, None, :]
        shared = np.repeat(state, group, axis=1) if group > 1 else state
        out[:, :, i, :] = scale * np.einsum("bhd,bhdm->bhm", q[:, :, i, :], shared)
    y = out.transpose(0, 2, 1, 3).reshape(b, t, hq * d_v)
    return precision.to_type(y, query.dtype), precision.to_type(state, (query if past is None else np.asarray(past)).dtype)
