"""GatherND oracle agrees with a naive per-tuple definition (a Python loop, fine in a test),
for every batch_dims, negative indices (ONNX), empty tensors, and both OpenVINO versions'
output shapes; and it shapes the seed document's IR layer examples as the documents say."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from opconform import dtypes, oracle

ONNX_DTYPES = ["int32", "float32", "bfloat16", "bool", "complex64", "string", "uint8"]
OPENVINO_DTYPES = ["int32", "float32", "bfloat16", "bool", "float16", "uint8"]


def naive_gather_nd(data: np.ndarray, indices: np.ndarray, b: int) -> np.ndarray:
    m = indices.shape[-1]
    out = np.empty(indices.shape[:-1] + data.shape[b + m:], dtype=data.dtype)
    for pos in np.ndindex(indices.shape[:-1]):
        tup = tuple(int(i) + (data.shape[b + j] if i < 0 else 0) for j, i in enumerate(indices[pos]))
        out[pos] = data[pos[:b] + tup]
    return out


def _values(dtype: str, shape: tuple, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    raw = rng.integers(-50, 50, size=shape)
    if dtype == "string":
        return raw.astype(str).astype(object)
    if dtype == "complex64":
        return (raw + 1j * raw[::-1] if raw.ndim else raw + 0j).astype(np.complex64)
    return raw.astype(dtypes.numpy_dtype(dtype))


@st.composite
def gather_case(draw, *, negative: bool, allow_empty_tuple: bool, element_types: list[str]):
    b = draw(st.integers(0, 2))
    batch = tuple(draw(st.lists(st.integers(0, 3), min_size=b, max_size=b)))
    indexed = tuple(draw(st.lists(st.integers(1, 3), min_size=1, max_size=3)))
    rest = tuple(draw(st.lists(st.integers(0, 2), min_size=0, max_size=2)))
    m = draw(st.integers(0 if allow_empty_tuple else 1, len(indexed)))
    data_shape = batch + indexed + rest
    mid = tuple(draw(st.lists(st.integers(0, 3), min_size=0, max_size=2)))
    idx_shape = batch + mid + (m,)
    seed = draw(st.integers(0, 2**16))
    rng = np.random.default_rng(seed)
    dims = np.array(indexed[:m], dtype=np.int64)
    lo = -dims if negative else np.zeros_like(dims)
    indices = (rng.integers(0, 1 << 30, size=idx_shape) % (dims - lo if m else 1) + (lo if m else 0)).astype(np.int64)
    dtype = draw(st.sampled_from(element_types))
    return _values(dtype, data_shape, seed), indices, b


@given(gather_case(negative=True, allow_empty_tuple=False, element_types=ONNX_DTYPES))
def test_onnx_gathernd_matches_naive(case):
    data, indices, b = case
    (got,) = oracle.evaluate("onnx::GatherND-13", [data, indices], {"batch_dims": b})
    want = naive_gather_nd(data, indices, b)
    assert got.dtype == want.dtype and got.shape == want.shape
    assert np.array_equal(got, want) or (got.dtype == object and list(got.ravel()) == list(want.ravel()))


@pytest.mark.parametrize("version", [5, 8])
@given(case=gather_case(negative=False, allow_empty_tuple=True, element_types=OPENVINO_DTYPES))
def test_openvino_gathernd_matches_naive(version, case):
    data, indices, b = case
    indices = indices.astype(np.int32)
    (got,) = oracle.evaluate(f"openvino::GatherND-{version}", [data, indices], {"batch_dims": b})
    want = naive_gather_nd(data, indices, b)
    if version == 5 and b > 0:  # GatherND-5 flattens the batch dimensions into one
        want = want.reshape((int(np.prod(indices.shape[:b])),) + want.shape[b:])
    assert got.dtype == want.dtype and got.shape == want.shape
    assert np.array_equal(got, want)


# The IR <layer> examples of the OpenVINO documents: (data shape, indices shape, batch_dims, output shape).
IR_EXAMPLES = {
    5: [((1000, 256, 10, 15), (25, 125, 3), 0, (25, 125, 15)),
        ((30, 2, 100, 35), (30, 2, 3, 1), 2, (60, 3, 35))],
    8: [((1000, 256, 10, 15), (25, 125, 3), 0, (25, 125, 15)),
        ((30, 2, 100, 35), (30, 2, 3, 1), 2, (30, 2, 3, 35)),
        ((1, 64, 64, 320), (1, 64, 64, 1, 1), 3, (1, 64, 64, 1))],
}


@pytest.mark.parametrize("version, data_shape, indices_shape, b, out_shape",
                         [(v, *e) for v, es in IR_EXAMPLES.items() for e in es])
def test_openvino_ir_examples_output_shape(version, data_shape, indices_shape, b, out_shape):
    data = np.zeros(data_shape, dtype=np.uint8)
    data.reshape(-1)[-1] = 7  # a value the zero indices must not pick
    indices = np.zeros(indices_shape, dtype=np.int64)
    (got,) = oracle.evaluate(f"openvino::GatherND-{version}", [data, indices], {"batch_dims": b})
    assert got.shape == out_shape
    assert not got.any()
