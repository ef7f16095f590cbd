"""OpenVINO DeformableConvolution-8: ONNX's DeformConv kernel through the spec's mapping (zeros
outside the map: bilinear_interpolation_pad true). With bilinear_interpolation_pad false a sampling
location within one pixel outside the map (in (-1, 0) or (size - 1, size)) shifts to the inner
boundary: the offsets are rewritten so that ONNX's kernel samples there."""
from __future__ import annotations

import numpy as np

from opconform.model import SpecVersion
from opconform.oracle.kernels import conv
from opconform.oracle.openvino import mapped


def _shifted_offsets(spec: SpecVersion, inputs: list, attributes: dict) -> np.ndarray:
    x, offsets, w = (np.asarray(inputs[k]) for k in (0, 1, 2))
    _, onnx_attrs = mapped.onnx_arguments(spec, inputs, attributes)
    kernel = w.shape[2:]
    win = conv.window(x.shape[2:], kernel, {"pads": onnx_attrs["pads"], "strides": attributes["strides"],
                                            "dilations": attributes["dilations"]})
    n, dg = x.shape[0], int(attributes.get("deformable_group", 1))
    off = offsets.astype(np.float64).reshape((n, dg) + tuple(kernel) + (2,) + tuple(win.out))
    out = off.copy()
    for axis in range(2):  # y, then x: the (dy, dx) pair of each tap
        size = x.shape[2 + axis]
        regular = (np.arange(kernel[axis])[:, None] * win.dilations[axis]
                   + np.arange(win.out[axis])[None, :] * win.strides[axis] - win.begin[axis])  # (k, o)
        shape = [1, 1, 1, 1, 1, 1]  # (n, dg, kh, kw, oh, ow)
        shape[2 + axis], shape[4 + axis] = kernel[axis], win.out[axis]
        regular = regular.reshape(shape)
        where = regular + off[:, :, :, :, axis]
        moved = np.where((where > -1) & (where < 0), 0.0, np.where((where > size - 1) & (where < size), size - 1.0, where))
        out[:, :, :, :, axis] = moved - regular
    return out.reshape(offsets.shape)


def run(spec: SpecVersion, inputs: list, attributes: dict, policies: dict) -> tuple[np.ndarray, ...]:
    inputs = list(inputs)
    if not attributes.get("bilinear_interpolation_pad", False):
        with np.errstate(all="ignore"):
            inputs[1] = _shifted_offsets(spec, inputs, attributes).astype(np.asarray(inputs[1]).dtype)
    return mapped.run(spec, inputs, attributes, policies)
