"""OpenVINO's DFT-7, IDFT-7, RDFT-9 and IRDFT-9 (oracle/openvino/fourier.py) against the documents'
sums written out element by element, and the shapes of the documents' 5-D examples, too large
to run, from the oracle's own axes and signal sizes."""
from __future__ import annotations

import itertools

import numpy as np
import pytest

from opconform import oracle, specs
from opconform.oracle.openvino import fourier


def _run(spec_id: str, *inputs) -> np.ndarray:
    """The oracle module on float64 data (which the specs leave undefined, OpenVINO's FFTs refusing it)."""
    spec = specs.load(spec_id)
    return np.asarray(oracle.module_for(spec).run(spec, list(inputs), {}, {})[0])


def _document_sum(x: np.ndarray, axes: list[int], sign: int) -> np.ndarray:
    """Y[m] = sum_j X[j] exp(sign 2 pi i sum_q m_q j_q / S_q) over the listed axes of complex X."""
    y = np.zeros_like(x)
    sizes = [x.shape[a] for a in axes]
    for out in itertools.product(*(range(n) for n in x.shape)):
        total = 0j
        for js in itertools.product(*(range(s) for s in sizes)):
            src = list(out)
            phase = 0.0
            for a, j, s in zip(axes, js, sizes):
                src[a] = j
                phase += out[a] * j / s
            total += x[tuple(src)] * np.exp(sign * 2j * np.pi * phase)
        y[out] = total
    return y


def test_dft_is_the_documents_sum_over_unordered_axes():
    rng = np.random.default_rng(0)
    data = rng.normal(size=(2, 3, 4, 2))
    x = data[..., 0] + 1j * data[..., 1]
    got = _run("openvino::DFT-7", data, np.array([2, -3]))  # -3 is axis r - 1 - 3 = 0
    want = _document_sum(x, [2, 0], -1)
    np.testing.assert_allclose(got[..., 0] + 1j * got[..., 1], want, atol=1e-12)


def test_idft_scales_by_the_signal_sizes_and_undoes_dft():
    rng = np.random.default_rng(1)
    data = rng.normal(size=(3, 4, 2))
    axes = np.array([0, 1])
    back = _run("openvino::IDFT-7", _run("openvino::DFT-7", data, axes), axes)
    np.testing.assert_allclose(back, data, atol=1e-12)


def test_signal_size_pads_trims_and_keeps_with_minus_one():
    data = np.arange(24, dtype=np.float64).reshape(4, 3, 2)
    got = _run("openvino::DFT-7", data, np.array([0, 1]), np.array([6, -1]))
    padded = np.concatenate([data, np.zeros((2, 3, 2))])
    np.testing.assert_allclose(got, _run("openvino::DFT-7", padded, np.array([0, 1])), atol=1e-12)
    trimmed = _run("openvino::DFT-7", data, np.array([0]), np.array([2]))
    np.testing.assert_allclose(trimmed, _run("openvino::DFT-7", data[:2], np.array([0])), atol=1e-12)


def test_rdft_keeps_half_of_the_last_listed_axis_and_irdft_inverts_it():
    rng = np.random.default_rng(2)
    x = rng.normal(size=(5, 6))
    spectrum = _run("openvino::RDFT-9", x, np.array([1, 0]))  # the last listed axis, 0, is halved
    assert spectrum.shape == (5 // 2 + 1, 6, 2)
    full = _document_sum(x.astype(complex), [1, 0], -1)
    np.testing.assert_allclose(spectrum[..., 0] + 1j * spectrum[..., 1], full[:3], atol=1e-12)
    back = _run("openvino::IRDFT-9", spectrum, np.array([1, 0]), np.array([-1, 5]))
    np.testing.assert_allclose(back, x, atol=1e-12)


@pytest.mark.parametrize("kind, shape, axes, sizes, out", [
    # DFT-7 and IDFT-7, the 5-D examples (the pair dimension is not counted)
    ("DFT", (16, 768, 580, 320), [3, 1, 2], [170, -1, 1024], (16, 768, 1024, 170)),
    ("DFT", (16, 768, 580, 320), [3, 0, 2], [258, -1, 2056], (16, 768, 2056, 258)),
    # RDFT-9, the 4-D examples: the last listed axis keeps S // 2 + 1 bins
    ("RDFT", (16, 768, 580, 320), [3, 1, 2], [170, -1, 1024], (16, 768, 513, 170)),
    ("RDFT", (16, 768, 580, 320), [3, 0, 2], [258, -1, 2056], (16, 768, 1029, 258)),
    # IRDFT-9, the 5-D examples
    ("IRDFT", (16, 768, 580, 320), [3, 1, 2], [170, -1, 1024], (16, 768, 1024, 170)),
    ("IRDFT", (16, 768, 580, 320), [3, 0, 2], [258, -1, 2056], (16, 768, 2056, 258)),
])
def test_large_examples_have_the_documents_shapes(kind, shape, axes, sizes, out):
    ax, s = fourier.axes_and_sizes(axes, sizes, shape, len(shape))
    got = list(shape)
    for a, n in zip(ax, s):
        got[a] = n
    if kind == "RDFT":
        got[ax[-1]] = s[-1] // 2 + 1
    assert tuple(got) == out


def test_irdft_default_length_of_the_last_axis_is_twice_its_bins_less_two():
    ax, s = fourier.axes_and_sizes([1, 2], None, (1, 161, 161), 3, default_last=lambda m: 2 * (m - 1))
    assert (ax, s) == ([1, 2], [161, 320])


@pytest.mark.parametrize("transpose", [False, True])
def test_stft_is_the_windowed_frames_one_sided_dft(transpose):
    """Frames of 6 samples every 2 of a [2, 15] signal, a 3-sample window centred in the frame
    (one zero before it, two after), each frame's sum over its samples as the document's DFT."""
    rng = np.random.default_rng(6)
    signal, window = rng.normal(size=(2, 15)), rng.normal(size=3)
    spec = specs.load("openvino::STFT-15")
    got = np.asarray(oracle.module_for(spec).run(spec, [signal, window, np.array(6), np.array(2)],
                                                 {"transpose_frames": transpose}, {})[0])
    padded = np.array([0.0, *window, 0.0, 0.0])
    want = np.zeros((2, 5, 4), complex)
    for b in range(2):
        for f in range(5):
            frame = signal[b, 2 * f:2 * f + 6] * padded
            for k in range(4):
                want[b, f, k] = sum(frame[n] * np.exp(-2j * np.pi * k * n / 6) for n in range(6))
    if transpose:
        want = np.swapaxes(want, -1, -2)
    np.testing.assert_allclose(got[..., 0] + 1j * got[..., 1], want, atol=1e-12)
