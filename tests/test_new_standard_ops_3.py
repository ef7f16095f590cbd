"""Standard ONNX operators added since the list (issue 15 item 10), one spec file and one oracle
module each, no generator hook: RegexFullMatch, StringSplit, RotaryEmbedding. Their valid draws are
rarely rejected on the covering rows, every error relation gets must-refuse cases that break it
first, and the oracles answer as the texts do where the texts are subtle."""
from __future__ import annotations

import numpy as np
import pytest

from helpers_generator import assert_drawn_without_a_hook, assert_must_refuse_drafts
from opconform import oracle, specs
from opconform.generator import strategies

ADDED = ["onnx::RegexFullMatch-20", "onnx::StringSplit-20", "onnx::RotaryEmbedding-23"]


@pytest.mark.parametrize("sid", ADDED)
def test_added_operators_draw_without_a_hook_and_rarely_reject_on_rows(sid):
    # free draws of RegexFullMatch leave its pattern out half the time (pattern_given, undefined)
    assert_drawn_without_a_hook(sid, 2, cap=0.15)


# relations no breaker reaches first: RotaryEmbedding's num_heads_given (a 3-D X without num_heads:
# the disjunction's breaker cannot leave an attribute out) and rotary_dim_within_head (for a 4-D X
# the attribute's range, which comes first, is the same bound)
UNBROKEN = {"onnx::RotaryEmbedding-23": {"num_heads_given", "rotary_dim_within_head"}}


def _breakable() -> list[tuple[str, str]]:
    return [(sid, r) for sid in ADDED for r in strategies.error_relations(specs.load(sid)) if r not in UNBROKEN.get(sid, ())]


@pytest.mark.parametrize("sid, relation", _breakable())
def test_error_relations_of_the_added_operators_get_must_refuse_cases(sid, relation):
    # RotaryEmbedding's num_heads relations break only in drafts with a 3-D X (one in four)
    assert_must_refuse_drafts(specs.load(sid), relation, tries=30 if "Rotary" in sid else 10, at_least=3)


def _strings(*xs: str) -> np.ndarray:
    return np.array(list(xs), dtype=object)


def test_regex_classes_are_ascii_as_in_re2():
    spec = specs.load("onnx::RegexFullMatch-20")
    (y,) = oracle.evaluate(spec, [_strings("\u00e4", "a_1", "-", "")], {"pattern": "\\w+"})
    assert y.tolist() == [False, True, False, False]  # RE2's \w is [0-9A-Za-z_]
    (y,) = oracle.evaluate(spec, [_strings("\u00e4\u65e5", "a")], {"pattern": "\\W*"})
    assert y.tolist() == [True, False]


def test_regex_patterns_re2_refuses_must_be_refused():
    spec = specs.load("onnx::RegexFullMatch-20")
    for pattern in ("(a)\\1", "(?=a)a", "a**", "("):
        assert oracle.expectation(spec, [_strings("aa")], {"pattern": pattern}).relation == "pattern_is_re2"
    assert oracle.expectation(spec, [_strings("aa")], {"pattern": "x(y)z"}).kind == "undefined"  # not listed


def test_string_split_pads_and_counts():
    spec = specs.load("onnx::StringSplit-20")
    y, z = oracle.evaluate(spec, [_strings("a-b", "", "---")], {"delimiter": "-"})
    assert y.tolist() == [["a", "b", "", ""], ["", "", "", ""], ["", "", "", ""]]
    assert z.tolist() == [2, 1, 4]  # an empty string is one empty substring
    y, z = oracle.evaluate(spec, [_strings(" a  b ", "")], {})
    assert y.tolist() == [["a", "b"], ["", ""]] and z.tolist() == [2, 0]  # whitespace runs, ends dropped


def test_string_split_suffix_whitespace_is_a_policy():
    spec = specs.load("onnx::StringSplit-20")
    x = [_strings(" a b  ")]
    kept = oracle.evaluate(spec, x, {"maxsplit": 1}, {"suffix_whitespace": "kept"})[0]
    stripped = oracle.evaluate(spec, x, {"maxsplit": 1}, {"suffix_whitespace": "stripped"})[0]
    assert kept.tolist() == [["a", "b  "]] and stripped.tolist() == [["a", "b"]]


def _rope(x, cos, sin, positions=None, **attributes):
    spec = specs.load("onnx::RotaryEmbedding-23")
    inputs = [x, cos, sin] + ([positions] if positions is not None else [])
    return oracle.evaluate(spec, inputs, attributes)[0]


def test_rotary_embedding_rotates_pairs_by_position():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 3, 5, 6)).astype(np.float32)  # (batch, heads, sequence, head_size)
    angles = rng.uniform(0, 6, size=(7, 3))
    cos, sin = np.cos(angles).astype(np.float32), np.sin(angles).astype(np.float32)
    pos = rng.integers(0, 7, size=(2, 5))
    y = _rope(x, cos, sin, pos)
    c, s = cos[pos][:, None], sin[pos][:, None]  # (batch, 1, sequence, 3)
    x1, x2 = x[..., :3], x[..., 3:]
    np.testing.assert_allclose(y, np.concatenate([c * x1 - s * x2, s * x1 + c * x2], axis=-1), rtol=1e-5, atol=1e-6)
    yi = _rope(x, cos, sin, pos, interleaved=1)
    e, o = x[..., 0::2], x[..., 1::2]
    np.testing.assert_allclose(yi[..., 0::2], c * e - s * o, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(yi[..., 1::2], s * e + c * o, rtol=1e-5, atol=1e-6)
    # a partial rotation leaves the rest of the head as it is; a 3-D input is the same heads side by side
    part = _rope(x, cos[:, :2], sin[:, :2], pos, rotary_embedding_dim=4)
    assert np.array_equal(part[..., 4:], x[..., 4:])
    flat = np.transpose(x, (0, 2, 1, 3)).reshape(2, 5, 18)
    y3 = _rope(flat, cos, sin, pos, num_heads=3)
    np.testing.assert_array_equal(y3, np.transpose(y, (0, 2, 1, 3)).reshape(2, 5, 18))


def test_rotary_embedding_fused_policy_keeps_the_cancellation_residual():
    big = np.float32(3.4028235e38)
    x = np.array([[[[big, -big]]]], np.float32)
    cos, sin = np.array([[-0.6875]], np.float32), np.array([[0.6875]], np.float32)
    spec = specs.load("onnx::RotaryEmbedding-23")
    outcomes = {a.policies["intermediate_precision"]: a.outputs[0] for a in
                oracle.expectation(spec, [x, cos, sin, np.zeros((1, 1), np.int64)], {}).alternatives}
    assert outcomes["wide"][0, 0, 0, 0] == 0.0
    assert outcomes["fused"][0, 0, 0, 0] != 0.0 and abs(outcomes["fused"][0, 0, 0, 0]) < 1e31


# ------------------------------------------------------------------ Attention
def _attention(sid: str, inputs: list, **attributes):
    return oracle.evaluate(specs.load(sid), inputs, attributes, {"intermediate_precision": "wide"})


def _reference_attention(q, k, v, bias):
    """softmax(Q K^T / sqrt(d) + bias) V for one head, in float64."""
    s = q @ k.T / np.sqrt(q.shape[-1]) + bias
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    return (e / e.sum(axis=-1, keepdims=True)) @ v


def test_attention_repeats_kv_heads_in_place_and_masks_causally_past_the_cache():
    rng = np.random.default_rng(5)
    q = rng.standard_normal((1, 4, 3, 2))
    k, v = rng.standard_normal((1, 2, 2, 2)), rng.standard_normal((1, 2, 2, 3))
    past_k, past_v = rng.standard_normal((1, 2, 1, 2)), rng.standard_normal((1, 2, 1, 3))
    y, present_k, present_v, _ = _attention("onnx::Attention-23", [q, k, v, None, past_k, past_v], is_causal=1)
    assert np.array_equal(present_k, np.concatenate([past_k, k], axis=2))
    keys, values = present_k[0], present_v[0]
    # query i attends key j iff j <= i + past_sequence_length (1); query head h reads kv head h // 2
    bias = np.where(np.arange(3)[None, :] <= np.arange(3)[:, None] + 1, 0.0, -np.inf)
    for h in range(4):
        np.testing.assert_allclose(y[0, h], _reference_attention(q[0, h], keys[h // 2], values[h // 2], bias), rtol=1e-12)


def test_attention_fully_masked_row_is_zero_and_short_mask_is_padded():
    q = k = v = np.ones((1, 1, 2, 2))
    mask = np.array([[True, True], [False, False]])
    y = _attention("onnx::Attention-23", [q, k, v, mask])[0]
    assert np.array_equal(y[0, 0, 1], [0.0, 0.0]) and np.all(np.isfinite(y))
    # from 24 a mask shorter than the keys is padded with -inf: one column attends key 0 only
    v2 = np.array([[[[1.0, 0.0], [0.0, 1.0]]]])
    y24 = _attention("onnx::Attention-24", [q, k, v2, np.zeros((2, 1))])[0]
    np.testing.assert_allclose(y24[0, 0], [[1.0, 0.0], [1.0, 0.0]])
    y23 = _attention("onnx::Attention-23", [q, k, v2, np.zeros((2, 1))])[0]  # 23: broadcast, both keys
    np.testing.assert_allclose(y23[0, 0], [[0.5, 0.5], [0.5, 0.5]])


def test_attention_3d_inputs_are_heads_side_by_side():
    rng = np.random.default_rng(6)
    q4, k4, v4 = rng.standard_normal((2, 2, 3, 4)), rng.standard_normal((2, 2, 5, 4)), rng.standard_normal((2, 2, 5, 3))
    flat = [np.swapaxes(x, 1, 2).reshape(x.shape[0], x.shape[2], -1) for x in (q4, k4, v4)]
    y4 = _attention("onnx::Attention-23", [q4, k4, v4])[0]
    y3 = _attention("onnx::Attention-23", flat, q_num_heads=2, kv_num_heads=2)[0]
    np.testing.assert_allclose(y3, np.swapaxes(y4, 1, 2).reshape(2, 3, 6), rtol=1e-12)
