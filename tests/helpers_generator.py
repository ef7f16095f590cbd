"""Shared pieces of the generator's tests: the specs under test and cached draws."""
from __future__ import annotations

from functools import lru_cache

import pytest

from opconform import specs
from opconform.model import SpecVersion

# the spec versions of the foundation issue; every one must exist (a missing file fails the
# test that asks for it, naming the spec)
SPEC_IDS = (
    "onnx::Unique-11", "onnx::Unique-28", "onnx::GatherND-11", "onnx::GatherND-12", "onnx::GatherND-13",
    "openvino::Unique-10", "openvino::GatherND-5", "openvino::GatherND-8",
)


def load_or_fail(spec_id: str) -> SpecVersion:
    """The spec version under test; a missing spec file or version fails the test, naming it."""
    try:
        return specs.load(spec_id)
    except KeyError as e:
        missing = e.args[0]
    pytest.fail(f"{spec_id}: the test needs this spec version and the library has none ({missing})", pytrace=False)


@lru_cache(maxsize=None)
def drawn(spec_id: str, count: int, seed: int, kind: str = "any", profile: str = "smoke"):
    """generate() once per argument tuple for the whole test session."""
    from opconform.generator import generate

    return tuple(generate(load_or_fail(spec_id), count, seed, kind=kind, profile=profile))


def valid_and_invalid(cases):
    valid = [c for c in cases if c.expected.kind == "outputs"]
    invalid = [c for c in cases if c.expected.kind == "error"]
    return valid, invalid


def broken_exactly(spec: SpecVersion, case) -> list[str]:
    """Ids of the relations a case breaks (broken or unevaluable), in spec order."""
    return [s.id for s in specs.check_all(spec, list(case.inputs), dict(case.attributes))
            if s.state in ("broken", "unevaluable")]


def draft_of(spec: SpecVersion, arrays, attributes=None):
    """A ci-profile draft holding these inputs (None: left out) and attributes, as the steps leave it."""
    from opconform.generator import profiles
    from opconform.generator.draft import Draft

    d = Draft(spec, profiles.get("ci"))
    d.present = [x is not None for x in arrays]
    d.dtypes = [None if x is None else str(x.dtype) for x in arrays]
    d.inputs = list(arrays)
    d.constant_inputs = [False] * len(arrays)
    d.attributes = dict(attributes or {})
    return d


def assert_must_refuse_drafts(spec: SpecVersion, relation: str, tries: int, at_least: int) -> None:
    """Each must-refuse draft counted (invalid_drafts, no retries): at least `at_least` of `tries`
    give a case, and every case breaks `relation` first."""
    from opconform.generator import sampling, strategies

    strategy = strategies.invalid_drafts(spec, "ci", [relation])
    drafts = [d for k in range(tries) if (d := sampling.draw_one(strategy, f"refuse:{spec.id}:{relation}:{k}")) is not None]
    assert len(drafts) >= at_least, f"{tries - len(drafts)} of {tries} tries to break {relation} rejected"
    for d in drafts:
        failing = [s for s in specs.check_all(spec, list(d.inputs), dict(d.attributes)) if s.state == "broken"]
        assert failing[0].id == relation, [s.id for s in failing]


def assert_drawn_without_a_hook(spec_id: str, t: int, cap: float = 0.10, n: int = 60) -> None:
    """The spec version has no generator hook and at most `cap` of its valid drafts (free, t=0,
    or pinned to the t-wise covering rows) are rejected; the message names the commonest reasons."""
    from collections import Counter

    from opconform.generator import hooks, sampling

    spec = specs.load(spec_id)
    assert hooks.module_for(spec) is None
    log: list[str] = []
    rate = sampling.rejection_rate(spec, "ci", n, t=t, log=log)
    assert rate <= cap, f"{rate:.0%} of valid draws rejected: {Counter(log).most_common(3)}"
