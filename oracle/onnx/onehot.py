"""ONNX OneHot: on_value where the (cast) index names the class, off_value elsewhere."""
from __future__ import annotations

import numpy as np

from opconform.oracle.kernels.indexing import axis_of


def run(spec, inputs, attributes, policies):
    indices, depth, values = (np.asarray(x) for x in inputs)
    idx = indices.astype(np.int64)  # non-integer indices: cast to int64 (truncation), as the text says
    d = int(depth.reshape(-1)[0].astype(np.int64))
    hit = (idx[..., None] == np.arange(d)) | (idx[..., None] == np.arange(d) - d)
    axis = axis_of(attributes["axis"], idx.ndim + 1)
    off, on = values.reshape(-1)
    return (np.moveaxis(np.where(hit, on, off).astype(values.dtype), -1, axis),)
