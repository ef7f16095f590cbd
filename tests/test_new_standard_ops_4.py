"""The last standard ONNX operators (issue 15 item 10): LinearAttention-27, CausalConvWithState-27
(no generator hook) and ImageDecoder-20 (a hook draws encoded images). Valid draws are rarely
rejected, every error relation gets must-refuse cases that break it first, and the oracles answer
as the texts do: the recurrence token by token, the carry of the convolution's state from call to
call, and the pixels written into each image format."""
from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from helpers_generator import assert_drawn_without_a_hook, assert_must_refuse_drafts, drawn
from opconform import oracle, specs
from opconform.generator import images, sampling, strategies

HOOKLESS = ["onnx::LinearAttention-27", "onnx::CausalConvWithState-27"]
ADDED = HOOKLESS + ["onnx::ImageDecoder-20"]


@pytest.mark.parametrize("sid", HOOKLESS)
def test_added_operators_draw_without_a_hook_and_rarely_reject_on_rows(sid):
    assert_drawn_without_a_hook(sid, 2, cap=0.10)


def test_image_decoder_draws_are_never_rejected():
    assert sampling.rejection_rate(specs.load("onnx::ImageDecoder-20"), "ci", 40, t=2) == 0.0


@pytest.mark.parametrize("sid, relation", [(sid, r) for sid in ADDED for r in strategies.error_relations(specs.load(sid))])
def test_error_relations_of_the_added_operators_get_must_refuse_cases(sid, relation):
    assert_must_refuse_drafts(specs.load(sid), relation, tries=10, at_least=3)


# ------------------------------------------------------------------ LinearAttention
def _text_recurrence(q, k, v, past, decay, beta, hq, hkv, rule, scale):
    """The text's formulas one batch, head and token at a time, in float64 (the slow reading)."""
    b, t, _ = q.shape
    d_k, d_v = q.shape[2] // hq, v.shape[2] // hkv
    state = np.zeros((b, hkv, d_k, d_v)) if past is None else past.astype(np.float64).copy()
    out = np.zeros((b, t, hq * d_v))
    for n in range(b):
        for i in range(t):
            for h in range(hkv):
                s = state[n, h]
                kt, vt = k[n, i, h * d_k:(h + 1) * d_k], v[n, i, h * d_v:(h + 1) * d_v]
                if rule in ("gated", "gated_delta"):
                    g = decay[n, i, h] if decay.shape[2] == hkv else decay[n, i, h * d_k:(h + 1) * d_k]
                    s = np.exp(g)[..., None] * s if np.ndim(g) else np.exp(g) * s
                if rule in ("delta", "gated_delta"):
                    bt = beta[n, i, h if beta.shape[2] == hkv else 0]
                    vt = bt * (vt - s.T @ kt)
                state[n, h] = s + np.outer(kt, vt)
            for h in range(hq):
                qt = q[n, i, h * d_k:(h + 1) * d_k]
                out[n, i, h * d_v:(h + 1) * d_v] = scale * qt @ state[n, h // (hq // hkv)]
    return out, state


@pytest.mark.parametrize("rule", ["linear", "gated", "delta", "gated_delta"])
@pytest.mark.parametrize("hq, hkv, per_head", [(2, 2, True), (4, 2, False), (3, 1, True)])
def test_linear_attention_is_the_texts_recurrence(rule, hq, hkv, per_head):
    rng = np.random.default_rng(hash((rule, hq, hkv)) % 2**32)
    b, t, d_k, d_v = 2, 5, 3, 2
    q = rng.uniform(-2, 2, (b, t, hq * d_k)).astype(np.float32)
    k = rng.uniform(-0.5, 0.5, (b, t, hkv * d_k)).astype(np.float32)
    v = rng.uniform(-2, 2, (b, t, hkv * d_v)).astype(np.float32)
    past = rng.uniform(-1, 1, (b, hkv, d_k, d_v)).astype(np.float32)
    gated, delta = rule in ("gated", "gated_delta"), rule in ("delta", "gated_delta")
    decay = rng.uniform(-1, 0, (b, t, hkv if per_head else hkv * d_k)).astype(np.float32) if gated else None
    beta = rng.uniform(0, 1, (b, t, hkv if per_head else 1)).astype(np.float32) if delta else None
    attrs = {"q_num_heads": hq, "kv_num_heads": hkv, "update_rule": rule}
    spec = specs.load("onnx::LinearAttention-27")
    y, present = oracle.evaluate(spec, [q, k, v, past, decay, beta], attrs)
    want_y, want_state = _text_recurrence(q, k, v, past, decay, beta, hq, hkv, rule, 1 / np.sqrt(d_k))
    np.testing.assert_allclose(y, want_y, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(present, want_state, rtol=1e-5, atol=1e-5)
    # the state carries: the second half of the tokens from the first half's state is the second half
    h = t // 2
    cut = lambda x: None if x is None else x[:, :h]  # noqa: E731
    rest = lambda x: None if x is None else x[:, h:]  # noqa: E731
    _, mid = oracle.evaluate(spec, [cut(q), cut(k), cut(v), past, cut(decay), cut(beta)], attrs)
    y2, end = oracle.evaluate(spec, [rest(q), rest(k), rest(v), mid, rest(decay), rest(beta)], attrs)
    np.testing.assert_allclose(y2, y[:, h:], rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(end, present, rtol=1e-5, atol=1e-5)


def test_linear_attention_scale_and_state_type():
    spec = specs.load("onnx::LinearAttention-27")
    rng = np.random.default_rng(1)
    q, k, v = (rng.uniform(-1, 1, (1, 2, 4)).astype(np.float16) for _ in range(3))
    attrs = {"q_num_heads": 1, "kv_num_heads": 1, "update_rule": "linear"}
    y_default, state = oracle.evaluate(spec, [q, k, v], attrs)
    y_half = oracle.evaluate(spec, [q, k, v], dict(attrs, scale=0.25))[0]
    np.testing.assert_allclose(y_default.astype(np.float32), 2 * y_half.astype(np.float32), rtol=2e-3)  # 1/sqrt(4) = 2 * 0.25
    assert state.dtype == np.float16  # no past_state: the query's type (erratum state_type_without_past_state)
    past = np.zeros((1, 1, 4, 4), np.float32)
    assert oracle.evaluate(spec, [q, k, v, past], attrs)[1].dtype == np.float32  # past_state's type S
    # a chunk size is a tuning hint: the same outputs
    assert np.array_equal(oracle.evaluate(spec, [q, k, v], dict(attrs, chunk_size=1))[0], y_default)


def test_linear_attention_decay_outside_the_gated_rules_is_undefined():
    spec = specs.load("onnx::LinearAttention-27")
    x = np.zeros((1, 1, 2), np.float32)
    e = oracle.expectation(spec, [x, x, x, None, np.zeros((1, 1, 1), np.float32)], {"q_num_heads": 1, "kv_num_heads": 1, "update_rule": "delta"})
    assert e.kind == "error" and e.relation == "beta_given"
    e = oracle.expectation(spec, [x, x, x, None, np.zeros((1, 1, 1), np.float32), np.zeros((1, 1, 1), np.float32)],
                           {"q_num_heads": 1, "kv_num_heads": 1, "update_rule": "delta"})
    assert e.kind == "undefined" and e.relation == "decay_only_gated"


# ------------------------------------------------------------------ CausalConvWithState
def _causal(x, w, b=None, past=None, **attributes):
    return oracle.evaluate(specs.load("onnx::CausalConvWithState-27"), [x, w, b, past], attributes)


@pytest.mark.parametrize("k", [1, 2, 4])
def test_causal_conv_carries_its_state_from_call_to_call(k):
    rng = np.random.default_rng(k)
    x = rng.uniform(-2, 2, (2, 3, 7)).astype(np.float32)
    w, b = rng.uniform(-2, 2, (3, 1, k)).astype(np.float32), rng.uniform(-1, 1, 3).astype(np.float32)
    whole, state = _causal(x, w, b)
    # token by token (decode), each call fed the state the previous one gave back
    past, pieces = None, []
    for i in range(7):
        y, past = _causal(x[:, :, i:i + 1], w, b, past)
        pieces.append(y)
    np.testing.assert_allclose(np.concatenate(pieces, axis=2), whole, rtol=1e-6, atol=1e-6)
    np.testing.assert_array_equal(past, state)
    # causal and depthwise: output[n, c, t] reads channel c at t - k + 1 .. t only
    padded = np.concatenate([np.zeros((2, 3, k - 1)), x], axis=2)
    want = np.stack([sum(padded[:, :, t + j] * w[:, 0, j] for j in range(k)) for t in range(7)], axis=2) + b[:, None]
    np.testing.assert_allclose(whole, want, rtol=1e-5, atol=1e-5)


def test_causal_conv_silu_and_short_input_state():
    x = np.array([[[-3.0, 0.5]]], np.float32)
    w = np.array([[[0.0, 0.0, 0.0, 1.0]]], np.float32)
    y, state = _causal(x, w, activation="swish")
    np.testing.assert_allclose(y, x / (1 + np.exp(-x)), rtol=1e-6)
    # an input shorter than k - 1: the state keeps the zero padding in front of it
    np.testing.assert_array_equal(state, np.array([[[0.0, -3.0, 0.5]]], np.float32))


# ------------------------------------------------------------------ ImageDecoder
def _decode(stream: bytes, pixel_format: str = "RGB"):
    return oracle.expectation(specs.load("onnx::ImageDecoder-20"), [np.frombuffer(stream, np.uint8).copy()],
                              {"pixel_format": pixel_format})


def _judge(stream: bytes, got: np.ndarray, pixel_format: str) -> str:
    return oracle.judge(specs.load("onnx::ImageDecoder-20"), [np.frombuffer(stream, np.uint8).copy()],
                        {"pixel_format": pixel_format}, None, {"image": got})


@pytest.mark.parametrize("fmt", images.LOSSLESS)
def test_lossless_images_decode_to_the_pixels_drawn_in_every_pixel_format(fmt):
    rng = np.random.default_rng(3)
    rgb = rng.integers(0, 256, (3, 5, 3), dtype=np.uint8)
    gray = rng.integers(0, 256, (4, 2), dtype=np.uint8)
    (y,) = _decode(images.encode(rgb, fmt)).alternatives[0].outputs
    assert np.array_equal(y, rgb)
    (y,) = _decode(images.encode(rgb, fmt), "BGR").alternatives[0].outputs
    assert np.array_equal(y, rgb[:, :, ::-1])
    (y,) = _decode(images.encode(gray, fmt), "Grayscale").alternatives[0].outputs
    assert np.array_equal(y, gray[:, :, None])
    (y,) = _decode(images.encode(gray, fmt), "RGB").alternatives[0].outputs  # one channel, three times
    assert np.array_equal(y, np.repeat(gray[:, :, None], 3, axis=2))


def test_image_judge_holds_each_format_to_its_tolerance():
    rng = np.random.default_rng(4)
    rgb = rng.integers(0, 256, (6, 6, 3), dtype=np.uint8)
    png = images.encode(rgb, "png")
    assert _judge(png, rgb, "RGB") == ""
    off = rgb.copy()
    off[2, 3, 1] ^= 1  # one level off: no lossless format allows it
    assert "image at [2, 3, 1]" in _judge(png, off, "RGB")
    assert _judge(png, rgb[:, :, ::-1].copy(), "RGB") != ""  # BGR is not RGB
    luma = rgb.astype(np.float64) @ np.array([0.299, 0.587, 0.114])
    assert _judge(png, np.floor(luma).astype(np.uint8)[:, :, None], "Grayscale") == ""  # truncated luma passes
    assert _judge(png, np.minimum(np.floor(luma) + 2, 255).astype(np.uint8)[:, :, None], "Grayscale") != ""
    jpeg = images.encode(rgb, "jpeg", quality=90)
    (decoded,) = _decode(jpeg).alternatives[0].outputs
    assert _judge(jpeg, np.clip(decoded.astype(int) + 2, 0, 255).astype(np.uint8), "RGB") == ""
    assert _judge(jpeg, np.clip(decoded.astype(int) + 3, 0, 255).astype(np.uint8), "RGB") != ""


@pytest.mark.parametrize("kind", images.UNDECODABLE)
@pytest.mark.parametrize("fmt", images.FORMATS)
def test_undecodable_streams_are_an_empty_image_or_refused(kind, fmt):
    e = _decode(images.undecodable(kind, b"\x01\x02\x03\x04", fmt), "Grayscale")
    assert [a.outputs[0].shape for a in e.alternatives] == [(0, 0, 1)]
    assert e.relation == "stream_decodable" and e.refused_under == {"undecodable": "refuse"}


def test_generated_image_cases_cover_every_format_and_pixel_format():
    cases = drawn("onnx::ImageDecoder-20", 120, 7, kind="valid", profile="ci")
    streams = Counter(n.split(":")[1] for c in cases for n in c.label.split(";") if n.startswith("stream:"))
    assert set(streams) >= set(images.FORMATS) | set(images.UNDECODABLE), streams
    assert {c.attributes.get("pixel_format", "RGB") for c in cases} == {"RGB", "BGR", "Grayscale"}
    spec = specs.load("onnx::ImageDecoder-20")
    for c in cases:  # an image drawn in a format decodes to an image; a stream holding none to an empty one
        drawn_image = any(n.split(":")[1] in images.FORMATS for n in c.label.split(";") if n.startswith("stream:"))
        (y,) = oracle.expectation(spec, list(c.inputs), c.attributes).alternatives[0].outputs
        assert (y.size > 0) == drawn_image, c.label


# ------------------------------------------------------------------ oracle mistakes found by the ci runs
def test_attention_of_an_empty_3d_batch_states_the_head_size():
    """onnx::Attention-23's ci rows with batch 0 failed in the oracle (reshape(..., -1) of an empty
    array): 3-D Q, K, V of 0 batches have outputs of 0 batches, heads * head_size wide."""
    spec = specs.load("onnx::Attention-23")
    q, k, v = np.zeros((0, 1, 8), np.float32), np.zeros((0, 3, 4), np.float32), np.zeros((0, 3, 6), np.float32)
    y = oracle.evaluate(spec, [q, k, v], {"q_num_heads": 4, "kv_num_heads": 2})[0]
    assert y.shape == (0, 1, 12)
    rng = np.random.default_rng(2)  # the same reshape on a non-empty batch: heads side by side
    q, k, v = (rng.uniform(-1, 1, s).astype(np.float32) for s in ((1, 1, 8), (1, 3, 4), (1, 3, 6)))
    y = oracle.evaluate(spec, [q, k, v], {"q_num_heads": 4, "kv_num_heads": 2}, {"intermediate_precision": "wide"})[0]
    keys, values = k.reshape(3, 2, 2), v.reshape(3, 2, 3)
    for h in range(4):
        s = q[0, 0, 2 * h:2 * h + 2] @ keys[:, h // 2].T / np.sqrt(2)
        p = np.exp(s - s.max()) / np.exp(s - s.max()).sum()
        np.testing.assert_allclose(y[0, 0, 3 * h:3 * h + 3], p @ values[:, h // 2], rtol=1e-5, atol=1e-6)
