"""OpenVINO NV12 and I420 to RGB / BGR (NV12toRGB-8 and its three siblings): the documents' formulas,
R = 1.164 (Y - 16) + 1.596 (V - 128), G = 1.164 (Y - 16) - 0.813 (V - 128) - 0.391 (U - 128),
B = 1.164 (Y - 16) + 2.018 (U - 128), clipped to [0, 255]; each 2 x 2 block of pixels shares one
U and one V. uint8 results by the policy uint8_rounding (nearest, halves away from zero, as
OpenVINO's reference; or truncate)."""
from __future__ import annotations

import numpy as np

from opconform.oracle.kernels.elementwise import wide
from opconform.oracle.kernels.fp_extremes import extremes_are_data


def planes(inputs: list, layout: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Y [N, H, W] and U, V [N, H/2, W/2] as float64 from one plane or from the separate ones.
    layout: 'nv12' (U and V interleaved in one plane) or 'i420' (U plane, then V plane)."""
    first = np.asarray(inputs[0])
    if len(inputs) == 1 or inputs[1] is None:
        n, rows, w = first.shape[0], first.shape[1], first.shape[2]
        h = rows * 2 // 3
        flat = wide(first).reshape(n, rows * w)
        y = flat[:, : h * w].reshape(n, h, w)
        chroma = flat[:, h * w:]
        if layout == "nv12":
            uv = chroma.reshape(n, h // 2, w // 2, 2)
            return y, uv[..., 0], uv[..., 1]
        quarter = (h // 2) * (w // 2)
        return y, chroma[:, :quarter].reshape(n, h // 2, w // 2), chroma[:, quarter:].reshape(n, h // 2, w // 2)
    y = wide(first)[..., 0]
    if layout == "nv12":
        uv = wide(inputs[1])
        return y, uv[..., 0], uv[..., 1]
    return y, wide(inputs[1])[..., 0], wide(inputs[2])[..., 0]


@extremes_are_data
def convert(inputs: list, policies: dict, layout: str, order: str) -> tuple[np.ndarray, ...]:
    dtype = np.asarray(inputs[0]).dtype
    y, u, v = planes(inputs, layout)
    u, v = (np.repeat(np.repeat(p, 2, axis=1), 2, axis=2) for p in (u, v))  # one chroma sample per 2 x 2 block
    c, d, e = y - 16, u - 128, v - 128
    r = 1.164 * c + 1.596 * e
    g = 1.164 * c - 0.813 * e - 0.391 * d
    b = 1.164 * c + 2.018 * d
    out = np.stack([r, g, b] if order == "rgb" else [b, g, r], axis=-1)
    if dtype == np.uint8:
        out = np.trunc(out + np.copysign(0.5, out)) if policies.get("uint8_rounding", "nearest") == "nearest" else np.trunc(out)
    with np.errstate(invalid="ignore"):
        return (np.clip(out, 0, 255).astype(dtype),)


def run_nv12_to_rgb(spec, inputs: list, attributes: dict, policies: dict) -> tuple[np.ndarray, ...]:
    return convert(inputs, policies, "nv12", "rgb")


def run_nv12_to_bgr(spec, inputs: list, attributes: dict, policies: dict) -> tuple[np.ndarray, ...]:
    return convert(inputs, policies, "nv12", "bgr")


def run_i420_to_rgb(spec, inputs: list, attributes: dict, policies: dict) -> tuple[np.ndarray, ...]:
    return convert(inputs, policies, "i420", "rgb")


def run_i420_to_bgr(spec, inputs: list, attributes: dict, policies: dict) -> tuple[np.ndarray, ...]:
    return convert(inputs, policies, "i420", "bgr")
