"""OpenVINO RNNCell-3, GRUCell-3 and LSTMCell-1: the oracle computes the documents' formulas, written
out here in NumPy with the documents' gate orders (zrh for GRU, fico for LSTM's W, R and B), on
drawn weights; clip bounds the activations' inputs."""
from __future__ import annotations

import numpy as np
import pytest

from opconform import oracle, specs


def _sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def _draw(rng, gates, batch=3, inputs=4, hidden=5, bias=None):
    X = rng.standard_normal((batch, inputs))
    H = rng.standard_normal((batch, hidden))
    W = rng.standard_normal((gates * hidden, inputs))
    R = rng.standard_normal((gates * hidden, hidden))
    B = rng.standard_normal(((bias or gates) * hidden,))
    return X, H, W, R, B


@pytest.mark.parametrize("seed", range(3))
def test_rnn_cell_formula(seed):
    X, H, W, R, B = _draw(np.random.default_rng(seed), 1)
    (got,) = oracle.evaluate(specs.load("openvino::RNNCell-3"), [X, H, W, R, B], {"hidden_size": 5})
    assert np.allclose(got, np.tanh(X @ W.T + H @ R.T + B), rtol=1e-12)
    (clipped,) = oracle.evaluate(specs.load("openvino::RNNCell-3"), [X, H, W, R, B],
                                 {"hidden_size": 5, "activations": ["relu"], "clip": 0.5})
    assert np.allclose(clipped, np.maximum(np.clip(X @ W.T + H @ R.T + B, -0.5, 0.5), 0.0), rtol=1e-12)


@pytest.mark.parametrize("linear_before_reset", [False, True])
def test_gru_cell_formula(linear_before_reset):
    X, H, W, R, B = _draw(np.random.default_rng(7), 3, bias=4 if linear_before_reset else 3)
    h = 5
    (got,) = oracle.evaluate(specs.load("openvino::GRUCell-3"), [X, H, W, R, B],
                             {"hidden_size": h, "linear_before_reset": linear_before_reset})
    Wz, Wr, Wh = W[:h], W[h:2 * h], W[2 * h:]
    Rz, Rr, Rh = R[:h], R[h:2 * h], R[2 * h:]
    z = _sigmoid(X @ Wz.T + H @ Rz.T + B[:h])
    r = _sigmoid(X @ Wr.T + H @ Rr.T + B[h:2 * h])
    if linear_before_reset:  # B: the z and r sums, then Wbh and Rbh apart
        ht = np.tanh(X @ Wh.T + r * (H @ Rh.T + B[3 * h:]) + B[2 * h:3 * h])
    else:
        ht = np.tanh(X @ Wh.T + (r * H) @ Rh.T + B[2 * h:])
    assert np.allclose(got, (1 - z) * ht + z * H, rtol=1e-12)


def test_lstm_cell_formula_in_gate_order_fico():
    rng = np.random.default_rng(3)
    X, H, W, R, B = _draw(rng, 4)
    C = rng.standard_normal(H.shape)
    h = 5
    Ho, Co = oracle.evaluate(specs.load("openvino::LSTMCell-1"), [X, H, C, W, R, B], {"hidden_size": h})
    pre = X @ W.T + H @ R.T + B
    f, i, c, o = (pre[:, k * h:(k + 1) * h] for k in range(4))
    Ct = _sigmoid(f) * C + _sigmoid(i) * np.tanh(c)
    assert np.allclose(Co, Ct, rtol=1e-12) and np.allclose(Ho, _sigmoid(o) * np.tanh(Ct), rtol=1e-12)
    # B absent: assumed to be 0
    Ho0, _ = oracle.evaluate(specs.load("openvino::LSTMCell-1"), [X, H, C, W, R, None], {"hidden_size": h})
    Ho_zero, _ = oracle.evaluate(specs.load("openvino::LSTMCell-1"), [X, H, C, W, R, np.zeros_like(B)], {"hidden_size": h})
    assert np.array_equal(Ho0, Ho_zero)
