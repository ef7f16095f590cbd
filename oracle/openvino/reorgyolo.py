"""OpenVINO ReorgYolo-1: darknet's reorg as OpenVINO's reference computes it. With oc = C / s^2 the
input is read as [N, oc, H*s, W*s]; the output, read as [N, C, H, W], holds at [n, c, h, w] that
view's [n, c % oc, h*s + (c // oc) // s, w*s + (c // oc) % s], and is reshaped to [N, C*s^2, H/s, W/s]."""
from __future__ import annotations

import numpy as np

from opconform.model import SpecVersion


def run(spec: SpecVersion, inputs: list, attributes: dict, policies: dict) -> tuple[np.ndarray, ...]:
    x = np.asarray(inputs[0])
    s = int(attributes["stride"])
    n, c, h, w = x.shape
    oc = c // (s * s)
    view = x.reshape(n, oc, h * s, w * s)
    ch = np.arange(c)
    offset = ch // oc
    rows = np.arange(h)[None, :, None] * s + (offset // s)[:, None, None]
    cols = np.arange(w)[None, None, :] * s + (offset % s)[:, None, None]
    out = view[:, (ch % oc)[:, None, None], rows, cols]  # (N, C, H, W)
    return (out.reshape(n, c * s * s, h // s, w // s),)
