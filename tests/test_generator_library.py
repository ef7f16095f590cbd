"""Every spec version in the library generates cases with expectations under the runner's ci
profile: no strategy, hook or oracle raises while drawing them."""
from __future__ import annotations

import warnings

import pytest

from opconform import oracle, specs
from opconform.generator import generate, has_strategy

VERSIONS = [v.id for v in specs.all_versions()]


@pytest.mark.slow
@pytest.mark.parametrize("spec_id", VERSIONS)
def test_every_spec_version_generates_20_cases_with_expectations(spec_id):
    spec = specs.load(spec_id)
    if not has_strategy(spec):
        pytest.skip(f"{spec_id}: the generator has no strategy for it (has_strategy is False)")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # NumPy warns on NaN/inf edge values by design
        batch = generate(spec, 20, seed=0, profile="ci", expect=oracle.expectation)
    assert batch, spec_id
    assert all(c.expected.kind in ("outputs", "error", "undefined") for c in batch)
