"""Signal operators of ONNX: DFT, STFT and MelWeightMatrix, with numpy.fft, rounded once.

A complex tensor is held as ONNX writes it: a last dimension of 2 (real, imaginary); a real one has
a last dimension of 1. The transforms take `single`: the policy intermediate_precision's
`input_type`, numpy's single-precision FFT (complex64) for every float type narrower than float64
(NumPy has no FFT in float16 or bfloat16), as onnx.reference computes; else complex128.
"""
from __future__ import annotations

import numpy as np

from opconform.model import RelationBroken
from opconform.oracle.kernels.elementwise import wide


def as_complex(x: np.ndarray, single: bool = False) -> np.ndarray:
    """[..., 1] (real) or [..., 2] (real, imaginary) as a complex array of shape [...]: complex128,
    or complex64 where `single` and x is narrower than float64."""
    v = wide(x)
    z = v[..., 0] + (1j * v[..., 1] if v.shape[-1] == 2 else 0.0)
    return z.astype(np.complex64) if single and np.asarray(x).dtype != np.float64 else z.astype(np.complex128)


def interleaved(z: np.ndarray, dtype) -> np.ndarray:
    """A complex array as [..., 2] in `dtype`."""
    with np.errstate(all="ignore"):
        return np.stack([z.real, z.imag], axis=-1).astype(dtype)


def dft(x: np.ndarray, length: int, axis: int, inverse: bool, onesided: bool, single: bool = False) -> np.ndarray:
    """y[k] = sum_n e^{-2 pi j k n / N} x[n] along `axis` of the signal (its last dimension held
    apart), zero-padded or cut to `length`; the inverse with e^{+2 pi j k n / N} and 1/N. onesided:
    forward, the bins 0 .. floor(N/2) of a real signal; inverse, a real signal of N samples from
    the bins 0 .. floor(N/2) of a conjugate-symmetric spectrum (IRFFT)."""
    z = as_complex(x, single)
    with np.errstate(all="ignore"):
        if inverse and onesided:
            return np.fft.irfft(z, n=length, axis=axis)[..., None].astype(x.dtype)
        y = np.fft.ifft(z, n=length, axis=axis) if inverse else np.fft.fft(z, n=length, axis=axis)
    if onesided:
        y = np.take(y, np.arange(length // 2 + 1), axis=axis)
    return interleaved(y, x.dtype)


def stft(signal: np.ndarray, step: int, window: np.ndarray | None, length: int, onesided: bool,
         single: bool = False) -> np.ndarray:
    """Frames of `length` samples every `step` samples, each multiplied by the window (all ones
    without one) and transformed: [batch, frames, bins, 2]."""
    z = as_complex(signal, single)  # [batch, signal_length]
    frames = (z.shape[1] - length) // step + 1
    starts = np.arange(max(frames, 0)) * step
    framed = z[:, starts[:, None] + np.arange(length)[None, :]]  # [batch, frames, length]
    w = np.ones(length, dtype=z.real.dtype) if window is None else wide(window).astype(z.real.dtype)
    with np.errstate(all="ignore"):
        y = np.fft.fft(framed * w, n=length, axis=-1)
    if onesided:
        y = y[..., :length // 2 + 1]
    return interleaved(y, signal.dtype)


def mel_weight_matrix(spec_id: str, num_mel_bins: int, dft_length: int, sample_rate: int, lower: float,
                      upper: float, dtype) -> np.ndarray:
    """[floor(dft_length / 2) + 1, num_mel_bins]: triangle i rises from bin edge i to a peak of 1 at
    edge i + 1 and falls to edge i + 2. The edges, as onnx.reference and onnxruntime place them:
    num_mel_bins + 2 points spaced by (mel(upper) - mel(lower)) / (num_mel_bins + 2) from
    mel(lower), mel(f) = 2595 log10(1 + f / 700), mapped back to hertz and to the DFT bin
    floor((dft_length + 1) * f / sample_rate). An edge past the last bin breaks the oracle-side
    relation bins_in_spectrum (undefined: the text gives no outcome)."""
    bins = dft_length // 2 + 1
    # in onnx.reference's order of operations: an edge that lands on a whole bin in exact
    # arithmetic must floor the same way
    low_mel = 2595 * np.log1p(lower / 700) / np.log(10)
    high_mel = 2595 * np.log1p(upper / 700) / np.log(10)
    points = np.arange(num_mel_bins + 2) * ((high_mel - low_mel) / (num_mel_bins + 2)) + low_mel
    hertz = 700 * np.expm1(points / 2595 * np.log(10))
    position = (dft_length + 1) * hertz / sample_rate
    # a position a whole bin in exact arithmetic (the lowest edge at lower_edge_hertz = 2, 15 + 1
    # bins over 16 Hz) floors to that bin or the one below by the last bit of the mel round
    # trip, which the text leaves to the implementation (onnx.reference computes it in the
    # inputs' float16: 2.00069; onnxruntime in double)
    near = np.abs(position - np.round(position)) <= 1e-9 * np.maximum(1.0, np.abs(position))
    if np.any(near & (position != 0)):
        raise RelationBroken(spec_id, "edge_on_bin_boundary", "undefined",
                             "a triangle edge falls on a bin boundary, where the mel round trip's rounding picks the bin")
    edges = ((dft_length + 1) * hertz // sample_rate).astype(np.int64)
    if edges.size and (edges.min() < 0 or edges.max() >= bins):
        raise RelationBroken(spec_id, "bins_in_spectrum", "undefined",
                             f"a triangle's edge falls on bin {int(edges.max())}, past the {bins} bins of the spectrum")
    j = np.arange(bins)[:, None]
    left, centre, right = edges[None, :-2], edges[None, 1:-1], edges[None, 2:]
    with np.errstate(all="ignore"):
        rise = np.where(centre > left, (j - left) / np.maximum(centre - left, 1), (j == centre) * 1.0)
        fall = np.where(right > centre, (right - j) / np.maximum(right - centre, 1), 0.0)
    out = np.where((j >= left) & (j <= centre), rise, 0.0)
    out = np.where((j >= centre) & (j < right), fall, out)  # the falling side overwrites the centre
    return out.astype(dtype)
