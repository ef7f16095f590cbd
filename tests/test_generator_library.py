"""Every spec version in the library generates cases with expectations under the runner's ci
profile: no strategy, hook or oracle raises while drawing them."""
from __future__ import annotations

import warnings

import pytest

from opconform import oracle, specs
from opconform.generator import generate

VERSIONS = [v.id for v in specs.all_versions()]


@pytest.mark.slow
@pytest.mark.parametrize("spec_id", VERSIONS)
def test_every_spec_version_generates_20_cases_with_expectations(spec_id):
    spec = specs.load(spec_id)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # NumPy warns on NaN/inf edge values by design
        # drawn directly, not through has_strategy(), which answers False on a strategy's error
        # and so would hide it: every spec version must draw valid cases
        assert generate(spec, 3, 0, kind="valid"), f"{spec_id}: no valid case drawn"
        batch = generate(spec, 20, seed=0, profile="ci", expect=oracle.expectation)
    assert batch, spec_id
    assert all(c.expected.kind in ("outputs", "error", "undefined") for c in batch)
