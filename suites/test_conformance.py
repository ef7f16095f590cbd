"""The conformance suites as pytest items: `pytest --pyargs opconform.suites --backend NAME`.

Each item draws cases of one spec version with the generator's Hypothesis strategy (expected
outputs from the oracle), runs them in-process on the backend and judges them exactly as
`opconform run` does. A failing case makes the item fail, after Hypothesis has shrunk it to a
minimal one. Cases the backend declares unsupported are not failures; an item where every case
was unsupported is skipped with the backend's reason. With --isolate the cases run in a worker
process (the runner's), so a crash or hang is a crash or timeout verdict instead of the end of the
session. Options: see opconform/suites/pytest_plugin.py.
"""
from __future__ import annotations

import functools

import pytest
from hypothesis import HealthCheck, given, note, settings

from opconform import backends, generator, oracle, specs
from opconform.model import Verdict
from opconform.suites.isolated import IsolatedBackend, Judged
from opconform.suites.verdicts import judge


@functools.lru_cache(maxsize=None)
def _backend(name: str):
    return backends.get(name)  # one per process: it caches built models per signature


@functools.lru_cache(maxsize=None)
def _isolated(name: str, timeout: float) -> IsolatedBackend:
    return IsolatedBackend(name, timeout=timeout)  # one worker per pytest process, respawned after a death


def _run_case(config, name: str, spec, case) -> Judged:
    """Execute and judge one case: in-process (the default), or in a worker process (--isolate)."""
    if config.getoption("opconform_isolate"):
        return _isolated(name, config.getoption("opconform_case_timeout")).run(spec, case)
    outcome = _backend(name).execute(spec, case)
    verdict, detail, _ = judge(spec, case, outcome)
    return Judged(verdict, detail, outcome.message)


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
        j = _run_case(request.config, opconform_backend, spec, case)
        if j.verdict is Verdict.UNSUPPORTED:
            unsupported.append(j.detail)
            return
        ran.append(case.id)
        note(f"case {case.id} ({case.label}): {j.verdict.value}")
        if j.verdict.is_failure:
            said = f"\nbackend said: {j.backend_message}" if j.backend_message else ""
            raise AssertionError(f"{opconform_backend} {spec.id}: {j.verdict.value}: {j.detail}{said}")

    check()
    if not ran:
        pytest.skip(f"every case drawn was unsupported by {opconform_backend}: {unsupported[0] if unsupported else '?'}")
