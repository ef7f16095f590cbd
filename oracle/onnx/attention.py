"""ONNX Attention (23, 24, 25): scaled dot-product attention as the text's pattern draws it, vectorized
over batch, heads and positions: Q and K each scaled by sqrt(scale), Q K^T, softcap, the additive bias
(attn_mask: True -> 0, False -> -inf, or a float mask added; causal and, from 25, sliding-window
frontiers offset by the cached keys; from 24 a padding mask from nonpad_kv_seqlen and a mask shorter
than the keys padded with -inf), softmax (in softmax_precision's type), a fully-masked row zero, times V.
Group-query attention repeats each key/value head q_num_heads / kv_num_heads times, in place
([h0, h0, h1, h1, ...]). Outputs: Y, present_key, present_value (past concatenated with K, V) and
qk_matmul_output (mode 0: Q K^T; 1: after softcap; 2: with the bias; 3: the softmax).

Policy intermediate_precision: every stage in float64, each output rounded once (wide), or each stage
rounded to T1 and the softmax computed in its precision's type (input_type)."""
from __future__ import annotations

import numpy as np

from opconform import dtypes
from opconform.oracle.kernels import precision


def run(spec, inputs, attributes, policies):
    ins = list(inputs) + [None] * (7 - len(inputs))
    q, k, v, mask, past_key, past_value, nonpad = (None if a is None else np.asarray(a) for a in ins[:7])
    t1 = q.dtype
    narrow = precision.narrow_policy(policies)
    work = t1 if narrow else np.float64
    three_d = q.ndim == 3
    if three_d:
        q, k, v = (_heads(x, int(attributes[h])) for x, h in
                   ((q, "q_num_heads"), (k, "kv_num_heads"), (v, "kv_num_heads")))
    present_key = k if past_key is None else np.concatenate([past_key, k], axis=2)
    present_value = v if past_value is None else np.concatenate([past_value, v], axis=2)
    batch, q_heads, q_len, head_size = q.shape
    total = present_key.shape[2]
    scale = attributes.get("scale")
    # head_size 0: Q and K have no element to scale, so the default's 1/sqrt(0) = inf meets nothing
    root = np.sqrt((1.0 / np.sqrt(head_size) if head_size else 1.0) if scale is None else float(scale))
    if narrow:
        root = t1.type(root)  # ScaleFactorF = Cast(ScaleFactorSqrt, to=T1)
    bias = _bias(spec, mask, nonpad, attributes, batch, q_len, total, 0 if past_key is None else past_key.shape[2], work)
    reps = q_heads // present_key.shape[1]
    keys = np.repeat(present_key, reps, axis=1).astype(work)
    values = np.repeat(present_value, reps, axis=1).astype(work)
    with np.errstate(all="ignore"):
        scores = _round(np.matmul(_round(q.astype(work) * root, work), np.swapaxes(_round(keys * root, work), -1, -2)), work)
        softcap = float(attributes.get("softcap", 0.0))
        capped = _round(softcap * np.tanh(scores / softcap), work) if softcap > 0 else scores
        biased = _round(capped + bias, work)
        code = attributes.get("softmax_precision")
        soft_type = dtypes.BY_ONNX[int(code)].numpy if (narrow and code is not None) else work
        probabilities = _softmax(biased.astype(soft_type))
        masked = np.isneginf(np.max(bias, axis=-1, keepdims=True)) if bias.shape[-1] else np.ones(bias.shape[:-1] + (1,), bool)
        probabilities = np.where(masked, 0, probabilities)
        y = np.matmul(_round(probabilities, t1 if narrow else work).astype(work), values)
    mode = int(attributes.get("qk_matmul_output_mode", 0))
    qk = {0: scores, 1: capped, 2: biased}.get(mode, probabilities)
    if three_d:
        y = np.swapaxes(y, 1, 2).reshape(batch, q_len, y.shape[1] * y.shape[3])  # stated: no -1 to infer when empty
    v_t = present_value.dtype
    return (precision.to_type(y, t1), present_key.astype(t1), present_value.astype(v_t),
            precision.to_type(np.broadcast_to(qk, (batch, q_heads, q_len, total)), t1))


def _heads(x: np.ndarray, heads: int) -> np.ndarray:
    """(batch, sequence, heads * size) as (batch, heads, sequence, size); the size stated, not -1, which
    an empty x (batch or sequence 0) leaves nothing to infer from."""
    return np.swapaxes(x.reshape(x.shape[0], x.shape[1], heads, x.shape[2] // heads), 1, 2)


def _round(x: np.ndarray, work) -> np.ndarray:
    return x.astype(work)


def _bias(spec, mask, nonpad, attributes, batch, q_len, total, past_len, work) -> np.ndarray:
    """The additive bias, broadcastable to (batch, heads, q_len, total): the mask (bool: 0 or -inf),
    the causal and window frontiers, the padding mask."""
    bias = np.zeros((1, 1, q_len, total), dtype=work)
    if mask is not None:
        m = np.where(mask, 0.0, -np.inf) if mask.dtype == np.bool_ else mask.astype(np.float64)
        short = total - m.shape[-1]
        if short > 0 and spec.since >= 24:  # from 24 a mask shorter than the keys is padded with -inf (23: broadcast)
            m = np.concatenate([m, np.full(m.shape[:-1] + (short,), -np.inf)], axis=-1)
        with np.errstate(invalid="ignore"):
            bias = (bias + m).astype(work)
    # offset: the keys before the query block; per batch with an external cache (nonpad_kv_seqlen)
    if nonpad is not None and past_len == 0:
        offset = (nonpad.astype(np.int64) - q_len).reshape(-1, 1, 1, 1)
    else:
        offset = np.full((1, 1, 1, 1), past_len, dtype=np.int64)
    diff = np.arange(q_len).reshape(1, 1, -1, 1) + offset - np.arange(total).reshape(1, 1, 1, -1)
    allowed = np.ones(diff.shape, dtype=bool)
    if int(attributes.get("is_causal", 0)):
        allowed &= diff >= 0
    left, right = int(attributes.get("left_window_size", -1)), int(attributes.get("right_window_size", -1))
    if left >= 0:
        allowed &= diff <= left
    if right >= 0:
        allowed &= -diff <= right
    if nonpad is not None:
        allowed = allowed & (np.arange(total).reshape(1, 1, 1, -1) < nonpad.reshape(-1, 1, 1, 1))
    with np.errstate(invalid="ignore"):
        return (bias + np.where(allowed, 0.0, -np.inf)).astype(work)


def _softmax(x: np.ndarray) -> np.ndarray:
    """Softmax over the last axis; a row of -inf only is 0 (the masked-row guard decides it anyway)."""
    top = np.max(x, axis=-1, keepdims=True) if x.shape[-1] else np.zeros(x.shape[:-1] + (1,), x.dtype)
    top = np.where(np.isneginf(top), 0, top)
    e = np.exp(x - top)
    total = np.sum(e, axis=-1, keepdims=True)
    return e / np.where(total == 0, 1, total)
