"""`opconform run --executor dask`: the same cases on a Dask LocalCluster of two worker processes
give the verdicts the local pool gives; a case that kills its worker is a crash there too and the
run goes on; results.jsonl is the driver's alone, so --resume works unchanged."""
import json
from pathlib import Path

import pytest

pytest.importorskip("distributed")

from helpers_runner import BROKEN  # noqa: E402
from opconform.backends.testing import broken  # noqa: E402
from opconform.suites import results  # noqa: E402
from opconform.suites.dask_pool import DaskPool, _chunks  # noqa: E402
from opconform.suites.runner import RunConfig, run  # noqa: E402

pytestmark = [pytest.mark.slow, pytest.mark.backend]

SPECS = "onnx::Abs-13,onnx::Add-14"


def _verdicts(out: Path) -> dict[str, str]:
    return {r.case_id: r.verdict.value for r in results.load_results(out)}


def _run(out: Path, executor: str, backend: str = "onnxruntime", spec: str = SPECS) -> object:
    return run(RunConfig(backend=backend, out=out, spec_pattern=spec, profile="smoke", seed=3, jobs=2,
                         probe=False, executor=executor))


def test_dask_gives_the_local_pools_verdicts(tmp_path):
    _run(tmp_path / "local", "local")
    summary = _run(tmp_path / "dask", "dask")
    local, dask = _verdicts(tmp_path / "local"), _verdicts(tmp_path / "dask")
    assert local and dask == local
    assert summary.cases_run == len(local)
    lines = (tmp_path / "dask" / results.RESULTS).read_bytes().splitlines()
    assert len(lines) == len({json.loads(x)["case_id"] for x in lines})  # each case once


def test_a_case_that_kills_its_worker_is_a_crash_and_the_run_goes_on(tmp_path, monkeypatch):
    first = _run(tmp_path / "local", "local", BROKEN, "onnx::Abs-13")
    cases = [r for r in results.load_results(tmp_path / "local")]
    doomed = [r.case_id for r in cases if r.verdict.value == "pass"][:2]
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps({doomed[0]: "segv", doomed[1]: "abort"}))
    monkeypatch.setenv(broken.PLAN_ENV, str(plan))  # the cluster's workers start with it
    _run(tmp_path / "dask", "dask", BROKEN, "onnx::Abs-13")
    got = _verdicts(tmp_path / "dask")
    assert set(got) == {r.case_id for r in cases} and first.cases_run == len(got)
    assert got[doomed[0]] == got[doomed[1]] == "crash"
    assert all(v == r.verdict.value for r in cases if (v := got[r.case_id]) and r.case_id not in doomed)


def test_a_chunk_whose_dask_worker_died_is_split_down_to_the_case():
    lost = []
    pool = DaskPool("onnxruntime", jobs=1, timeout=1, memory_limit_mb=None, shard=None, on_result=lambda j: None,
                    on_lost=lambda item, status, message: lost.append((item[0], status)))

    class KilledWorker(Exception):
        pass

    items = [("s", object()) for _ in range(5)]
    halves = pool._after_death([items[:3], items[3:]], KilledWorker())
    assert [len(h[0]) for h in halves] == [2, 3] and not lost
    assert pool._after_death([[items[0]]], KilledWorker()) == [] and lost == [("s", "crash")]
    assert pool.stats.crashes == 1


def test_chunks_keep_whole_batches_in_order():
    batches = [[("s", i)] * n for i, n in enumerate([3, 5, 1, 4, 2])]
    chunks = _chunks(batches, count=2, least=4)
    assert [b for c in chunks for b in c] == batches
    assert all(sum(len(b) for b in c) >= 4 for c in chunks[:-1])
