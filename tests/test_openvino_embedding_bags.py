"""OpenVINO's embedding operations (EmbeddingBagOffsets-15 and -Sum-3, EmbeddingBagPacked-15 and
-Sum-3, EmbeddingSegmentsSum-3): the oracle computes what the documents' own formulations compute
-- the NumPy snippet of the offsets documents run as written, the packed documents' Gather and
ReduceSum/ReduceMean, TensorFlow's segment sum -- on drawn inputs, and leaves integer overflow
undefined."""
from __future__ import annotations

from typing import Literal, Optional

import numpy as np
import pytest

from opconform import oracle, specs
from opconform.model import RelationBroken


def embedding_bag_offsets(emb_table: np.ndarray, indices: np.ndarray, offsets: np.ndarray,
                          default_index: Optional[int] = None, per_sample_weights: Optional[np.ndarray] = None,
                          reduction: Literal["sum", "mean"] = "sum"):
    """The document's snippet (EmbeddingBagOffsets-15), unchanged but for the one-line assert."""
    assert reduction == "sum" or per_sample_weights is None
    if per_sample_weights is None:
        per_sample_weights = np.ones_like(indices)
    embeddings = []
    for emb_idx, emb_weight in zip(indices, per_sample_weights):
        embeddings.append(emb_table[emb_idx] * emb_weight)
    previous_offset = offsets[0]
    bags = []
    offsets = np.append(offsets, len(indices))
    for bag_offset in offsets[1:]:
        bag_size = bag_offset - previous_offset
        if bag_size != 0:
            embedding_bag = embeddings[previous_offset:bag_offset]
            reduced_bag = np.add.reduce(embedding_bag)
            if reduction == "mean":
                reduced_bag = reduced_bag / bag_size
            bags.append(reduced_bag)
        else:
            if default_index is not None and default_index != -1:
                bags.append(emb_table[default_index])
            else:
                bags.append(np.zeros(emb_table.shape[1:]))
        previous_offset = bag_offset
    return np.stack(bags, axis=0)


def _draw(rng, n_emb=6, n_idx=7, batch=4):
    table = rng.standard_normal((n_emb, 2, 3))
    indices = rng.integers(0, n_emb, n_idx)
    offsets = np.sort(rng.integers(0, n_idx + 1, batch))
    return table, indices, offsets


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("reduction", ["sum", "mean"])
def test_offsets_match_the_documents_snippet(seed, reduction):
    rng = np.random.default_rng(seed)
    table, indices, offsets = _draw(rng)
    default = int(rng.integers(-1, 6)) if seed % 2 else None
    weights = rng.standard_normal(indices.shape) if reduction == "sum" and seed % 3 else None
    want = embedding_bag_offsets(table, indices, offsets, default, weights, reduction)
    args = [table, indices, offsets, None if default is None else np.array(default), weights]
    (got,) = oracle.evaluate(specs.load("openvino::EmbeddingBagOffsets-15"), args, {"reduction": reduction})
    assert np.allclose(got, want, rtol=1e-12, atol=1e-12)
    if reduction == "sum":
        (summed,) = oracle.evaluate(specs.load("openvino::EmbeddingBagOffsetsSum-3"), args, {})
        assert np.array_equal(summed, got)


@pytest.mark.parametrize("seed", range(4))
def test_packed_is_gather_then_reduce(seed):
    rng = np.random.default_rng(seed)
    table = rng.standard_normal((5, 3))
    indices = rng.integers(0, 5, (4, 3))
    weights = rng.standard_normal(indices.shape)
    gathered = table[indices]  # Gather(emb_table, indices, axis=0)
    spec = specs.load("openvino::EmbeddingBagPacked-15")
    (weighted,) = oracle.evaluate(spec, [table, indices, weights], {"reduction": "sum"})
    (mean,) = oracle.evaluate(spec, [table, indices, None], {"reduction": "mean"})
    assert np.allclose(weighted, np.sum(gathered * weights[..., None], axis=1), rtol=1e-12)
    assert np.allclose(mean, np.mean(gathered, axis=1), rtol=1e-12)
    (summed,) = oracle.evaluate(specs.load("openvino::EmbeddingBagPackedSum-3"), [table, indices, weights], {})
    assert np.array_equal(summed, weighted)


def test_segments_sum_rows_by_sorted_ids_and_fill_empty_ones():
    rng = np.random.default_rng(1)
    table = rng.integers(-5, 5, (4, 2)).astype(np.int32)
    indices = np.array([3, 0, 1, 1, 2], np.int64)
    ids = np.array([0, 0, 2, 2, 4], np.int64)
    spec = specs.load("openvino::EmbeddingSegmentsSum-3")
    (got,) = oracle.evaluate(spec, [table, indices, ids, np.array(6, np.int64), np.array(1, np.int64), None], {})
    want = np.stack([table[3] + table[0], table[1], 2 * table[1], table[1], table[2], table[1]])
    assert np.array_equal(got, want)


def test_an_integer_bag_past_its_type_is_undefined():
    table = np.array([[100], [100]], np.int8)
    spec = specs.load("openvino::EmbeddingBagPackedSum-3")
    with pytest.raises(RelationBroken, match="integer_overflow"):
        oracle.evaluate(spec, [table, np.array([[0, 1]], np.int32), None], {})
    (fits,) = oracle.evaluate(spec, [table, np.array([[0, 1]], np.int32), np.array([[1, -1]], np.int8)], {})
    assert fits.tolist() == [[0]]
