"""RNN, GRU and LSTM (issue 15 item 5): every version has a spec, the relations alone draw valid
cases and a must-refuse case for the relations the generator cannot reach by chance, and the
oracle (oracle/kernels/recurrent.py) follows the texts: it agrees with onnx.reference where that
implements the feature (default activations, every direction, layout, initial states, biases,
peepholes, linear_before_reset), and the open choices are policies that differ only where the
text is silent."""
from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import helper
from onnx.reference import ReferenceEvaluator

from helpers_generator import assert_drawn_without_a_hook, assert_must_refuse_drafts
from opconform import oracle, specs
from opconform.model import RelationBroken
from opconform.oracle.kernels import recurrent

GATES = {"RNN": 1, "GRU": 3, "LSTM": 4}
LATEST = {"RNN": "onnx::RNN-22", "GRU": "onnx::GRU-22", "LSTM": "onnx::LSTM-22"}


def test_every_version_the_installed_onnx_defines_has_a_spec():
    for op in GATES:
        defined = {s.since_version for s in onnx.defs.get_all_schemas_with_history() if s.name == op and s.domain == ""}
        have = {v.since for v in specs.select(f"onnx::{op}-*")}
        assert defined <= have, (op, sorted(defined - have))


def _inputs(op: str, rng, *, seq=3, batch=2, size=3, hidden=2, dirs=1, layout=0, full=True):
    k = GATES[op]
    x = rng.uniform(-1, 1, (batch, seq, size) if layout else (seq, batch, size)).astype(np.float32)
    w = rng.uniform(-1, 1, (dirs, k * hidden, size)).astype(np.float32)
    r = rng.uniform(-1, 1, (dirs, k * hidden, hidden)).astype(np.float32)
    if not full:
        return [x, w, r]
    b = rng.uniform(-1, 1, (dirs, 2 * k * hidden)).astype(np.float32)
    state = (batch, dirs, hidden) if layout else (dirs, batch, hidden)
    h0 = rng.uniform(-1, 1, state).astype(np.float32)
    out = [x, w, r, b, None, h0]
    if op == "LSTM":
        out += [rng.uniform(-1, 1, state).astype(np.float32), rng.uniform(-1, 1, (dirs, 3 * hidden)).astype(np.float32)]
    return out


def _reference(op: str, inputs, attributes, opset=22):
    names = ["X", "W", "R", "B", "sequence_lens", "initial_h", "initial_c", "P"][:len(inputs)]
    outs = ["Y", "Y_h", "Y_c"][:3 if op == "LSTM" else 2]
    node = helper.make_node(op, [n if x is not None else "" for n, x in zip(names, inputs)], outs, **attributes)
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info(n, onnx.TensorProto.FLOAT, None)
                                            for n, x in zip(names, inputs) if x is not None],
                              [helper.make_tensor_value_info(o, onnx.TensorProto.FLOAT, None) for o in outs])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    return ReferenceEvaluator(model).run(None, {n: x for n, x in zip(names, inputs) if x is not None})


@pytest.mark.parametrize("op", sorted(GATES))
@pytest.mark.parametrize("direction", ["forward", "reverse", "bidirectional"])
@pytest.mark.parametrize("layout", [0, 1])
def test_agrees_with_onnx_reference_where_it_implements_the_feature(op, direction, layout):
    rng = np.random.default_rng(len(op) * 7 + layout)
    dirs = 2 if direction == "bidirectional" else 1
    for full in (False, True):
        inputs = _inputs(op, rng, dirs=dirs, layout=layout, full=full)
        attributes = {"hidden_size": 2, "direction": direction, "layout": layout}
        if op == "GRU":
            attributes["linear_before_reset"] = int(full)
        got = oracle.evaluate(LATEST[op], inputs, attributes)
        want = _reference(op, inputs, attributes)
        for g, w in zip(got, want):
            np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)


def test_sequence_lens_policies_differ_only_where_the_text_is_silent():
    rng = np.random.default_rng(3)
    inputs = _inputs("LSTM", rng, seq=4, batch=3)
    inputs[4] = np.array([4, 2, 0], dtype=np.int32)
    attributes = {"hidden_size": 2}
    y0, h0, c0 = oracle.evaluate(LATEST["LSTM"], inputs, attributes, {"past_sequence_end": "zero"})
    y1, h1, c1 = oracle.evaluate(LATEST["LSTM"], inputs, attributes,
                                 {"past_sequence_end": "carried_state", "empty_sequence_state": "zero"})
    # a full row is the same under every reading; past the end Y is 0 or the carried last state
    np.testing.assert_array_equal(y0[:, :, 0], y1[:, :, 0])
    assert not y0[2:, :, 1].any() and not y0[:, :, 2].any()
    np.testing.assert_array_equal(y1[2:, 0, 1], np.broadcast_to(y1[1, 0, 1], (2, 2)))
    np.testing.assert_array_equal(h0[:, 1], y0[1, :, 1])  # Y_h is the state at the row's last step
    # a row of length 0: its initial state, or 0
    np.testing.assert_array_equal(h0[:, 2], inputs[5][:, 2])
    np.testing.assert_array_equal(c0[:, 2], inputs[6][:, 2])
    assert not h1[:, 2].any() and not c1[:, 2].any()
    # rows cut short equal a run of that row alone over its own steps
    alone = [x[:2, 1:2] if k == 0 else (x[:, 1:2] if k in (5, 6) else x) for k, x in enumerate(inputs) if k != 4]
    alone.insert(4, None)
    y, h, c = oracle.evaluate(LATEST["LSTM"], alone, attributes)
    np.testing.assert_allclose(y[:, :, 0], y0[:2, :, 1], rtol=1e-6)
    np.testing.assert_allclose(h[:, 0], h0[:, 1], rtol=1e-6)


def test_activation_parameters_are_read_by_the_functions_that_take_them():
    names = ["LeakyRelu", "Tanh", "Affine"]
    takers = recurrent.bind_activations("t", names, [0.5, 2.0], [3.0], "takers_in_order")
    assert [(b.alpha, b.beta) for b in takers] == [(0.5, 0.0), (0.0, 0.0), (2.0, 3.0)]
    by_position = recurrent.bind_activations("t", names, [0.5, 9.0, 2.0], [7.0, 8.0, 3.0], "one_per_activation")
    assert [(b.alpha, b.beta) for b in by_position] == [(0.5, 0.0), (0.0, 0.0), (2.0, 3.0)]
    # the ONNX operators' defaults for a value the list does not reach
    defaults = recurrent.bind_activations("t", ["LeakyRelu", "ThresholdedRelu", "HardSigmoid", "Elu"], [], [], "takers_in_order")
    assert [(b.alpha, b.beta) for b in defaults] == [(0.01, 0.0), (1.0, 0.0), (0.2, 0.5), (1.0, 0.0)]
    # Affine and ScaledTanh have no operator ONNX still defines: no default, so no outcome
    with pytest.raises(RelationBroken) as e:
        recurrent.bind_activations("t", ["Affine"], [2.0], [], "takers_in_order")
    assert e.value.relation == "activation_parameter_missing" and e.value.on_violation == "undefined"


def test_activations_follow_the_text_formulas():
    x = np.array([-2.0, -0.5, 0.0, 0.5, 1.0, 3.0])
    table = {name: recurrent.Bound(name, 0.7, 0.3)(x) for name in recurrent.ACTIVATIONS}
    np.testing.assert_allclose(table["Sigmoid"], 1 / (1 + np.exp(-x)))
    np.testing.assert_allclose(table["Affine"], 0.7 * x + 0.3)
    np.testing.assert_allclose(table["ScaledTanh"], 0.7 * np.tanh(0.3 * x))
    np.testing.assert_allclose(table["HardSigmoid"], np.minimum(np.maximum(0.7 * x + 0.3, 0), 1))
    np.testing.assert_allclose(table["ThresholdedRelu"], np.where(x >= 0.7, x, 0))  # the text's >=
    np.testing.assert_allclose(table["Elu"], np.where(x >= 0, x, 0.7 * (np.exp(x) - 1)))
    np.testing.assert_allclose(table["Softplus"], np.log1p(np.exp(x)))
    np.testing.assert_allclose(table["Softsign"], x / (1 + np.abs(x)))


def test_clip_bounds_every_activation_input_the_hidden_one_included():
    rng = np.random.default_rng(5)
    inputs = [5 * x if x is not None else None for x in _inputs("LSTM", rng)]
    attributes = {"hidden_size": 2, "activations": ["Sigmoid", "Tanh", "Affine"], "activation_alpha": [1.0],
                  "activation_beta": [0.0]}
    free = oracle.evaluate(LATEST["LSTM"], inputs, attributes)
    same = oracle.evaluate(LATEST["LSTM"], inputs, {**attributes, "clip": 1e6})
    clipped = oracle.evaluate(LATEST["LSTM"], inputs, {**attributes, "clip": 0.5})
    np.testing.assert_array_equal(free[0], same[0])
    # Ht = ot (.) h(clip(Ct)) with h the identity: |Ht| <= 0.5, while Ct (Y_c) itself is not clipped
    assert np.abs(clipped[0]).max() <= 0.5 + 1e-6
    assert np.abs(clipped[2]).max() > 0.5


def test_absent_hidden_size_is_read_from_r_or_refused():
    rng = np.random.default_rng(2)
    inputs = _inputs("GRU", rng, hidden=3)
    exp = oracle.expectation(specs.load(LATEST["GRU"]), inputs, {})
    assert exp.kind == "outputs" and exp.refused_under["absent_hidden_size"] == "refuse"
    assert exp.alternatives[0].outputs[1].shape == (1, 2, 3)


@pytest.mark.slow
@pytest.mark.parametrize("sid", ["onnx::RNN-7", "onnx::GRU-14", "onnx::LSTM-22"])
def test_valid_draws_are_rarely_rejected_without_a_hook(sid):
    assert_drawn_without_a_hook(sid, t=0)
    assert_drawn_without_a_hook(sid, t=2)


@pytest.mark.parametrize("sid,relation,at_least", [
    ("onnx::LSTM-14", "activations_allowed", 4), ("onnx::LSTM-14", "activations_count", 4), ("onnx::GRU-22", "w_shape", 4),
    ("onnx::RNN-14", "initial_h_shape", 4), ("onnx::LSTM-22", "p_shape", 4),
    # an empty batch holds no length to push out of range: fewer drafts break it
    ("onnx::GRU-22", "sequence_lens_in_range", 2),
])
def test_must_refuse_cases_break_their_relation(sid, relation, at_least):
    assert_must_refuse_drafts(specs.load(sid), relation, tries=12, at_least=at_least)
