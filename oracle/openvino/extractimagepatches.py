"""OpenVINO ExtractImagePatches-3: patches of sizes, strides apart, sampled every rates, stacked in
the depth dimension (patch row, patch column, then channel: the document's example 5); auto_pad
same_upper / same_lower pads with zeros so that ceil(in / stride) patches fit, the odd element at
the end (upper) or the beginning (lower)."""
from __future__ import annotations

import numpy as np

from opconform.model import SpecVersion


def run(spec: SpecVersion, inputs: list, attributes: dict, policies: dict) -> tuple[np.ndarray, ...]:
    x = np.asarray(inputs[0])
    (kr, kc), (sr, sc), (rr, rc) = (tuple(int(v) for v in attributes[k]) for k in ("sizes", "strides", "rates"))
    pad = attributes["auto_pad"]
    n, depth, rows, cols = x.shape
    begins, outs = [], []
    for size, stride, rate, extent in ((kr, sr, rr, rows), (kc, sc, rc, cols)):
        eff = size + (size - 1) * (rate - 1)
        if pad == "valid":
            out, total = max((extent - eff) // stride + 1, 0), 0
        else:
            out = -(-extent // stride)
            total = max((out - 1) * stride + eff - extent, 0)
        begin = total // 2 if pad == "same_upper" else total - total // 2
        begins.append(0 if pad == "valid" else begin)
        outs.append((out, total))
    (out_r, total_r), (out_c, total_c) = outs
    padded = np.pad(x, [(0, 0), (0, 0), (begins[0], total_r - begins[0]), (begins[1], total_c - begins[1])])
    y = np.empty((n, kr * kc * depth, out_r, out_c), dtype=x.dtype)
    r0, c0 = np.arange(out_r) * sr, np.arange(out_c) * sc
    for i in range(kr):
        for j in range(kc):
            block = padded[:, :, (r0 + i * rr)[:, None], (c0 + j * rc)[None, :]]
            y[:, (i * kc + j) * depth:(i * kc + j + 1) * depth] = block
    return (y,)
