"""The worker pool after a death: a spare worker, started beforehand with the backend loaded, takes
over; a death in opconform's own code that the case does not repeat alone in an unused worker is
damage the backend left earlier (a corrupted heap caught by glibc in our code), never the case's
harness-error; a death that does repeat is opconform's."""
import json

import numpy as np
import pytest

from helpers_runner import BROKEN, run_planned
from opconform import oracle, specs
from opconform.backends.testing import broken
from opconform.model import Case

SPEC = "onnx::Abs-13"
# in this order, in one batch, on one worker: "damage" answers right and leaves the process to die
# at the start of the next case, which is in opconform's code; "damage-now" dies in opconform's
# reading of its own outputs, alone too, and in the backend's phase once those are left unread
ORDER = ["damage", "pass", "pass", "abort", "pass", "harness-death", "pass", "damage-now", "pass"]


def _cases(n: int) -> list[Case]:
    spec = specs.load(SPEC)
    out = []
    for i in range(n):
        x = np.full((2,), -float(i + 1), np.float32)
        out.append(Case(SPEC, {}, (x,), (True,), oracle.expectation(spec, (x,), {})))
    return out


def _run_planned(cases: list[Case], behaviours: list[str], directory):
    return run_planned(SPEC, cases, behaviours, directory)


@pytest.fixture(scope="module")
def pool_run(tmp_path_factory):
    cases = _cases(len(ORDER))
    got, lost, stats = _run_planned(cases, ORDER, tmp_path_factory.mktemp("deaths"))
    return cases, dict(zip((c.id for c in cases), ORDER)), got, lost, stats


def test_every_case_once_with_its_own_verdict(pool_run):
    cases, chosen, got, lost, _ = pool_run
    verdicts = {cid: v for cid, v in got.items()} | {cid: [s for s, _ in ls] for cid, ls in lost.items()}
    assert sorted(verdicts) == sorted(c.id for c in cases)
    for c in cases:
        expected = broken.expected_verdict(c, chosen[c.id])
        assert verdicts[c.id] == [expected], (chosen[c.id], verdicts[c.id], lost.get(c.id))


def test_a_death_left_by_the_backend_is_not_opconforms(pool_run):
    cases, chosen, got, lost, stats = pool_run
    after_damage = cases[ORDER.index("damage") + 1]
    # it died once in opconform's code (the damaged process), then passed alone
    assert got[after_damage.id] == ["pass"] and after_damage.id not in lost
    # once, or twice where the damaging case's own result was still gathered in the worker (results
    # are sent every 50 ms) when the next case died: it then runs again, rightly, and damages the
    # worker that runs the rest, whose next case dies once more and passes alone
    assert stats.deaths_not_reproduced in (1, 2)
    assert all(got[c.id] == ["pass"] for c in cases if chosen[c.id] == "pass")
    death = next(c for c in cases if chosen[c.id] == "harness-death")
    (status, message), = lost[death.id]
    assert status == "harness-error" and "SIGSEGV" in message
    assert "rerun alone" in message and "left out: died in opconform's code each time" in message
    assert stats.harness_deaths == 1 and stats.crashes == 2


def test_damage_caught_in_opconforms_reading_of_the_same_case_is_the_backends(pool_run):
    cases, chosen, got, lost, stats = pool_run
    damaged = next(c for c in cases if chosen[c.id] == "damage-now")
    (status, message), = lost[damaged.id]
    assert status == "crash" and "SIGABRT" in message
    assert "reading of the outputs left out, it died in the backend's phase" in message


def test_spares_take_over_after_each_death(pool_run):
    *_, stats = pool_run
    # eight deaths (the damaged process, the abort, the harness death three times, damage-now three
    # times): a spare took over each time work was left; no worker was started but the first, its
    # spare and one per spare used
    assert stats.spares_used >= 7
    assert stats.workers_started == 2 + stats.spares_used


def test_the_isolated_worker_retries_a_death_left_by_an_earlier_case(tmp_path, monkeypatch):
    from opconform.model import Verdict
    from opconform.suites.isolated import IsolatedBackend, IsolationError

    damage, after, death = _cases(3)
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps({damage.id: "damage", after.id: "pass", death.id: "harness-death"}))
    monkeypatch.setenv(broken.PLAN_ENV, str(plan))  # the isolated worker is spawned: it reads this
    spec = specs.load(SPEC)
    isolated = IsolatedBackend(BROKEN, timeout=30)
    try:
        assert isolated.run(spec, damage).verdict is Verdict.PASS
        # its worker dies at the next case's start, in opconform's code; alone in a fresh one it passes
        assert isolated.run(spec, after).verdict is Verdict.PASS
        with pytest.raises(IsolationError, match="outside the backend"):
            isolated.run(spec, death)  # dies in opconform's code alone too: opconform's
    finally:
        isolated.close()


def test_a_runtime_object_freed_by_the_garbage_collector_is_the_backends(tmp_path):
    # a cycle holding an object whose destructor kills the process: the collector frees it in the
    # backend's phase (the worker collects there, after the case), never in opconform's code
    cases = _cases(12)
    order = ["pass", "cycle-death"] + ["pass"] * (len(cases) - 2)
    got, lost, stats = _run_planned(cases, order, tmp_path)
    assert (stats.crashes, stats.harness_deaths, stats.deaths_not_reproduced) == (1, 0, 0), stats
    # the collection due right after its case: that case's crash
    assert {cid: [s for s, _ in ls] for cid, ls in lost.items()} == {cases[order.index("cycle-death")].id: ["crash"]}
    assert sorted(list(got) + list(lost)) == sorted(c.id for c in cases)


def test_a_worker_that_asks_to_be_replaced_is_replaced_alive_once_it_has_answered(tmp_path):
    """TVM never unloads a compiled library: its worker asks to be replaced after some thousands
    (Backend.spent). The pool sends it nothing more, stops it once every case it was sent is
    answered, and a spare takes over: no case is lost, none is run twice, no death is counted."""
    import multiprocessing

    from helpers_runner import BROKEN
    from opconform.suites.pool import WorkerPool

    cases = _cases(12)
    behaviours = ["spend"] + ["pass"] * 11
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps({c.id: b for c, b in zip(cases, behaviours)}))
    got: dict = {}
    lost: dict = {}
    pool = WorkerPool(BROKEN, jobs=1, timeout=30, memory_limit_mb=None, shard=None,
                      on_result=lambda j: got.setdefault(j.case_id, []).append(j.verdict),
                      on_lost=lambda item, status, message: lost.setdefault(item[1].id, []).append((status, message)))
    pool._ctx = multiprocessing.get_context("spawn")  # spawned workers read the plan from their environment
    mp = pytest.MonkeyPatch()
    mp.setenv(broken.PLAN_ENV, str(plan))
    try:
        stats = pool.run([[(SPEC, c) for c in cases[i:i + 3]] for i in range(0, 12, 3)], {SPEC: specs.load(SPEC)})
    finally:
        mp.undo()
    assert got == {c.id: ["pass"] for c in cases} and not lost
    assert stats.workers_retired == 1 and stats.crashes == stats.timeouts == stats.harness_deaths == 0
    assert stats.workers_started == 3  # the first, its spare (which took over) and the next spare
