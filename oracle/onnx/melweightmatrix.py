"""ONNX MelWeightMatrix-17: triangular mel filterbanks over the one-sided DFT bins
(oracle/kernels/signal.py), in the type output_datatype names."""
from __future__ import annotations

import numpy as np
from opconform import dtypes
from opconform.oracle.kernels import signal


def run(spec, inputs, attributes, policies):
    num_mel_bins, dft_length, sample_rate = (int(np.asarray(x).reshape(-1)[0]) for x in inputs[:3])
    lower, upper = (float(np.asarray(x).astype(np.float64).reshape(-1)[0]) for x in inputs[3:5])
    dtype = dtypes.BY_ONNX[int(attributes["output_datatype"])].numpy
    return (signal.mel_weight_matrix(spec.id, num_mel_bins, dft_length, sample_rate, lower, upper, dtype),)
