"""Unique oracle invariants (Hypothesis): Y[inverse] rebuilds X (along the axis too), counts sum
to the number of elements or slices, indices point to first occurrences, sorted output is sorted
(under the policy's NaN placement and slice order), and every output agrees with a naive
Python definition (a loop over elements, fine in a test) for every policy combination."""
from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from opconform import dtypes, oracle, specs

POOLS = {
    "int64": [-3, 0, 2, 7],
    "int8": [-128, 0, 1, 127],
    "uint16": [0, 1, 65535],
    "bool": [False, True],
    "float32": [0.0, -0.0, 1.5, -2.0, math.nan, math.inf],
    "float16": [0.0, -0.0, 1.0, math.nan],
    "bfloat16": [0.0, -0.0, 3.0, math.nan, -math.inf],
    "float64": [0.0, -0.0, 1e300, math.nan],
    "complex64": [0j, 1 + 0j, complex(0, -1), complex(math.nan, 0), complex(1, math.nan)],
    "string": ["", "a", "b", "ab", "é"],
}
OPENVINO_TYPES = ["int64", "int8", "uint16", "bool", "float32", "float16", "bfloat16", "float64"]
POLICIES = [dict(zip(("nan_equality", "nan_position", "subtensor_order"), c))
            for c in itertools.product(("equal", "distinct"), ("last", "first"), ("lexicographic", "colexicographic"))]
OPENVINO_POLICIES = [p | {"unsorted_order": o} for p in POLICIES for o in ("first_occurrence", "last_occurrence")]


@st.composite
def unique_case(draw, element_types, policies=tuple(POLICIES)):
    dtype = draw(st.sampled_from(element_types))
    shape = tuple(draw(st.lists(st.integers(0, 4), min_size=0, max_size=3)))
    n = int(np.prod(shape))
    picks = draw(st.lists(st.sampled_from(POOLS[dtype]), min_size=n, max_size=n))
    if dtype == "string":
        x = np.array(picks, dtype=object).reshape(shape)
    elif dtype.startswith("complex"):
        x = np.array(picks, dtype=np.complex64).reshape(shape)
    else:
        x = np.array(picks, dtype=np.float64 if "float" in dtype else None).astype(dtypes.numpy_dtype(dtype)).reshape(shape)
    axis = draw(st.none() | (st.integers(-len(shape), len(shape) - 1) if shape else st.none()))
    return x, axis, draw(st.booleans()), draw(st.sampled_from(policies))


def _is_nan(v) -> bool:
    return isinstance(v, (float, complex)) and v != v


def _element_key(v, where: int, policy: dict):
    """Python value standing for one element: equal keys <=> equal elements under the policy."""
    v = v.item() if hasattr(v, "item") else v
    if isinstance(v, np.generic) or type(v).__name__ == "bfloat16":
        v = float(v)
    if _is_nan(v):
        last = policy["nan_position"] == "last"
        return (1 if last else -1, 0 if policy["nan_equality"] == "equal" else where)
    if isinstance(v, complex):
        return (0, (v.real + 0.0, v.imag + 0.0))
    return (0, v + 0 if isinstance(v, (int, float)) and not isinstance(v, bool) else v)


def naive_unique(x: np.ndarray, axis: int | None, sorted_: bool, policy: dict):
    if axis is None:
        items = [(_element_key(v, i, policy),) for i, v in enumerate(x.reshape(-1))]
    else:
        moved = np.moveaxis(x, axis, 0)
        items = [tuple(_element_key(v, s, policy) for v in np.asarray(moved[s]).reshape(-1)) for s in range(moved.shape[0])]
    first: dict = {}
    last: dict = {}
    for i, key in enumerate(items):
        first.setdefault(key, i)
        last[key] = i
    groups = list(first)  # first-occurrence order
    if policy.get("unsorted_order") == "last_occurrence":
        groups.sort(key=last.__getitem__)
    if sorted_:
        rev = policy["subtensor_order"] == "colexicographic"
        groups.sort(key=lambda k: k[::-1] if rev else k)
    gid = {k: g for g, k in enumerate(groups)}
    indices = np.array([first[k] for k in groups], dtype=np.int64)
    inverse = np.array([gid[k] for k in items], dtype=np.int64)
    counts = np.bincount(inverse, minlength=len(groups)).astype(np.int64)
    return indices, inverse, counts


def _same_elements(a: np.ndarray, b: np.ndarray) -> bool:
    if a.shape != b.shape:
        return False
    return all(_element_key(u, 0, POLICIES[0]) == _element_key(v, 0, POLICIES[0]) for u, v in zip(a.reshape(-1), b.reshape(-1)))


def check_invariants(x, axis, sorted_, policy, outputs):
    y, indices, inverse, counts = outputs
    n = x.size if axis is None else x.shape[axis]
    assert counts.sum() == n and inverse.shape == (n,)
    rebuilt = y.reshape(-1)[inverse] if axis is None else np.take(y, inverse, axis=axis)
    assert _same_elements(rebuilt, x.reshape(-1) if axis is None else x), "Y[inverse] does not rebuild X"
    want_indices, want_inverse, want_counts = naive_unique(x, axis, sorted_, policy)
    assert list(indices) == list(want_indices), "indices are not the first occurrences in output order"
    assert list(inverse) == list(want_inverse) and list(counts) == list(want_counts)
    picked = x.reshape(-1)[indices] if axis is None else np.take(x, indices, axis=axis)
    assert _same_elements(y, picked) and dtypes.name_of(y.dtype) == dtypes.name_of(x.dtype)
    if not sorted_ and policy.get("unsorted_order", "first_occurrence") == "first_occurrence":
        assert list(indices) == sorted(indices), "sorted=0 must keep first-occurrence order"


@given(unique_case(list(POOLS)))
def test_onnx_unique_invariants(case):
    x, axis, sorted_, policy = case
    attrs = {"sorted": int(sorted_)} | ({} if axis is None else {"axis": axis})
    outputs = oracle.evaluate("onnx::Unique-28", [x], attrs, policy)
    assert all(o.dtype == np.int64 for o in outputs[1:])
    check_invariants(x, axis, sorted_, policy, outputs)


@given(unique_case(OPENVINO_TYPES, tuple(OPENVINO_POLICIES)), st.sampled_from(["i32", "i64"]), st.sampled_from(["i32", "i64"]),
       st.sampled_from([np.int32, np.int64]), st.booleans())
def test_openvino_unique_invariants(case, index_type, count_type, axis_type, scalar_axis):
    x, axis, sorted_, policy = case
    axis_input = None if axis is None else np.array(axis if scalar_axis else [axis], dtype=axis_type)
    attrs = {"sorted": sorted_, "index_element_type": index_type, "count_element_type": count_type}
    outputs = oracle.evaluate("openvino::Unique-10", [x, axis_input], attrs, policy)
    want = {"i32": np.int32, "i64": np.int64}
    assert [o.dtype for o in outputs[1:]] == [want[index_type], want[index_type], want[count_type]]
    check_invariants(x, axis, sorted_, policy, outputs)


@pytest.mark.parametrize("spec_id", ["onnx::Unique-11", "openvino::Unique-10"])
def test_rank0_and_empty(spec_id):
    spec = specs.load(spec_id)
    extra = [None] if spec.dialect == "openvino" else []
    y, idx, inv, cnt = oracle.evaluate(spec, [np.array(5.0, np.float32)] + extra, {})
    assert (y.tolist(), idx.tolist(), inv.tolist(), cnt.tolist()) == ([5.0], [0], [0], [1])
    y, idx, inv, cnt = oracle.evaluate(spec, [np.zeros((0, 3), np.float32)] + extra, {})
    assert y.shape == (0,) and idx.size == inv.size == cnt.size == 0


NAN_GRID = np.array([[1.0, math.nan, 0.0], [-0.0, math.nan, 2.0], [1.0, math.nan, 0.0], [math.nan, 1.0, -1.0]], np.float32)


@pytest.mark.parametrize("policy", POLICIES, ids=lambda p: "-".join(p.values()))
@pytest.mark.parametrize("axis", [None, 0, 1, -1])
@pytest.mark.parametrize("sorted_", [False, True])
def test_every_policy_on_nans_and_signed_zeros(policy, axis, sorted_):
    for x in (NAN_GRID, NAN_GRID.T.copy(), NAN_GRID.astype(np.complex64) * (1 - 1j)):
        attrs = {"sorted": int(sorted_)} | ({} if axis is None else {"axis": axis})
        outputs = oracle.evaluate("onnx::Unique-28", [x], attrs, policy)
        check_invariants(x, None if axis is None else axis % 2, sorted_, policy, outputs)


@pytest.mark.parametrize("policy", OPENVINO_POLICIES, ids=lambda p: "-".join(p.values()))
@pytest.mark.parametrize("axis", [None, 0, -1])
def test_openvino_unsorted_orders(policy, axis):
    x = np.array([[2, 1, 1], [2, 5, 5], [1, 1, 1], [2, 5, 5]], np.int32)
    axis_input = None if axis is None else np.array([axis], np.int64)
    outputs = oracle.evaluate("openvino::Unique-10", [x, axis_input], {"sorted": False}, policy)
    check_invariants(x, None if axis is None else axis % 2, False, policy, outputs)
