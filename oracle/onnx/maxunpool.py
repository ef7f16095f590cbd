"""ONNX MaxUnpool: zeros of the unpooled shape with X's values put at the flat positions I names.
The unpooled shape is (N, C, (in - 1) * strides - pads_begin - pads_end + kernel_shape), or the
output_shape input. Policy indices_over: where output_shape is given, I counts positions of the
inferred shape and the result sits in output_shape's leading corner (`inferred_shape`: the official
case maxunpool_export_with_output_shape, onnx.reference), or I counts positions of output_shape
itself (`output_shape`: the MaxPool input's own flattening). Policy repeated_index: the last or
the first value sent to one position stays."""
from __future__ import annotations

import numpy as np

from opconform.model import RelationBroken
from opconform.oracle.kernels import conv


def inferred_shape(x_shape, attributes) -> tuple[int, ...]:
    n = len(x_shape) - 2
    strides = conv.ints_or(attributes.get("strides"), n, 1)
    pads = conv.ints_or(attributes.get("pads"), 2 * n, 0)
    return tuple(x_shape[:2]) + tuple((i - 1) * s - pads[a] - pads[n + a] + k
                                      for a, (i, s, k) in enumerate(zip(x_shape[2:], strides, attributes["kernel_shape"])))


def run(spec, inputs, attributes, policies):
    x, indices = np.asarray(inputs[0]), np.asarray(inputs[1]).astype(np.int64)
    wanted = inputs[2] if len(inputs) > 2 else None
    inferred = inferred_shape(x.shape, attributes)
    target = inferred if wanted is None else tuple(int(v) for v in np.asarray(wanted).reshape(-1))
    over = inferred if policies["indices_over"] == "inferred_shape" else target
    if indices.size and int(indices.max()) >= int(np.prod(over, dtype=np.int64)):
        raise RelationBroken(spec.id, "indices_in_range", "error",
                             "an index past the positions of the shape the indices count under this reading")
    flat = np.zeros(int(np.prod(over, dtype=np.int64)), dtype=x.dtype)
    at, vals = indices.reshape(-1), x.reshape(-1)
    if policies["repeated_index"] == "first":  # written in reverse: the first of a repeated index stays
        at, vals = at[::-1], vals[::-1]
    flat[at] = vals  # NumPy assigns in order: the last of a repeated index stays
    y = np.zeros(target, dtype=x.dtype)
    y[tuple(slice(0, d) for d in over)] = flat.reshape(over)
    return (y,)
