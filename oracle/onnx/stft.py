"""ONNX STFT-17: windowed frames and a DFT of frame_length points each (oracle/kernels/signal.py).
Policy intermediate_precision as DFT's: `wide` (complex128) or `input_type` (complex64 below float64)."""
from __future__ import annotations

import numpy as np

from opconform.oracle.kernels import signal


def run(spec, inputs, attributes, policies):
    x, step = np.asarray(inputs[0]), int(np.asarray(inputs[1]).reshape(-1)[0])
    window = inputs[2] if len(inputs) > 2 else None
    frame_length = inputs[3] if len(inputs) > 3 else None
    length = int(np.asarray(frame_length).reshape(-1)[0]) if frame_length is not None else (
        np.asarray(window).shape[0] if window is not None else x.shape[1])
    single = policies["intermediate_precision"] == "input_type"
    return (signal.stft(x, step, window, length, bool(attributes["onesided"]), single),)
