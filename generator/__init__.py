"""Generator: Hypothesis strategies of cases derived from specs, and test-data file writers.

    >>> from opconform import specs, oracle
    >>> from opconform.generator import cases, generate, has_strategy
    >>> v = specs.load("onnx::GatherND-13")
    >>> strategy = cases(v, kind="invalid", expect=oracle.expectation)   # shrinks; use in @given
    >>> batch = generate(v, 100, seed=7, expect=oracle.expectation)      # same seed, same cases

The generator never imports the oracle: the expectation function is passed in (`expect=`).
Operator hooks and family strategies: docs/generator-hooks.md.
"""
from opconform.generator.profiles import PROFILES, Profile
from opconform.generator.sampling import generate, has_strategy
from opconform.generator.strategies import cases, drafts, invalid_drafts

__all__ = ["cases", "generate", "has_strategy", "drafts", "invalid_drafts", "PROFILES", "Profile"]
