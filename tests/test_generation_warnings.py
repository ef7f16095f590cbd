"""No Python warning during generation: every spec version planned as `opconform run --profile ci`
plans it (covering rows, free draws, must-refuse cases, value variants, the oracle's expected
outputs, the relation checks), with every warning turned into an error.

The generator draws NaN, inf, subnormals and the extremes of every element type on purpose, so
the code that meets them must say so where it does (np.errstate around the operation that meets
the expected case), not leave the warnings for a filter to hide: a new warning fails here, with
its source line. plan._generate is the pool task's body without cases_for's own guard, which is
what this test checks. Warnings are recorded rather than raised: raised, one inside a relation
check or a Hypothesis draw would be caught there (an unevaluable relation, a rejected draw) and
change the cases instead of failing the test."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

from opconform.suites import plan

SEED = 11


@pytest.mark.slow
def test_planning_every_spec_version_under_ci_warns_nothing():
    versions, bad_files = plan.select(None)
    assert not bad_files
    failed: dict[str, str] = {}
    seen: dict[str, str] = {}  # warning with its source line -> the first spec version that raised it
    for v in versions:
        # NumPy's default settings (underflow ignored), whatever an earlier test left
        with warnings.catch_warnings(record=True) as caught, np.errstate(divide="warn", over="warn", invalid="warn",
                                                                          under="ignore"):
            warnings.simplefilter("always")
            result = plan._generate(v.id, "ci", SEED)
        for w in caught:
            seen.setdefault(f"{w.category.__name__} at {w.filename}:{w.lineno}: {w.message}", v.id)
        if result.error is not None:
            failed[v.id] = result.error
    assert not seen, "\n".join(f"{k} ({spec})" for k, spec in seen.items())
    assert not failed, "\n".join(f"{k}: {e}" for k, e in failed.items())
