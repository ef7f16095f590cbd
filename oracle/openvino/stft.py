"""OpenVINO STFT-15: frames of frame_size samples every frame_step samples of each signal, each
multiplied by the window zero-padded to frame_size and centred in it (the left pad
(frame_size - window_length) // 2), transformed by a one-sided real FFT (frame_size // 2 + 1 bins);
[..., frames, bins, 2], or [..., bins, frames, 2] with transpose_frames. float64, rounded once."""
from __future__ import annotations

import numpy as np

from opconform.model import SpecVersion
from opconform.oracle.openvino import fourier


def run(spec: SpecVersion, inputs: list, attributes: dict, policies: dict) -> tuple[np.ndarray, ...]:
    signal, window = np.asarray(inputs[0]), np.asarray(inputs[1]).astype(np.float64)
    size, step = (int(np.asarray(inputs[k]).reshape(-1)[0]) for k in (2, 3))
    left = (size - window.size) // 2
    padded = np.zeros(size)
    padded[left:left + window.size] = window
    x = signal.astype(np.float64)
    count = (x.shape[-1] - size) // step + 1
    starts = np.arange(count) * step
    frames = x[..., starts[:, None] + np.arange(size)[None, :]] * padded  # [..., frames, size]
    with np.errstate(all="ignore"):
        y = fourier.interleaved(np.fft.rfft(frames, axis=-1), signal.dtype)  # [..., frames, bins, 2]
    if attributes["transpose_frames"]:
        y = np.swapaxes(y, -2, -3)
    return (y,)
