"""The run's cases on a Dask cluster: `opconform run --executor dask [--scheduler tcp://HOST:PORT]`.

Same interface as suites/pool.WorkerPool (start, run, close; on_results, on_lost, on_harness_error),
so the runner plans, writes results.jsonl and run.json exactly as with the local pool: --resume,
report, gate and merge see no difference. Without --scheduler a LocalCluster of --jobs worker
processes starts on this machine (one thread each).

Each Dask task is a chunk of whole batches. It runs them in the Dask worker through a local
WorkerPool of one process: the backend loads there, builds its own models, and a case that kills
it or hangs is classified exactly as in a local run (crash, timeout, harness-error after a rerun
alone), while the Dask worker itself survives. Should the Dask worker die anyway (its nanny kills
it for memory, its machine goes), the scheduler hands the task to another; a chunk that keeps
killing workers (KilledWorker) is split and run again, down to single cases, and a single case
that still kills its worker is a crash. Only this process (the driver) writes results.

Dask worker processes are daemonic by default and a daemonic process may not start processes:
the task clears that flag for its own pool (its processes are killed with it all the same).
"""
from __future__ import annotations

import multiprocessing
from dataclasses import fields
from typing import Any, Callable, Mapping, Sequence

from opconform.suites import pool as local
from opconform.suites.plan import Item

TASKS_PER_WORKER = 4  # chunks per Dask worker: enough to even out unequal chunks, few enough to start few pools
MIN_CHUNK = 256  # cases per task at least: each task starts a worker process and loads the backend


class DaskUnavailable(RuntimeError):
    """dask.distributed is not installed, or the scheduler cannot be reached; one line."""


def _distributed() -> Any:
    try:
        import distributed
    except ImportError:
        raise DaskUnavailable("--executor dask needs dask.distributed: pip install 'opconform[dask]'") from None
    return distributed


def run_chunk(backend_ref: str, backend_name: str, batches: list[list[Item]], spec_versions: Mapping[str, Any],
              encoded: list[list[tuple[str, bytes] | None]], timeout: float, memory_limit_mb: int | None,
              shard: str | None) -> tuple[list, list, dict]:
    """A Dask task: the chunk's batches in a local pool of one process. encoded: per batch, each
    case's (id, JSON) where the driver has it. (judged results, harness errors as (case id, spec
    id, message), the pool's stats as a dict)."""
    from opconform import specs
    from opconform.model import Outcome
    from opconform.suites import record

    multiprocessing.current_process()._config["daemon"] = False  # see the module's docstring
    judged: list = []
    harness_errors: list = []

    def on_lost(item: Item, status: str, message: str) -> None:
        sid, case = item
        spec = spec_versions.get(sid) or specs.load(sid)
        judged.append(record.Judged.of(record.make(spec, case, Outcome(status, message=message), backend_name, shard=shard)))

    p = local.WorkerPool(backend_ref, jobs=1, timeout=timeout, memory_limit_mb=memory_limit_mb, shard=shard,
                         on_result=judged.append, on_lost=on_lost,
                         on_harness_error=lambda *e: harness_errors.append(e))
    # WorkerPool finds encodings by id() of the Case objects: this process's copies
    by_case = {id(case): e for batch, enc in zip(batches, encoded) for (_, case), e in zip(batch, enc) if e is not None}
    stats = p.run(batches, spec_versions, by_case)
    return judged, harness_errors, {f.name: getattr(stats, f.name) for f in fields(stats)}


class DaskPool:
    """on_result / on_results / on_lost / on_harness_error as WorkerPool's."""

    def __init__(self, backend_ref: str, *, jobs: int, timeout: float, memory_limit_mb: int | None, shard: str | None,
                 on_result: Callable[[Any], None], on_lost: Callable[[Item, str, str], None],
                 on_harness_error: Callable[[str, str, str], None] = lambda *a: None,
                 on_results: Callable[[list], None] | None = None, scheduler: str | None = None,
                 backend_name: str = ""):
        self.backend_name = backend_name or backend_ref
        self.backend_ref, self.jobs, self.timeout = backend_ref, max(1, jobs), timeout
        self.memory_limit_mb, self.shard, self.scheduler = memory_limit_mb, shard, scheduler
        self.on_lost, self.on_harness_error = on_lost, on_harness_error
        self.on_results = on_results or (lambda judged: [on_result(j) for j in judged])
        self.stats = local.PoolStats()
        self._client: Any = None
        self._cluster: Any = None

    def start(self) -> None:
        """Connect to the scheduler, or start the LocalCluster (its workers start meanwhile)."""
        if self._client is not None:
            return
        distributed = _distributed()
        import dask

        # a death is handled here (the chunk split and run again): the scheduler retries a task
        # on another worker once, not three times, before saying KilledWorker
        with dask.config.set({"distributed.scheduler.allowed-failures": 1}):
            try:
                if self.scheduler:
                    self._client = distributed.Client(self.scheduler, timeout="30s")
                else:
                    self._cluster = distributed.LocalCluster(n_workers=self.jobs, threads_per_worker=1, processes=True,
                                                             dashboard_address=None, memory_limit=0)
                    self._client = distributed.Client(self._cluster)
            except (OSError, TimeoutError) as e:
                where = f"--scheduler {self.scheduler}: cannot reach the Dask scheduler" if self.scheduler \
                    else "--executor dask: the LocalCluster did not start"
                raise DaskUnavailable(f"{where} ({type(e).__name__}: {e})") from None

    def close(self) -> None:
        if self._client is not None:
            self._client.close()
        if self._cluster is not None:
            self._cluster.close()
        self._client = self._cluster = None

    def run(self, batches: Sequence[list[Item]], spec_versions: Mapping[str, Any] | None = None,
            encoded: Mapping[int, tuple[str, bytes]] | None = None,
            keys: Mapping[int, Any] | None = None) -> local.PoolStats:
        """keys (the cases' quick keys by id(), as WorkerPool.run takes them) are not sent: the Dask
        workers' copies of the cases are other objects, and their local pools compute the keys."""
        self.start()
        distributed = _distributed()
        spec_versions, encoded = dict(spec_versions or {}), encoded or {}
        workers = max(len(self._client.scheduler_info().get("workers", {})), 1)
        chunks = _chunks([b for b in batches if b], workers * TASKS_PER_WORKER, MIN_CHUNK)
        futures = {self._submit(chunk, spec_versions, encoded): chunk for chunk in chunks}
        done = distributed.as_completed(list(futures))
        for future in done:
            chunk = futures.pop(future)
            try:
                judged, harness_errors, stats = future.result()
            except distributed.client.FutureCancelledError:
                raise
            except Exception as e:  # noqa: BLE001 - KilledWorker, or the task itself failed
                for part in self._after_death(chunk, e):
                    new = self._submit(part, spec_versions, encoded)
                    futures[new] = part
                    done.add(new)
                continue
            self.on_results(judged)
            for case_id, spec_id, message in harness_errors:
                self.on_harness_error(case_id, spec_id, message)
            for name, value in stats.items():
                if isinstance(value, int):
                    setattr(self.stats, name, getattr(self.stats, name) + value)
                elif value and not getattr(self.stats, name):
                    setattr(self.stats, name, value)
        return self.stats

    def _submit(self, chunk: list[list[Item]], spec_versions: Mapping[str, Any], encoded: Mapping[int, Any]) -> Any:
        sids = {sid for batch in chunk for sid, _ in batch}
        enc = [[encoded.get(id(case)) for _, case in batch] for batch in chunk]
        return self._client.submit(run_chunk, self.backend_ref, self.backend_name, chunk,
                                   {s: spec_versions[s] for s in sids if s in spec_versions}, enc, self.timeout, self.memory_limit_mb, self.shard, pure=False)

    def _after_death(self, chunk: list[list[Item]], error: BaseException) -> list[list[list[Item]]]:
        """What to run again of a chunk whose Dask worker died (or whose task failed): its halves; a
        single case is not run again but reported (a crash when its worker died, else opconform's
        own failure)."""
        items = [item for batch in chunk for item in batch]
        if len(items) > 1:
            half = len(items) // 2
            return [[items[:half]], [items[half:]]]
        killed = type(error).__name__ == "KilledWorker"
        status = "crash" if killed else "harness-error"
        message = ("the Dask worker running this case died (its nanny or the scheduler gave up on it)" if killed
                   else f"the Dask task failed: {type(error).__name__}: {str(error).splitlines()[0] if str(error) else ''}")
        self.stats.crashes += killed
        self.on_lost(items[0], status, message)
        if not killed:
            self.on_harness_error(items[0][1].id, items[0][0], message)
        return []


def _chunks(batches: list[list[Item]], count: int, least: int) -> list[list[list[Item]]]:
    """The batches in about `count` chunks of whole batches, of `least` cases at least, in order."""
    total = sum(len(b) for b in batches)
    size = max(least, -(-total // max(count, 1)))
    chunks: list[list[list[Item]]] = []
    current: list[list[Item]] = []
    held = 0
    for b in batches:
        current.append(b)
        held += len(b)
        if held >= size:
            chunks.append(current)
            current, held = [], 0
    if current:
        chunks.append(current)
    return chunks
