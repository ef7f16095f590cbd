"""ONNX QLinearConv: y = saturate(round(acc * x_scale * w_scale / y_scale) + y_zero_point), acc the
exact integer Conv of (x - x_zero_point) and (w - w_zero_point) plus B (int32, quantized with
scale x_scale * w_scale and zero point 0). w_scale and w_zero_point are one per tensor or one per
output channel.

Policy intermediate_precision: `wide` -- acc * x_scale * w_scale / y_scale exact (float64),
rounded half to even; `input_type` -- acc converted to float32 times the multiplier
x_scale * w_scale / y_scale computed in float32, as implementations requantize. Where some order
of the int32 accumulation leaves int32 the outcome is undefined (integer_overflow)."""
from __future__ import annotations

import numpy as np

from opconform import dtypes
from opconform.oracle.kernels import conv, precision, quantize
from opconform.oracle.onnx.convinteger import centered


def run(spec, inputs, attributes, policies):
    x, x_scale, x_zp, w, w_scale, w_zp, y_scale, y_zp = (np.asarray(v) for v in inputs[:8])
    b = inputs[8] if len(inputs) > 8 else None
    win = conv.window(x.shape[2:], attributes.get("kernel_shape") or w.shape[2:], attributes)
    acc = conv.convolve(centered(x, x_zp), centered(w, w_zp, per_channel=True), win,
                        int(attributes.get("group") or 1), spec.id, policies)
    lay = (slice(None),) + (None,) * (acc.ndim - 2)
    if b is not None:
        acc = acc + np.asarray(b).astype(np.int64)[lay]
        info = np.iinfo(np.int32)  # the bias joins the int32 accumulation: past it, some order overflows
        precision.refuse_overflow(spec.id, (acc < info.min) | (acc > info.max), "the int32 accumulation plus the bias")
    ws = quantize.wide(w_scale).reshape(-1)
    ws = ws[lay] if ws.size > 1 else ws.reshape(())
    xs, ys = quantize.wide(x_scale).reshape(-1)[0], quantize.wide(y_scale).reshape(-1)[0]
    with np.errstate(all="ignore"):
        if precision.narrow_policy(policies):
            f32 = np.float32
            q = acc.astype(f32) * ((f32(xs) * ws.astype(f32)) / f32(ys)).astype(f32)
        else:
            q = acc * xs * ws / ys
    to = dtypes.name_of(y_zp.dtype)
    return (quantize.saturate(spec.id, np.asarray(q, dtype=np.float64), y_zp.reshape(-1)[0], to),)
