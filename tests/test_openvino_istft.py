"""OpenVINO ISTFT-16 undoes STFT-15 (its own oracle, oracle/openvino/stft.py) under both overlap-add
readings: the signal comes back, centred frames (the signal padded by frame_size // 2 before STFT)
drop the padding, normalized input is scaled back by sqrt(frame_size), signal_length cuts or pads
with zeros; the two readings part on a spectrum no signal has (worked by hand). A few drawn cases
run on openvino-native."""
from __future__ import annotations

import numpy as np
import pytest

from opconform import oracle, specs
from opconform.model import Verdict


def _stft(signal: np.ndarray, window: np.ndarray, size: int, step: int) -> np.ndarray:
    (out,) = oracle.evaluate(specs.load("openvino::STFT-15"), [signal, window, np.array(size), np.array(step)],
                             {"transpose_frames": True})
    return out


def _istft(data, window, size, step, length=None, policies=None, **attributes) -> np.ndarray:
    spec = specs.load("openvino::ISTFT-16")
    inputs = [data, window, np.array(size), np.array(step)] + ([np.array(length)] if length is not None else [])
    (out,) = oracle.evaluate(spec, inputs, spec.resolved_attributes({"center": False, "normalized": False, **attributes}),
                             policies=policies)
    return out


@pytest.mark.parametrize("overlap_add", ["window_sum", "window_squared_sum"])
@pytest.mark.parametrize("size,step,window_length", [(4, 1, 4), (5, 2, 3), (8, 3, 8), (6, 6, 6)])
def test_istft_undoes_stft(size, step, window_length, overlap_add):
    rng = np.random.default_rng(size * 10 + step)
    window = rng.uniform(0.25, 1, window_length)
    frames = 5
    signal = rng.standard_normal((2, (frames - 1) * step + size))
    spectrum = _stft(signal, window, size, step)  # [2, bins, frames, 2]
    restored = _istft(spectrum, window, size, step, policies={"overlap_add": overlap_add})
    covered = np.zeros(signal.shape[-1], bool)  # a sample no window value reaches is 0, not restored
    left = (size - window_length) // 2
    for f in range(frames):
        covered[f * step + left: f * step + left + window_length] = True
    np.testing.assert_allclose(restored[:, covered], signal[:, covered], atol=1e-9)
    assert np.all(restored[:, ~covered] == 0)


def test_centred_and_normalized():
    rng = np.random.default_rng(3)
    size, step, window = 4, 2, np.ones(4)
    signal = rng.standard_normal(10)
    padded = np.pad(signal, size // 2)  # what a centring STFT does before its frames (zeros here)
    spectrum = _stft(padded, window, size, step) / np.sqrt(size)
    restored = _istft(spectrum, window, size, step, center=True, normalized=True)
    frames = spectrum.shape[1]
    assert restored.shape == ((frames - 1) * step,)
    np.testing.assert_allclose(restored, signal[: (frames - 1) * step], atol=1e-9)


def test_signal_length_cuts_and_pads_with_zeros():
    data = np.array([[[2.5, 0], [4, 0]], [[-1.5, 0], [-2, 0]]])  # [1, 2, 3] windowed by [0.5, 1] (by hand)
    window = np.array([0.5, 1.0])
    assert _istft(data, window, 2, 1).tolist() == pytest.approx([1, 2, 3])
    assert _istft(data, window, 2, 1, length=5).tolist() == pytest.approx([1, 2, 3, 0, 0])
    assert _istft(data, window, 2, 1, length=2).tolist() == pytest.approx([1, 2])


def test_the_readings_part_on_a_spectrum_no_signal_has():
    """Frames [1, 1] and [0, 0] (real spectra [[2, 0], [0, 0]]) with window [1, 0.5], step 1: added as
    they are [1, 1, 0] over window sums [1, 1.5, 0.5] is [1, 2/3, 0]; times the window [1, 0.5, 0]
    over squared sums [1, 1.25, 0.25] is [1, 0.4, 0] (worked by hand)."""
    data = np.array([[[2, 0], [0, 0]], [[0, 0], [0, 0]]], dtype=np.float64)
    window = np.array([1.0, 0.5])
    assert _istft(data, window, 2, 1, policies={"overlap_add": "window_sum"}).tolist() == pytest.approx([1, 2 / 3, 0])
    assert _istft(data, window, 2, 1, policies={"overlap_add": "window_squared_sum"}).tolist() == pytest.approx([1, 0.4, 0])


@pytest.mark.backend
def test_generated_cases_run_on_openvino():
    pytest.importorskip("openvino")
    from opconform.backends import get
    from opconform.generator import sampling
    from opconform.suites import verdicts

    spec = specs.load("openvino::ISTFT-16")
    backend = get("openvino-native")
    cases = [c for c in sampling.generate(spec, 8, 11, kind="valid", expect=oracle.expectation)
             if c.inputs[0].dtype != np.float64]  # OpenVINO computes float64 in float32 (a known failure)
    got = [verdicts.judge(spec, case, backend.execute(spec, case))[0] for case in cases]
    assert got and all(v is Verdict.PASS for v in got), got
