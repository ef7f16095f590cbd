"""A case that goes silent for the whole per-case timeout shortens the timeout of the other cases
of its model signature (a hang comes back on every case of its model): they still run, answer in
time for their own verdict, or time out sooner with a message that says why; cases of other
signatures keep the full timeout. A case that passes the memory limit lowers the limit of its
signature's other cases the same way."""
import json
import multiprocessing

import numpy as np
import pytest

from helpers_runner import BROKEN
from opconform import oracle, specs
from opconform.backends.testing import broken
from opconform.model import Case
from opconform.suites import pool as pool_module
from opconform.suites.plan import group_key
from opconform.suites.pool import WorkerPool

SPEC = "onnx::Abs-13"
pytestmark = pytest.mark.slow  # two whole timeouts and a share of one
TIMEOUT = 12.0  # a sixth of it, 2 s, is still ample for a fresh worker's first case on a loaded machine


def _case(shape: tuple[int, ...], fill: float) -> Case:
    spec = specs.load(SPEC)
    x = np.full(shape, fill, np.float32)
    return Case(SPEC, {}, (x,), (True,), oracle.expectation(spec, (x,), {}))


@pytest.fixture(scope="module")
def hung_run(tmp_path_factory):
    # three cases of one signature (float32, rank 1), then one of another (rank 2)
    cases = [_case((2,), -1.0), _case((3,), -2.0), _case((4,), -3.0), _case((2, 2), -4.0)]
    behaviours = ["hang", "hang", "pass", "hang"]
    plan = tmp_path_factory.mktemp("hung") / "plan.json"
    plan.write_text(json.dumps({c.id: b for c, b in zip(cases, behaviours)}))
    got, lost = {}, {}
    pool = WorkerPool(BROKEN, jobs=1, timeout=TIMEOUT, memory_limit_mb=None, shard=None,
                      on_result=lambda j: got.setdefault(j.case_id, []).append(j.verdict),
                      on_lost=lambda item, status, message: lost.setdefault(item[1].id, []).append((status, message)))
    pool._ctx = multiprocessing.get_context("spawn")  # the workers read the plan from their environment
    mp = pytest.MonkeyPatch()
    mp.setenv(broken.PLAN_ENV, str(plan))
    try:
        pool.run([[(SPEC, c) for c in cases]], {SPEC: specs.load(SPEC)})
    finally:
        mp.undo()
    return cases, got, lost


def test_the_cases_share_signatures_as_planned():
    a, b, c, d = _case((2,), -1.0), _case((3,), -2.0), _case((4,), -3.0), _case((2, 2), -4.0)
    assert group_key(SPEC, a) == group_key(SPEC, b) == group_key(SPEC, c) != group_key(SPEC, d)


def test_the_first_hang_waits_the_whole_timeout(hung_run):
    cases, got, lost = hung_run
    (status, message), = lost[cases[0].id]
    assert status == "timeout" and f"the {TIMEOUT:g} s per-case timeout" in message


def test_later_hangs_of_that_signature_time_out_sooner_and_say_why(hung_run):
    cases, got, lost = hung_run
    (status, message), = lost[cases[1].id]
    short = TIMEOUT * pool_module.HUNG_SIGNATURE_SHARE  # the broken backend builds nothing: no longer
    assert status == "timeout"
    assert f"no result within {short:g} s" in message and "already went silent" in message


def test_a_case_of_that_signature_that_answers_gets_its_own_verdict(hung_run):
    cases, got, lost = hung_run
    assert got[cases[2].id] == ["pass"] and cases[2].id not in lost


def test_another_signature_keeps_the_whole_timeout(hung_run):
    cases, got, lost = hung_run
    (status, message), = lost[cases[3].id]
    assert status == "timeout" and f"the {TIMEOUT:g} s per-case timeout" in message


@pytest.fixture(scope="module")
def blown_run(tmp_path_factory):
    # a runaway allocation in one signature (float32, rank 1), then one in another (rank 2)
    cases = [_case((2,), -1.0), _case((3,), -2.0), _case((4,), -3.0), _case((2, 2), -4.0)]
    behaviours = ["memory", "memory", "pass", "memory"]
    plan = tmp_path_factory.mktemp("blown") / "plan.json"
    plan.write_text(json.dumps({c.id: b for c, b in zip(cases, behaviours)}))
    got, lost = {}, {}
    pool = WorkerPool(BROKEN, jobs=1, timeout=60, memory_limit_mb=MEMORY_MB, shard=None,
                      on_result=lambda j: got.setdefault(j.case_id, []).append(j.verdict),
                      on_lost=lambda item, status, message: lost.setdefault(item[1].id, []).append((status, message)))
    pool._ctx = multiprocessing.get_context("spawn")
    mp = pytest.MonkeyPatch()
    mp.setenv(broken.PLAN_ENV, str(plan))
    try:
        pool.run([[(SPEC, c) for c in cases]], {SPEC: specs.load(SPEC)})
    finally:
        mp.undo()
    return cases, got, lost


MEMORY_MB = 2048


def test_a_signature_that_passed_the_memory_limit_gets_a_share_of_it(blown_run):
    cases, got, lost = blown_run
    (status, first), = lost[cases[0].id]
    assert status == "crash" and f"passed the {MEMORY_MB} MiB limit" in first
    (status, later), = lost[cases[1].id]
    low = int(MEMORY_MB * pool_module.BLOWN_SIGNATURE_SHARE)
    assert status == "crash" and f"passed {low} MiB (the memory limit is {MEMORY_MB} MiB" in later
    assert got[cases[2].id] == ["pass"]
    (status, other), = lost[cases[3].id]
    assert status == "crash" and f"passed the {MEMORY_MB} MiB limit" in other
