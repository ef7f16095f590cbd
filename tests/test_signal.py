"""DFT, STFT and MelWeightMatrix (issue 15 item 3, signal part): every version has a spec, the
relations alone draw valid and must-refuse cases, and the oracles (oracle/kernels/signal.py) follow
the texts' formulas: the DFT sum itself, the frames of the STFT, and triangles of peak 1 whose edges
lie on the mel scale."""
from __future__ import annotations

import numpy as np
import onnx
import pytest

from helpers_generator import assert_drawn_without_a_hook, assert_must_refuse_drafts
from opconform import oracle, specs
from opconform.oracle.kernels import signal

OPERATORS = ("DFT", "STFT", "MelWeightMatrix")


def test_every_version_the_installed_onnx_defines_has_a_spec():
    for op in OPERATORS:
        defined = {s.since_version for s in onnx.defs.get_all_schemas_with_history() if s.name == op and s.domain == ""}
        have = {v.since for v in specs.select(f"onnx::{op}-*")}
        assert defined <= have, (op, sorted(defined - have))


def _sum_dft(z: np.ndarray, n: int, sign: float) -> np.ndarray:
    """The text's sum, written out: y[k] = sum_n e^{sign 2 pi j k n / N} x[n] over the last axis."""
    k = np.arange(n)
    z = np.concatenate([z, np.zeros(z.shape[:-1] + (max(n - z.shape[-1], 0),))], axis=-1)[..., :n]
    return z @ np.exp(sign * 2j * np.pi * np.outer(k, k) / n).T


@pytest.mark.parametrize("length", [None, 3, 7])
def test_dft_is_the_text_sum_forward_inverse_and_one_sided(length):
    rng = np.random.default_rng(1)
    x = rng.uniform(-1, 1, (2, 5, 2))  # a complex signal of 5 samples, twice
    inputs = [x, None if length is None else np.array(length, np.int64)]
    n = length or 5
    z = x[..., 0] + 1j * x[..., 1]
    for inverse, want in ((0, _sum_dft(z, n, -1)), (1, _sum_dft(z, n, +1) / n)):
        (got,) = oracle.evaluate("onnx::DFT-17", inputs, {"axis": 1, "inverse": inverse})
        np.testing.assert_allclose(got[..., 0] + 1j * got[..., 1], want, atol=1e-12)
    real = x[..., :1]
    (rfft,) = oracle.evaluate("onnx::DFT-20", [real, inputs[1], np.array(-2)], {"onesided": 1})
    full = _sum_dft(real[..., 0], n, -1)
    np.testing.assert_allclose(rfft[..., 0] + 1j * rfft[..., 1], full[..., :n // 2 + 1], atol=1e-12)
    # IRFFT of a one-sided spectrum gives back the real signal
    (back,) = oracle.evaluate("onnx::DFT-20", [rfft, np.array(n, np.int64), np.array(1)], {"onesided": 1, "inverse": 1})
    np.testing.assert_allclose(back[..., 0], np.concatenate([real[..., 0], np.zeros((2, max(n - 5, 0)))], -1)[:, :n],
                               atol=1e-12)


def test_dft_precision_policy_differs_only_in_the_last_places():
    x = np.arange(20, dtype=np.float32).reshape(1, 10, 2)
    spec = specs.load("onnx::DFT-17")
    exp = oracle.expectation(spec, [x, None], {"axis": 1, "inverse": 1})
    assert {a.policies["intermediate_precision"] for a in exp.alternatives} == {"input_type", "wide"}
    single, wide = (a.outputs[0].astype(np.float64) for a in exp.alternatives)
    assert np.max(np.abs(single - wide)) < 1e-5 * np.max(np.abs(wide))


def test_stft_frames_are_windowed_dfts_of_the_signal():
    rng = np.random.default_rng(2)
    x = rng.uniform(-1, 1, (2, 11, 1)).astype(np.float32)
    window = rng.uniform(0, 1, 4).astype(np.float32)
    (got,) = oracle.evaluate("onnx::STFT-17", [x, np.array(3, np.int64), window, None], {"onesided": 0},
                             {"intermediate_precision": "wide"})
    frames = (11 - 4) // 3 + 1
    assert got.shape == (2, frames, 4, 2)
    for f in range(frames):
        want = _sum_dft(x[:, 3 * f:3 * f + 4, 0].astype(np.float64) * window, 4, -1)
        np.testing.assert_allclose(got[:, f, :, 0] + 1j * got[:, f, :, 1], want, rtol=1e-5, atol=1e-6)
    (half,) = oracle.evaluate("onnx::STFT-17", [x, np.array(3, np.int64), None, np.array(4, np.int64)], {})
    assert half.shape == (2, frames, 3, 2)  # onesided by default, frame_length // 2 + 1 bins


def test_mel_triangles_peak_at_one_on_mel_spaced_edges():
    m = signal.mel_weight_matrix("t", 5, 64, 16000, 0.0, 8000.0, np.float64)
    assert m.shape == (33, 5)
    assert np.all(m.max(axis=0) == 1.0) and np.all(m >= 0)
    peaks = np.argmax(m, axis=0)
    assert np.all(np.diff(peaks) > 0)  # one triangle after another, rising in frequency
    # each column rises linearly to its peak and falls linearly after it
    for i in range(5):
        col = m[:, i]
        up, down = col[:peaks[i] + 1], col[peaks[i]:]
        assert np.all(np.diff(up[up > 0]) > 0) and np.all(np.diff(down[down > 0]) < 0)


def test_mel_edges_on_a_whole_bin_are_undefined():
    exp = oracle.expectation(specs.load("onnx::MelWeightMatrix-17"),
                             [np.array(2), np.array(15), np.array(16), np.float32(2.0), np.float32(4.0)], {})
    assert exp.kind == "undefined" and exp.relation == "edge_on_bin_boundary"


@pytest.mark.slow
@pytest.mark.parametrize("sid", ["onnx::DFT-17", "onnx::DFT-20", "onnx::MelWeightMatrix-17"])
def test_valid_draws_are_rarely_rejected_without_a_hook(sid):
    assert_drawn_without_a_hook(sid, t=0)
    assert_drawn_without_a_hook(sid, t=2, cap=0.2)


@pytest.mark.parametrize("sid,relation", [
    ("onnx::DFT-20", "axis_in_range"), ("onnx::DFT-17", "rfft_real_input"), ("onnx::DFT-20", "complex_dimension"),
    ("onnx::STFT-17", "window_length_is_frame_length"), ("onnx::STFT-17", "frame_step_positive"),
    ("onnx::MelWeightMatrix-17", "dft_length_positive"),
])
def test_must_refuse_cases_break_their_relation(sid, relation):
    assert_must_refuse_drafts(specs.load(sid), relation, tries=12, at_least=3)
