"""A case that goes silent for the whole per-case timeout shortens the timeout of the other cases
of its model signature (a hang comes back on every case of its model): they still run, answer in
time for their own verdict, or time out sooner with a message that says why; cases of other
signatures keep the full timeout. A must-refuse case shortens it for the cases that break the same
relation with the same element types too, whatever their shapes. A case that passes the memory limit lowers the limit of its
signature's other cases the same way."""

import re

import numpy as np
import pytest

from helpers_runner import run_planned
from opconform import oracle, specs
from opconform.model import Case, Expectation
from opconform.suites import pool as pool_module
from opconform.suites.plan import group_key

SPEC = "onnx::Abs-13"
pytestmark = pytest.mark.slow  # two whole timeouts and a share of one
TIMEOUT = 12.0  # a sixth of it, 2 s, is still ample for a fresh worker's first case on a loaded machine


def _case(shape: tuple[int, ...], fill: float) -> Case:
    spec = specs.load(SPEC)
    x = np.full(shape, fill, np.float32)
    return Case(SPEC, {}, (x,), (True,), oracle.expectation(spec, (x,), {}))


def _cases() -> list[Case]:
    """Three cases of one signature (float32, rank 1), then one of another (rank 2)."""
    return [_case((2,), -1.0), _case((3,), -2.0), _case((4,), -3.0), _case((2, 2), -4.0)]


@pytest.fixture(scope="module")
def hung_run(tmp_path_factory):
    cases = _cases()
    got, lost, _ = run_planned(SPEC, cases, ["hang", "hang", "pass", "hang"], tmp_path_factory.mktemp("hung"),
                               timeout=TIMEOUT)
    return cases, got, lost


def test_the_cases_share_signatures_as_planned():
    a, b, c, d = _cases()
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
    cases = _cases()  # a runaway allocation where the hang was
    got, lost, _ = run_planned(SPEC, cases, ["memory", "memory", "pass", "memory"], tmp_path_factory.mktemp("blown"),
                               timeout=60, memory_limit_mb=MEMORY_MB)
    return cases, got, lost


MEMORY_MB = 2048


def test_a_signature_that_passed_the_memory_limit_gets_a_share_of_it(blown_run):
    cases, got, lost = blown_run
    (status, first), = lost[cases[0].id]
    assert status == "crash" and f"passed the {MEMORY_MB} MiB limit" in first
    (status, later), = lost[cases[1].id]
    # a quarter of what the limit leaves above the loaded worker: under half the limit, over a quarter
    low = int(re.search(r"passed (\d+) MiB \(the memory limit is", later).group(1))
    assert status == "crash" and f"(the memory limit is {MEMORY_MB} MiB" in later
    assert MEMORY_MB * pool_module.BLOWN_SIGNATURE_SHARE <= low < MEMORY_MB / 2
    assert got[cases[2].id] == ["pass"]
    (status, other), = lost[cases[3].id]
    assert status == "crash" and f"passed the {MEMORY_MB} MiB limit" in other


def _refused(x: np.ndarray) -> Case:
    return Case(SPEC, {}, (x,), (True,), Expectation("error", relation="X_type"))


@pytest.fixture(scope="module")
def hung_refusals(tmp_path_factory):
    """Must-refuse cases breaking X_type: bool of rank 1, bool of rank 2 (another model signature),
    then complex64 (another element type)."""
    cases = [_refused(np.zeros(2, bool)), _refused(np.zeros((3, 3), bool)), _refused(np.zeros(2, np.complex64))]
    got, lost, _ = run_planned(SPEC, cases, ["hang", "hang", "hang"], tmp_path_factory.mktemp("hung-refusals"),
                               timeout=TIMEOUT)
    return cases, got, lost


def test_a_hang_on_a_broken_relation_shortens_it_for_that_relation_and_type_in_any_shape(hung_refusals):
    cases, got, lost = hung_refusals
    assert group_key(SPEC, cases[0]) != group_key(SPEC, cases[1])
    (status, first), = lost[cases[0].id]
    assert status == "timeout" and f"the {TIMEOUT:g} s per-case timeout" in first
    (status, later), = lost[cases[1].id]
    short = TIMEOUT * pool_module.HUNG_SIGNATURE_SHARE
    assert status == "timeout" and f"no result within {short:g} s" in later and "same relation" in later
    (status, other), = lost[cases[2].id]
    assert status == "timeout" and f"the {TIMEOUT:g} s per-case timeout" in other
