"""OpenVINO MaxPool-14 and AvgPool-16: the windows follow the documents' shape rules (floor, ceil,
ceil_torch, valid, same_*), checked against a direct loop over the windows the rules describe;
MaxPool's indices count from dimension `axis` on; uint64 keeps its order."""
from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from opconform import oracle, specs
from opconform.model import RelationBroken
from opconform.oracle.openvino import pool_windows


def _attrs(**kw):
    base = {"strides": [1], "pads_begin": [0], "pads_end": [0], "kernel": [1]}
    base.update(kw)
    return base


@pytest.mark.parametrize("rounding, expected", [("floor", 2), ("ceil", 3), ("ceil_torch", 2)])
def test_rounding_types_count_windows_as_the_rules_say(rounding, expected):
    # H 3, pads 1 and 1, kernel 2, stride 2: (3 + 2 - 2) / 2 + 1 = 2.5; ceil_torch drops the window starting in the end padding
    win = pool_windows.window((3,), _attrs(strides=[2], pads_begin=[1], pads_end=[1], kernel=[2], rounding_type=rounding))
    assert win.out == (expected,)


@pytest.mark.parametrize("size, stride", [(7, 2), (8, 3), (5, 1)])
def test_same_padding_gives_ceil_of_size_over_stride(size, stride):
    for mode in ("same_upper", "same_lower"):
        win = pool_windows.window((size,), _attrs(strides=[stride], kernel=[3], auto_pad=mode))
        assert win.out == (math.ceil(size / stride),)
        extra = (win.end[0] - win.begin[0]) if mode == "same_upper" else (win.begin[0] - win.end[0])
        assert extra in (0, 1)


def _loop_windows(x, kernel, strides, dilations, pb, pe, out):
    """(position, list of (input index or None for padding)) per output position: the rules, in loops."""
    for pos in itertools.product(*(range(o) for o in out)):
        taps = []
        for k in itertools.product(*(range(kk) for kk in kernel)):
            coord = [p * s - b + t * d for p, s, b, t, d in zip(pos, strides, pb, k, dilations)]
            inside = all(0 <= c < n for c, n in zip(coord, x.shape[2:]))
            taps.append(tuple(coord) if inside else None)
        yield pos, taps


@pytest.mark.parametrize("seed", range(4))
def test_max_and_average_pool_match_a_loop_over_the_windows(seed):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((2, 2, 6, 5))
    attrs = {"strides": [2, 1], "pads_begin": [1, 0], "pads_end": [1, 2], "kernel": [2, 3], "dilations": [1, 2]}
    y, idx = oracle.evaluate(specs.load("openvino::MaxPool-14"), [x], {**attrs, "axis": 2})
    (incl,) = oracle.evaluate(specs.load("openvino::AvgPool-16"), [x], {**attrs, "exclude_pad": False})
    (excl,) = oracle.evaluate(specs.load("openvino::AvgPool-16"), [x], {**attrs, "exclude_pad": True})
    win = pool_windows.window(x.shape[2:], attrs)
    assert y.shape[2:] == win.out
    for pos, taps in _loop_windows(x, attrs["kernel"], attrs["strides"], attrs["dilations"], win.begin, win.end, win.out):
        inside = [t for t in taps if t is not None]
        vals = np.stack([x[(slice(None), slice(None)) + t] for t in inside], axis=-1)
        at = (slice(None), slice(None)) + pos
        assert np.array_equal(y[at], vals.max(axis=-1))
        best = [inside[i] for i in np.argmax(vals, axis=-1).reshape(-1)]
        assert idx[at].reshape(-1).tolist() == [int(np.ravel_multi_index(b, x.shape[2:])) for b in best]
        assert np.allclose(excl[at], vals.mean(axis=-1), rtol=1e-12)
        assert np.allclose(incl[at], vals.sum(axis=-1) / len(taps), rtol=1e-12)


def test_uint64_maxima_above_int64_keep_their_order():
    x = np.array([[[2**63 + 5, 7, 2**64 - 1, 2**63 - 1]]], np.uint64)
    y, idx = oracle.evaluate(specs.load("openvino::MaxPool-14"), [x], _attrs(strides=[2], kernel=[2]))
    assert y.tolist() == [[[2**63 + 5, 2**64 - 1]]] and idx.tolist() == [[[0, 2]]]


def test_a_ceil_window_of_padding_only_is_undefined():
    x = np.arange(9, dtype=np.float32).reshape(1, 1, 3, 3)
    attrs = {"strides": [2, 2], "pads_begin": [1, 1], "pads_end": [1, 1], "kernel": [2, 2], "rounding_type": "ceil"}
    with pytest.raises(RelationBroken, match="window_in_padding"):
        oracle.evaluate(specs.load("openvino::MaxPool-14"), [x], attrs)
    y, _ = oracle.evaluate(specs.load("openvino::MaxPool-14"), [x], {**attrs, "rounding_type": "ceil_torch"})
    assert y.shape == (1, 1, 2, 2)


def test_integer_average_truncates_or_rounds():
    x = np.array([[[1, 2, 2, 2]]], np.int32)  # means 1.5 and 2
    spec = specs.load("openvino::AvgPool-16")
    attrs = _attrs(strides=[2], kernel=[2], exclude_pad=True)
    assert oracle.evaluate(spec, [x], attrs, {"integer_average": "truncate"})[0].tolist() == [[[1, 2]]]
    assert oracle.evaluate(spec, [x], attrs, {"integer_average": "half_to_even"})[0].tolist() == [[[2, 2]]]
