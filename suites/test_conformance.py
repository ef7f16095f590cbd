"""The conformance suites as pytest items: `pytest --pyargs opconform.suites --backend NAME`.

Each item draws cases of one spec version with the generator's Hypothesis strategy (expected
outputs from the oracle), runs them in-process on the backend and judges them exactly as
`opconform run` does. A failing case makes the item fail, after Hypothesis has shrunk it to a
minimal one. Cases the backend declares unsupported are not failures; an item where every case
was unsupported is skipped with the backend's reason. Options: see opconform/suites/pytest_plugin.py.
"""
from __future__ import annotations

import functools

import pytest
from hypothesis import HealthCheck, given, note, settings

from opconform import backends, generator, oracle, specs
from opconform.model import Verdict
from opconform.suites.verdicts import judge


@functools.lru_cache(maxsize=None)
def _backend(name: str):
    return backends.get(name)  # one per process: it caches built models per signature


def test_conformance(opconform_backend, opconform_spec, request):
    if opconform_backend is None:
        pytest.skip("no backend given: pass --backend NAME (e.g. --backend reference)")
    spec = specs.load(opconform_spec)
    backend = _backend(opconform_backend)
    reason = backend.accepts(spec)
    if reason:
        pytest.skip(reason)
    unsupported: list[str] = []
    ran: list[str] = []

    @settings(
        max_examples=request.config.getoption("opconform_examples"),
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
    )
    @given(generator.cases(spec, profile=request.config.getoption("opconform_profile"), expect=oracle.expectation))
    def check(case):
        outcome = backend.execute(spec, case)
        verdict, detail, _ = judge(spec, case, outcome)
        if verdict is Verdict.UNSUPPORTED:
            unsupported.append(detail)
            return
        ran.append(case.id)
        note(f"case {case.id} ({case.label}): {verdict.value}")
        if verdict.is_failure:
            said = f"\nbackend said: {outcome.message}" if outcome.message else ""
            raise AssertionError(f"{opconform_backend} {spec.id}: {verdict.value}: {detail}{said}")

    check()
    if not ran:
        pytest.skip(f"every case drawn was unsupported by {opconform_backend}: {unsupported[0] if unsupported else '?'}")
