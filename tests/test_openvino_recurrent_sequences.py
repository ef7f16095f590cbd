"""OpenVINO RNNSequence-5, GRUSequence-5 and LSTMSequence-5: a sequence is its cell applied step after
step (forward), a reverse pass is the forward one over each row's own steps reversed, and the
steps past a row's length leave its state alone."""
from __future__ import annotations

import numpy as np
import pytest

from opconform import oracle, specs

GATES = {"RNN": 1, "GRU": 3, "LSTM": 4}


def _weights(rng, kind, dirs, inputs, hidden):
    g = GATES[kind]
    return (rng.standard_normal((dirs, g * hidden, inputs)), rng.standard_normal((dirs, g * hidden, hidden)),
            rng.standard_normal((dirs, g * hidden)))


def _draw(kind, seed, batch, seq, inputs, hidden, dirs):
    """X, H, C, W, R, B of normal draws."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((batch, seq, inputs))
    H, C = rng.standard_normal((batch, dirs, hidden)), rng.standard_normal((batch, dirs, hidden))
    return (X, H, C) + _weights(rng, kind, dirs, inputs, hidden)


def _sequence(kind, X, H, C, lengths, W, R, B, direction):
    spec = specs.load(f"openvino::{kind}Sequence-5")
    states = [H, C] if kind == "LSTM" else [H]
    return oracle.evaluate(spec, [X, *states, lengths, W, R, B], {"hidden_size": R.shape[2], "direction": direction})


@pytest.mark.parametrize("kind", ["RNN", "GRU", "LSTM"])
def test_forward_sequence_is_the_cell_step_after_step(kind):
    batch, seq, hidden = 2, 3, 3
    X, H, C, W, R, B = _draw(kind, 1, batch, seq, 4, hidden, 1)
    out = _sequence(kind, X, H, C, np.full(batch, seq), W, R, B, "forward")
    cell = specs.load(f"openvino::{kind}Cell-{1 if kind == 'LSTM' else 3}")
    h, c = H[:, 0], C[:, 0]
    for t in range(seq):
        args = [X[:, t], h, c, W[0], R[0], B[0]] if kind == "LSTM" else [X[:, t], h, W[0], R[0], B[0]]
        res = oracle.evaluate(cell, args, {"hidden_size": hidden})
        h = res[0]
        c = res[1] if kind == "LSTM" else c
        assert np.allclose(out[0][:, 0, t], h, rtol=1e-12)
    assert np.allclose(out[1][:, 0], h, rtol=1e-12)


@pytest.mark.parametrize("kind", ["RNN", "GRU", "LSTM"])
def test_reverse_pass_reads_each_row_backwards_from_its_length(kind):
    X, H, C, W, R, B = _draw(kind, 2, 3, 4, 2, 2, 2)
    lengths = np.array([4, 2, 0])
    both = _sequence(kind, X, H, C, lengths, W, R, B, "bidirectional")
    for b, n in enumerate(lengths):
        flipped = X[b:b + 1, :n][:, ::-1]
        one = lambda a: a[b:b + 1, 1:2]  # noqa: E731  the reverse direction's state of row b
        fwd = _sequence(kind, flipped, one(H), one(C), np.array([n]), W[1:], R[1:], B[1:], "forward")
        assert np.allclose(both[0][b, 1, :n], fwd[0][0, 0, ::-1], rtol=1e-12)  # Y back in input order
        assert np.allclose(both[1][b, 1], fwd[1][0, 0] if n else H[b, 1], rtol=1e-12)
