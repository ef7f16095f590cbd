"""The Fourier transforms of OpenVINO's signal operations (DFT-7, IDFT-7, RDFT-9, IRDFT-9): numpy.fft
over the listed axes, in complex128, rounded once to the data's type.

A complex tensor is stored as [..., 2] (real, imaginary); the axes count the dimensions before that
pair (negative ones from its end: r - 1 + a) except for RDFT, whose input is real (r + a). signal_size
pads with zeros at the end or keeps the slice 0:S of each axis; -1 keeps the axis' own length.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

from opconform.specs import normalize_axis

__all__ = ["axes_and_sizes", "complex_of", "interleaved", "transform"]


def axes_and_sizes(axes, signal_size, shape: Sequence[int], rank: int, default_last=None) -> tuple[list[int], list[int]]:
    """The normalised axes (over `rank` dimensions) and each one's signal size: signal_size's
    entry, or for -1 or an absent signal_size the axis' length (`default_last(length)` for the
    last listed axis where given: IRDFT's 2 * (M - 1))."""
    ax = [normalize_axis(int(a), rank) for a in np.asarray(axes).reshape(-1)]
    given = None if signal_size is None else [int(s) for s in np.asarray(signal_size).reshape(-1)]
    sizes = []
    for i, a in enumerate(ax):
        if given is not None and given[i] != -1:
            sizes.append(given[i])
        elif default_last is not None and i == len(ax) - 1:
            sizes.append(default_last(shape[a]))
        else:
            sizes.append(int(shape[a]))
    return ax, sizes


def complex_of(data: np.ndarray) -> np.ndarray:
    """[..., 2] (real, imaginary) as complex128 [...]."""
    x = np.asarray(data).astype(np.float64)
    return x[..., 0] + 1j * x[..., 1]


def interleaved(z: np.ndarray, dtype) -> np.ndarray:
    """complex [...] as [..., 2] in `dtype`, rounded once."""
    with np.errstate(all="ignore"):
        return np.stack([z.real, z.imag], axis=-1).astype(dtype)


def transform(kind: str, data: np.ndarray, axes, signal_size) -> np.ndarray:
    """DFT, IDFT, RDFT or IRDFT of `data` as the documents define them (numpy.fft's fftn, ifftn,
    rfftn and irfftn with s = the signal sizes: the same padding, trimming and one-sided halves)."""
    data = np.asarray(data)
    with np.errstate(all="ignore"):
        if kind == "RDFT":
            ax, s = axes_and_sizes(axes, signal_size, data.shape, data.ndim)
            return interleaved(np.fft.rfftn(data.astype(np.float64), s=s, axes=ax), data.dtype)
        z = complex_of(data)
        if kind == "IRDFT":
            ax, s = axes_and_sizes(axes, signal_size, z.shape, z.ndim, default_last=lambda m: 2 * (m - 1))
            return np.fft.irfftn(z, s=s, axes=ax).astype(data.dtype)
        ax, s = axes_and_sizes(axes, signal_size, z.shape, z.ndim)
        fn = np.fft.fftn if kind == "DFT" else np.fft.ifftn
        return interleaved(fn(z, s=s, axes=ax), data.dtype)
