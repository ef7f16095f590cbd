"""OpenVINO ISTFT-16: each frame's one-sided spectrum [fft_results, 2] back to frame_size samples by
the inverse real FFT (IRDFT's kernel, oracle/openvino/fourier.py), times sqrt(frame_size) when
normalized, overlap-added every frame_step samples and divided by the overlap of the window
(zero-padded and centred in the frame as STFT-15 places it). The text gives no formula: policy
overlap_add picks OpenVINO's reference (frames added as they are, divided by the sum of the
windows) or PyTorch's and librosa's least squares (frames times the window, divided by the sum of
the squared windows); both undo STFT-15 exactly. A sample no window covers is 0. With center the
first frame_size // 2 samples are the padding STFT added and are dropped; the output has
signal_length samples (default (frames - 1) * frame_step, + frame_size without center), zeros past
the restored ones (policy past_default_length: past the default length too, or the restored
samples that lie there)."""
from __future__ import annotations

import numpy as np

from opconform.model import SpecVersion
from opconform.oracle.openvino import fourier


def policies_in_play(spec: SpecVersion, inputs: list, attributes: dict) -> set[str]:
    return {"overlap_add", "past_default_length"} if attributes.get("center") else {"overlap_add"}


def run(spec: SpecVersion, inputs: list, attributes: dict, policies: dict) -> tuple[np.ndarray, ...]:
    data, window = np.asarray(inputs[0]), np.asarray(inputs[1]).astype(np.float64)
    size, step = (int(np.asarray(inputs[k]).reshape(-1)[0]) for k in (2, 3))
    z = np.swapaxes(data.astype(np.float64), -2, -3)  # [..., frames, fft_results, 2]
    frames = fourier.transform("IRDFT", z, [-1], [size]).astype(np.float64)  # [..., frames, size]
    if attributes.get("normalized"):
        frames = frames * np.sqrt(size)
    padded = np.zeros(size)
    left = (size - window.size) // 2
    padded[left:left + window.size] = window
    squared = policies.get("overlap_add", "window_sum") == "window_squared_sum"
    if squared:
        frames = frames * padded
    count = frames.shape[-2]
    total = (count - 1) * step + size if count else 0
    where = (np.arange(count)[:, None] * step + np.arange(size)[None, :]).reshape(-1)
    added = np.zeros(frames.shape[:-2] + (total,))
    np.add.at(added, (..., where), frames.reshape(frames.shape[:-2] + (count * size,)))
    cover = np.bincount(where, weights=np.tile(padded ** 2 if squared else padded, count), minlength=total)
    with np.errstate(all="ignore"):
        restored = np.where(cover != 0, added / np.where(cover != 0, cover, 1), 0.0)
    center = bool(attributes.get("center"))
    margin = size // 2 if center else 0
    default = max(total - size, 0) if center else total
    given = inputs[4] if len(inputs) > 4 else None
    length = int(np.asarray(given).reshape(-1)[0]) if given is not None else default
    kept = restored[..., margin:]
    if center and policies.get("past_default_length", "zeros") == "zeros":
        kept = kept[..., :default]
    out = np.zeros(kept.shape[:-1] + (length,))
    n = min(length, kept.shape[-1])
    out[..., :n] = kept[..., :n]
    with np.errstate(all="ignore"):
        return (out.astype(data.dtype),)
