"""OpenVINO TopK-11, SearchSorted-15, AdaptiveAvgPool-8, AdaptiveMaxPool-8 and FakeQuantize-1: their
own oracle code computes what the documents say, checked by properties against direct readings of
the text (per-row searches, the window formulae, the levels an output may take) rather than stored
outputs."""
from __future__ import annotations

import math

import numpy as np
import pytest

from opconform import oracle, specs
from opconform.model import RelationBroken


def _evaluate(spec_id: str, inputs: list, attributes: dict, policies: dict | None = None) -> tuple:
    return oracle.evaluate(specs.load(spec_id), inputs, attributes, policies)


def test_topk_document_example_has_three_answers_unless_stable():
    x, k = np.array([5, 3, 1, 2, 5, 5], np.int32), np.array(4, np.int64)
    attributes = {"axis": 0, "mode": "min", "sort": "index"}
    with pytest.raises(RelationBroken, match="ties_unordered"):
        _evaluate("openvino::TopK-11", [x, k], attributes)
    values, indices = _evaluate("openvino::TopK-11", [x, k], {**attributes, "stable": True})
    assert values.tolist() == [5, 3, 1, 2] and indices.tolist() == [0, 1, 2, 3] and indices.dtype == np.int32


def test_topk_sort_index_is_input_order_and_ties_inside_the_selection_are_decided():
    x = np.array([[4, 9, 4, 1, 7]], np.float32)
    values, indices = _evaluate("openvino::TopK-11", [x, np.array(4, np.int32)],
                                {"axis": 1, "mode": "max", "sort": "index", "index_element_type": "i64"})
    assert indices.tolist() == [[0, 1, 2, 4]] and values.tolist() == [[4, 9, 4, 7]]  # both 4s selected
    with pytest.raises(RelationBroken, match="ties_unordered"):  # by value, the two 4s' order is open
        _evaluate("openvino::TopK-11", [x, np.array(4, np.int32)], {"axis": 1, "mode": "max", "sort": "value"})
    with pytest.raises(RelationBroken, match="ties_unordered"):  # k 3 selects one of the two 4s
        _evaluate("openvino::TopK-11", [x, np.array(3, np.int32)], {"axis": 1, "mode": "max", "sort": "index"})


def test_topk_sort_none_decides_one_element_only():
    x = np.array([3.0, 1.0, 2.0], np.float64)
    values, _ = _evaluate("openvino::TopK-11", [x, np.array(1, np.int8)], {"axis": 0, "mode": "min", "sort": "none"})
    assert values.tolist() == [1.0]
    with pytest.raises(RelationBroken, match="ties_unordered"):
        _evaluate("openvino::TopK-11", [x, np.array(2, np.int8)], {"axis": 0, "mode": "min", "sort": "none"})


@pytest.mark.parametrize("dtype", [np.float32, np.int16, np.uint8])
@pytest.mark.parametrize("right_mode", [False, True])
def test_search_sorted_answers_each_row_as_a_search_of_that_row(dtype, right_mode):
    rng = np.random.default_rng(3)
    seq = np.sort(rng.integers(0, 20, size=(3, 4, 6)), axis=-1).astype(dtype)
    values = rng.integers(-2, 22, size=(3, 4, 5)).astype(dtype)
    (got,) = _evaluate("openvino::SearchSorted-15", [seq, values], {"right_mode": right_mode})
    side = "right" if right_mode else "left"
    want = np.array([[np.searchsorted(seq[i, j], values[i, j], side=side) for j in range(4)] for i in range(3)])
    assert got.dtype == np.int64 and np.array_equal(got, want)


def test_search_sorted_one_row_serves_values_of_any_shape():
    (got,) = _evaluate("openvino::SearchSorted-15", [np.array([0.5, 1.5], np.float16), np.full((2, 3, 1), 1.0, np.float16)], {})
    assert got.shape == (2, 3, 1) and np.all(got == 1)


def _adaptive_bounds(size_in: int, size_out: int, i: int) -> tuple[int, int]:
    """The document's formulae in floating point, as written."""
    return math.floor(i * size_in / size_out), math.ceil((i + 1) * size_in / size_out)


@pytest.mark.parametrize("spatial, out", [((7,), (3,)), ((5, 6), (2, 4)), ((3, 4, 5), (2, 2, 3)), ((4,), (6,))])
def test_adaptive_pools_follow_the_window_formulae(spatial, out):
    rng = np.random.default_rng(5)
    x = rng.standard_normal((2, 3) + spatial).astype(np.float64)
    shape = np.array(out, np.int64)
    (avg,) = _evaluate("openvino::AdaptiveAvgPool-8", [x, shape], {})
    mx, idx = _evaluate("openvino::AdaptiveMaxPool-8", [x, shape], {})
    for pos in np.ndindex(*out):
        window = x[(slice(None), slice(None)) + tuple(slice(*_adaptive_bounds(s, o, i)) for s, o, i in zip(spatial, out, pos))]
        flat = window.reshape(2, 3, -1)
        at = (slice(None), slice(None)) + pos
        assert np.allclose(avg[at], flat.mean(axis=-1), rtol=1e-12)
        assert np.array_equal(mx[at], flat.max(axis=-1))
    # the indices point at the maxima in each (n, c) plane flattened
    planes = x.reshape(2, 3, -1)
    assert np.array_equal(np.take_along_axis(planes, idx.reshape(2, 3, -1), axis=-1).reshape(mx.shape), mx)


def test_adaptive_max_pool_nan_policies():
    x = np.array([[[np.nan, 1.0, 2.0]]], np.float32)
    shape = np.array([1], np.int32)
    assert np.isnan(_evaluate("openvino::AdaptiveMaxPool-8", [x, shape], {}, {"nan": "propagate"})[0]).all()
    assert _evaluate("openvino::AdaptiveMaxPool-8", [x, shape], {}, {"nan": "ignored"})[0].item() == 2.0
    assert np.isnan(_evaluate("openvino::AdaptiveMaxPool-8", [x, shape], {}, {"nan": "scan_forward"})[0]).all()
    assert _evaluate("openvino::AdaptiveMaxPool-8", [x, shape], {}, {"nan": "scan_backward"})[0].item() == 2.0


@pytest.mark.parametrize("levels", [2, 3, 7, 256])
def test_fake_quantize_outputs_only_its_levels(levels):
    rng = np.random.default_rng(levels)
    x = rng.uniform(-3, 3, size=(4, 50)).astype(np.float64)
    lo, hi = np.array([[-1.0], [0.0], [-2.0], [0.5]]), np.array([[1.0], [2.0], [-1.0], [0.5]])
    olo, ohi = np.array(-4.0), np.array(4.0)
    (y,) = _evaluate("openvino::FakeQuantize-1", [x, lo, hi, olo, ohi], {"levels": levels})
    steps = (y - olo) / (ohi - olo) * (levels - 1)
    assert np.allclose(steps, np.round(steps), atol=1e-9) and steps.min() >= 0 and steps.max() <= levels - 1
    # clipped below min(input_low, input_high) and above the max
    assert np.all(y[x <= np.minimum(lo, hi)] == -4.0) and np.all(y[x > np.maximum(lo, hi)] == 4.0)


def test_fake_quantize_rounding_policies_differ_at_half():
    args = [np.array([0.5], np.float32), np.array(0.0, np.float32), np.array(2.0, np.float32),
            np.array(-1.0, np.float32), np.array(1.0, np.float32)]  # position 0.5 of levels 3
    even = _evaluate("openvino::FakeQuantize-1", args, {"levels": 3}, {"rounding": "half_to_even"})[0]
    away = _evaluate("openvino::FakeQuantize-1", args, {"levels": 3}, {"rounding": "half_away_from_zero"})[0]
    assert even.tolist() == [-1.0] and away.tolist() == [0.0]
