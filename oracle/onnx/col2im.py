"""ONNX Col2Im: each column l of the input (one block position, lexicographic) holds C blocks of
prod(block_shape) values; every value is added into the image at l * strides - pads_begin +
k * dilations (PyTorch's fold), positions in the padding dropped. One np.add.at over all (block,
tap) pairs, no loop over positions.

Policy intermediate_precision (floats): the overlapping values summed in float64 (wide) or in
the input type (input_type); integers exactly, where the sum leaves the type undefined
(integer_overflow); complex in complex128."""
from __future__ import annotations

import numpy as np

from opconform.oracle.kernels import conv, linalg, precision


def run(spec, inputs, attributes, policies):
    x = np.asarray(inputs[0])
    image = tuple(int(v) for v in np.asarray(inputs[1]).reshape(-1))
    block = tuple(int(v) for v in np.asarray(inputs[2]).reshape(-1))
    n = len(image)
    strides = conv.ints_or(attributes.get("strides"), n, 1)
    dilations = conv.ints_or(attributes.get("dilations"), n, 1)
    pads = conv.ints_or(attributes.get("pads"), 2 * n, 0)
    win = conv.window(image, block, {"strides": strides, "dilations": dilations, "pads": pads})
    # (O.., K..) -> the image position each (block position, tap) lands on, or -1 in the padding
    at = np.zeros(win.out + block, dtype=np.int64)
    inside = np.ones(win.out + block, dtype=bool)
    steps = np.cumprod((1,) + image[::-1][:-1])[::-1]
    for a in range(n):  # one term per spatial axis
        coord = np.arange(win.out[a])[:, None] * strides[a] - pads[a] + np.arange(block[a])[None, :] * dilations[a]
        shape = [1] * (2 * n)
        shape[a], shape[n + a] = win.out[a], block[a]
        coord = coord.reshape(shape)
        at = at + coord * int(steps[a])
        inside = inside & (coord >= 0) & (coord < image[a])
    k, positions = int(np.prod(block, dtype=np.int64)), int(np.prod(win.out, dtype=np.int64))
    # input [N, C * K, L] -> [N * C, K, L]; targets laid out the same way: (K, L)
    vals = x.reshape(x.shape[0] * (x.shape[1] // max(k, 1)), k, positions) if k else x.reshape(0, 0, positions)
    at = np.moveaxis(at.reshape(positions, k), 0, 1)
    keep = np.moveaxis(inside.reshape(positions, k), 0, 1)
    kind = x.dtype.kind
    if kind in "iu":
        t = np.int64
    elif kind == "c":
        t = np.complex128
    else:
        t = x.dtype if precision.narrow_policy(policies) else np.float64
    acc = np.zeros((vals.shape[0], int(np.prod(image, dtype=np.int64))), dtype=t)
    with np.errstate(all="ignore"):
        np.add.at(acc, (slice(None), at[keep]), vals[:, keep].astype(t))
    if kind in "iu":
        info = np.iinfo(x.dtype)
        precision.refuse_overflow(spec.id, (acc < info.min) | (acc > info.max), "a sum of overlapping block values")
    y = acc.reshape((x.shape[0], vals.shape[0] // max(x.shape[0], 1)) + image) if x.shape[0] else \
        np.zeros((0, x.shape[1] // max(k, 1)) + image, dtype=t)
    return (linalg.narrow(y, x.dtype),)
