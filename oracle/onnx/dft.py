"""ONNX DFT-17 and DFT-20: numpy.fft along the axis (an attribute in 17, an input in 20), see
oracle/kernels/signal.py. Policy intermediate_precision: `wide` (complex128) or `input_type`
(numpy's complex64 FFT below float64, as onnx.reference)."""
from __future__ import annotations

import numpy as np

from opconform.oracle.kernels import signal


def run(spec, inputs, attributes, policies):
    x = np.asarray(inputs[0])
    given = lambda k: inputs[k] if len(inputs) > k and inputs[k] is not None else None  # noqa: E731
    axis = int(np.asarray(given(2)).reshape(-1)[0]) if given(2) is not None else attributes.get("axis", -2)
    axis = axis % x.ndim
    inverse, onesided = bool(attributes["inverse"]), bool(attributes["onesided"])
    n = x.shape[axis]
    length = int(np.asarray(given(1)).reshape(-1)[0]) if given(1) is not None else (2 * (n - 1) if inverse and onesided else n)
    single = policies["intermediate_precision"] == "input_type"
    return (signal.dft(x, length, axis, inverse, onesided, single),)
