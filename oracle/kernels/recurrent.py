"""The recurrent layers of ONNX: RNN, GRU and LSTM, one direction at a time.

Every gate is computed in float64 for all batch rows and hidden units at once; only the time steps
are a loop (each step reads the state the previous one wrote). The outputs are rounded once to
the input's element type.

Layout: X is [seq_length, batch_size, input_size] (layout 0) or [batch_size, seq_length,
input_size] (layout 1); the kernel works in layout 0 and transposes at the edges. Y is
[seq_length, num_directions, batch_size, hidden_size] (layout 1: [batch, seq, dirs, hidden]); the
states Y_h, Y_c and initial_h, initial_c are [num_directions, batch, hidden] (layout 1: [batch,
dirs, hidden]).

Open choices the operator modules pass in as policies:
- `activation_parameters`: how activation_alpha / activation_beta are read. `takers_in_order`: the
  values are consumed in the order of the activation functions by the functions that take one
  (onnxruntime's rnn_helpers.cc); `one_per_activation`: entry k belongs to activation k (the
  reading onnx.reference's RNN takes). A function whose value the list does not reach takes the
  default of the ONNX operator of its name.
- `past_sequence_end`: Y at time steps past a batch row's sequence_lens entry. `zero` (onnxruntime)
  or `carried_state`: the state carried over the padding, as a masked recurrence keeps it (the
  last state of a forward pass, the initial state of a reverse one).
- `empty_sequence_state`: Y_h (Y_c) of a batch row of length 0: `initial_state` or `zero` (onnxruntime).
- `absent_hidden_size`: a node without hidden_size: `from_weights` (R's last dimension) or `refuse`.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Mapping, Sequence

import numpy as np

from opconform.model import RelationBroken
from opconform.oracle.kernels.elementwise import wide

Activation = Callable[[np.ndarray, float, float], np.ndarray]


@dataclass(frozen=True)
class ActivationFunction:
    """One entry of the activations table: the function of (x, alpha, beta), whether it takes
    alpha and beta, and their defaults (None: no ONNX operator of the name gives one)."""

    fn: Activation
    takes_alpha: bool = False
    takes_beta: bool = False
    alpha: float | None = None
    beta: float | None = None


def _softplus(x: np.ndarray, a: float, b: float) -> np.ndarray:
    return np.logaddexp(0.0, x)  # log(1 + e^x) without overflowing for large x


# The functions of the RNN, GRU and LSTM texts ("Activation functions"), with the defaults of the
# ONNX operators of the same name (LeakyRelu, ThresholdedRelu, HardSigmoid, Elu). Affine and
# ScaledTanh name no operator ONNX still defines: no default.
ACTIVATIONS: dict[str, ActivationFunction] = {
    "Relu": ActivationFunction(lambda x, a, b: np.maximum(x, 0.0)),
    "Tanh": ActivationFunction(lambda x, a, b: np.tanh(x)),
    "Sigmoid": ActivationFunction(lambda x, a, b: 0.5 * (1.0 + np.tanh(0.5 * x))),  # 1/(1+e^-x), no overflow
    "Affine": ActivationFunction(lambda x, a, b: a * x + b, True, True),
    "LeakyRelu": ActivationFunction(lambda x, a, b: np.where(x >= 0, x, a * x), True, alpha=0.01),
    "ThresholdedRelu": ActivationFunction(lambda x, a, b: np.where(x >= a, x, 0.0), True, alpha=1.0),
    "ScaledTanh": ActivationFunction(lambda x, a, b: a * np.tanh(b * x), True, True),
    "HardSigmoid": ActivationFunction(lambda x, a, b: np.clip(a * x + b, 0.0, 1.0), True, True, 0.2, 0.5),
    "Elu": ActivationFunction(lambda x, a, b: np.where(x >= 0, x, a * np.expm1(np.minimum(x, 0.0))), True, alpha=1.0),
    "Softsign": ActivationFunction(lambda x, a, b: x / (1.0 + np.abs(x))),
    "Softplus": ActivationFunction(_softplus),
}

# gates per cell, in the order of W's and R's second dimension
GATES = {"RNN": 1, "GRU": 3, "LSTM": 4}
# the default activation functions of one direction
DEFAULT_ACTIVATIONS = {"RNN": ("Tanh",), "GRU": ("Sigmoid", "Tanh"), "LSTM": ("Sigmoid", "Tanh", "Tanh")}


@dataclass(frozen=True)
class Bound:
    """An activation function with its alpha and beta resolved."""

    name: str
    alpha: float
    beta: float

    def __call__(self, x: np.ndarray) -> np.ndarray:
        return ACTIVATIONS[self.name].fn(x, self.alpha, self.beta)


def bind_activations(spec_id: str, names: Sequence[str], alphas: Sequence[float] | None,
                     betas: Sequence[float] | None, policy: str) -> list[Bound]:
    """The activation functions with the alpha and beta each one uses, read under the policy
    activation_parameters. A function that takes a value no entry and no default gives breaks the
    oracle-side relation activation_parameter_missing (undefined)."""
    alphas, betas = list(alphas or ()), list(betas or ())
    out: list[Bound] = []
    next_alpha = next_beta = 0
    for k, name in enumerate(names):
        f = ACTIVATIONS[name]
        if policy == "takers_in_order":
            a = alphas[next_alpha] if f.takes_alpha and next_alpha < len(alphas) else None
            b = betas[next_beta] if f.takes_beta and next_beta < len(betas) else None
            next_alpha += bool(f.takes_alpha and a is not None)
            next_beta += bool(f.takes_beta and b is not None)
        else:
            a = alphas[k] if f.takes_alpha and k < len(alphas) else None
            b = betas[k] if f.takes_beta and k < len(betas) else None
        a = f.alpha if a is None else a
        b = f.beta if b is None else b
        if (f.takes_alpha and a is None) or (f.takes_beta and b is None):
            raise RelationBroken(spec_id, "activation_parameter_missing", "undefined",
                                 f"{name} takes alpha and beta; activation_alpha/activation_beta give it none "
                                 f"and no ONNX operator of that name gives a default")
        out.append(Bound(name, 0.0 if a is None else float(a), 0.0 if b is None else float(b)))
    return out


@dataclass
class Direction:
    """The weights of one direction, as float64: W [gates*H, I], R [gates*H, H], Wb and Rb [gates*H],
    P [3*H] (LSTM), and the activation functions (f, g, h as the operator names them)."""

    W: np.ndarray
    R: np.ndarray
    Wb: np.ndarray
    Rb: np.ndarray
    P: np.ndarray | None
    activations: list[Bound]


def _clip(x: np.ndarray, clip: float | None) -> np.ndarray:
    return x if clip is None else np.clip(x, -clip, clip)


def rnn_cell(d: Direction, x: np.ndarray, h: np.ndarray, c: np.ndarray | None, clip: float | None,
             options: Mapping) -> tuple[np.ndarray, np.ndarray | None]:
    """Ht = f(Xt*(Wi^T) + Ht-1*(Ri^T) + Wbi + Rbi)."""
    f = d.activations[0]
    return f(_clip(x @ d.W.T + h @ d.R.T + d.Wb + d.Rb, clip)), None


def gru_cell(d: Direction, x: np.ndarray, h: np.ndarray, c: np.ndarray | None, clip: float | None,
             options: Mapping) -> tuple[np.ndarray, np.ndarray | None]:
    """z and r gates, then ht with the reset gate applied before (default) or after the recurrent
    product (linear_before_reset); Ht = (1 - zt) (.) ht + zt (.) Ht-1. Gate order z, r, h."""
    f, g = d.activations[0], d.activations[1]
    H = h.shape[-1]
    xw = x @ d.W.T
    w_z, w_r, w_h = xw[:, :H], xw[:, H:2 * H], xw[:, 2 * H:]
    R_z, R_r, R_h = d.R[:H], d.R[H:2 * H], d.R[2 * H:]
    Wb, Rb = d.Wb, d.Rb
    z = f(_clip(w_z + h @ R_z.T + Wb[:H] + Rb[:H], clip))
    r = f(_clip(w_r + h @ R_r.T + Wb[H:2 * H] + Rb[H:2 * H], clip))
    if options.get("linear_before_reset"):
        pre = w_h + r * (h @ R_h.T + Rb[2 * H:]) + Wb[2 * H:]
    else:
        pre = w_h + (r * h) @ R_h.T + Rb[2 * H:] + Wb[2 * H:]
    ht = g(_clip(pre, clip))
    return (1.0 - z) * ht + z * h, None


def lstm_cell(d: Direction, x: np.ndarray, h: np.ndarray, c: np.ndarray | None, clip: float | None,
              options: Mapping) -> tuple[np.ndarray, np.ndarray | None]:
    """Gates in the order i, o, f, c; peepholes P in the order i, o, f. With input_forget the
    forget gate is 1 - it (the input and forget gates coupled)."""
    f, g, hf = d.activations[0], d.activations[1], d.activations[2]
    H = h.shape[-1]
    pre = x @ d.W.T + h @ d.R.T + d.Wb + d.Rb
    p_i, p_o, p_f = (d.P[:H], d.P[H:2 * H], d.P[2 * H:]) if d.P is not None else (0.0, 0.0, 0.0)
    i = f(_clip(pre[:, :H] + p_i * c, clip))
    forget = 1.0 - i if options.get("input_forget") else f(_clip(pre[:, 2 * H:3 * H] + p_f * c, clip))
    cell = g(_clip(pre[:, 3 * H:], clip))
    c_new = forget * c + i * cell
    o = f(_clip(pre[:, H:2 * H] + p_o * c_new, clip))
    return o * hf(_clip(c_new, clip)), c_new


CELLS = {"RNN": rnn_cell, "GRU": gru_cell, "LSTM": lstm_cell}


def run_direction(kind: str, d: Direction, X: np.ndarray, h0: np.ndarray, c0: np.ndarray | None,
                  lengths: np.ndarray, reverse: bool, clip: float | None, options: Mapping,
                  past_end: str) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """One direction over X [seq, batch, input] (float64): Y [seq, batch, H], the last state and
    the last cell state. A batch row takes lengths[b] steps (a reverse pass reads them from step
    lengths[b] - 1 down to 0); at the other steps its state is carried over unchanged."""
    seq = X.shape[0]
    cell = CELLS[kind]
    h, c = h0, c0
    Y = np.zeros((seq,) + h0.shape, dtype=np.float64)
    for t in (range(seq - 1, -1, -1) if reverse else range(seq)):
        h_new, c_new = cell(d, X[t], h, c, clip, options)
        live = (t < lengths)[:, None]
        h = np.where(live, h_new, h)
        if c is not None:
            c = np.where(live, c_new, c)
        Y[t] = np.where(live, h, 0.0 if past_end == "zero" else h)
    return Y, h, c


def run(kind: str, spec_id: str, inputs: Sequence, attributes: Mapping, policies: Mapping) -> dict[str, np.ndarray]:
    """Y, Y_h and (LSTM) Y_c of an RNN, GRU or LSTM node, by name, in the input's element type."""
    X = np.asarray(inputs[0])
    dtype = X.dtype
    get = lambda k: inputs[k] if len(inputs) > k and inputs[k] is not None else None  # noqa: E731
    W, R = wide(inputs[1]), wide(inputs[2])
    B, lens, h0 = get(3), get(4), get(5)
    c0, P = (get(6), get(7)) if kind == "LSTM" else (None, None)
    layout = int(attributes.get("layout") or 0)
    x = wide(X)
    if layout:
        x = x.transpose(1, 0, 2)
    seq, batch = x.shape[0], x.shape[1]
    dirs = W.shape[0]
    H = R.shape[2]
    gates = GATES[kind]
    B = np.zeros((dirs, 2 * gates * H)) if B is None else wide(B)
    P = None if P is None else wide(P)

    def state(s):
        if s is None:
            return np.zeros((dirs, batch, H))
        s = wide(s)
        return s.transpose(1, 0, 2) if layout else s

    h0s, c0s = state(h0), (state(c0) if kind == "LSTM" else None)
    lengths = np.full(batch, seq, dtype=np.int64) if lens is None else np.asarray(lens).astype(np.int64)
    direction = attributes.get("direction") or "forward"
    per_dir = len(DEFAULT_ACTIVATIONS[kind])
    names = list(attributes.get("activations") or DEFAULT_ACTIVATIONS[kind] * dirs)
    if kind == "RNN" and len(names) > dirs:  # RNN's default [Tanh, Tanh] under one direction: the first applies
        names = names[:dirs]
    bound = bind_activations(spec_id, names, attributes.get("activation_alpha"), attributes.get("activation_beta"),
                             policies.get("activation_parameters", "takers_in_order"))
    clip = attributes.get("clip")
    options = {"linear_before_reset": attributes.get("linear_before_reset"), "input_forget": attributes.get("input_forget")}
    past_end = policies.get("past_sequence_end", "zero")
    empty = (lengths == 0)[:, None] & (policies.get("empty_sequence_state") == "zero")
    Ys, hs, cs = [], [], []
    for k in range(dirs):
        d = Direction(W[k], R[k], B[k, :gates * H], B[k, gates * H:], None if P is None else P[k],
                      bound[k * per_dir:(k + 1) * per_dir])
        reverse = direction == "reverse" or k == 1
        with np.errstate(all="ignore"):
            Y, h, c = run_direction(kind, d, x, h0s[k], None if c0s is None else c0s[k], lengths, reverse, clip,
                                    options, past_end)
        Ys.append(Y)
        hs.append(np.where(empty, 0.0, h))
        cs.append(None if c is None else np.where(empty, 0.0, c))
    Y = np.stack(Ys, axis=1) if Ys else np.zeros((seq, 0, batch, H))  # [seq, dirs, batch, H]
    Y_h = np.stack(hs, axis=0)
    out = {"Y": Y.transpose(2, 0, 1, 3) if layout else Y, "Y_h": Y_h.transpose(1, 0, 2) if layout else Y_h}
    if kind == "LSTM":
        Y_c = np.stack(cs, axis=0)
        out["Y_c"] = Y_c.transpose(1, 0, 2) if layout else Y_c
    with np.errstate(all="ignore"):
        return {k: np.asarray(v).astype(dtype) for k, v in out.items()}


def operator_run(kind: str) -> Callable:
    """The `run` of an oracle module for RNN, GRU or LSTM: the outputs in the spec's port order."""

    def run_operator(spec, inputs, attributes, policies):
        if attributes.get("hidden_size") is None and policies.get("absent_hidden_size") == "refuse":
            raise RelationBroken(spec.id, "hidden_size_given", "error", "the node has no hidden_size attribute")
        result = run(kind, spec.id, inputs, attributes, policies)
        return tuple(result[p.name] for p in spec.outputs)

    return run_operator


def policies_in_play(spec, inputs: Sequence, attributes: Mapping) -> set[str]:
    """The policies that can change the outputs of these inputs: the others keep their default."""
    out = set()
    if attributes.get("hidden_size") is None:
        out.add("absent_hidden_size")
    if attributes.get("activation_alpha") or attributes.get("activation_beta"):
        out.add("activation_parameters")
    lens = inputs[4] if len(inputs) > 4 else None
    if lens is not None and np.size(lens):
        X = np.asarray(inputs[0])
        seq = X.shape[1] if attributes.get("layout") else X.shape[0]
        if np.any(np.asarray(lens) < seq):
            out.add("past_sequence_end")
        if np.any(np.asarray(lens) == 0):
            out.add("empty_sequence_state")
    return out
