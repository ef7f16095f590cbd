"""OpenVINO SparseFillEmptyRows-16: after the operation every row of the dense shape has an entry,
the added ones are exactly [row, 0] of the empty rows with default_value, the input entries are all
kept, and the entries come in row-major order."""
from __future__ import annotations

import numpy as np
import pytest

from opconform import oracle, specs


@pytest.mark.parametrize("seed", range(5))
def test_every_row_gets_an_entry_and_nothing_else_changes(seed):
    rng = np.random.default_rng(seed)
    rows, cols, m = 6, 4, int(rng.integers(0, 8))
    indices = np.stack([rng.integers(0, rows, m), rng.integers(0, cols, m)], axis=1).astype(np.int64)
    values = rng.integers(-9, 9, m).astype(np.int32)
    out_idx, out_val, empty = oracle.evaluate(specs.load("openvino::SparseFillEmptyRows-16"),
                                              [values, np.array([rows, cols]), indices, np.array(100, np.int32)], {})
    assert set(out_idx[:, 0].tolist()) == set(range(rows))
    assert empty.tolist() == [r not in set(indices[:, 0].tolist()) for r in range(rows)]
    added = [(tuple(i), v) for i, v in zip(out_idx.tolist(), out_val.tolist()) if v == 100]
    assert sorted(added) == [((r, 0), 100) for r in np.flatnonzero(empty)]
    kept = sorted(zip(map(tuple, indices.tolist()), values.tolist()))
    assert sorted((tuple(i), v) for i, v in zip(out_idx.tolist(), out_val.tolist()) if v != 100) == kept
    keys = out_idx[:, 0] * cols + out_idx[:, 1]
    assert np.all(np.diff(keys) >= 0)  # row-major
