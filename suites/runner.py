"""A certification run: plan the cases, run them in isolated workers, record every verdict.

    summary = run(RunConfig(backend="onnxruntime", profile="ci", out=Path("results")), listener)

Results go to DIR/results.jsonl as they come; DIR/run.json says what was run. A run killed at any
point continues with resume=True: finished cases are not redone, torn lines are.
"""
from __future__ import annotations

import os
import shlex
from collections import Counter, defaultdict
from dataclasses import dataclass, field, replace
from pathlib import Path
from time import perf_counter
from typing import Any, Mapping

from opconform import __version__, backends, specs
from opconform.attempts import Attempts, expected_kind
from opconform.model import Outcome, Verdict
from opconform.specs.loader import check_pattern, globs
from opconform.suites import case_cache, plan, probe, profiles, record, results
from opconform.suites.pool import WorkerPool


@dataclass
class RunConfig:
    backend: str
    out: Path
    spec_pattern: str | None = None
    cases_from: str | None = None  # run the cases of this results or `opconform generate` directory instead of generating
    profile: str = "smoke"
    seed: int = 0
    jobs: int = field(default_factory=lambda: os.cpu_count() or 1)
    timeout: float = 60.0
    resume: bool = False
    shard: str | None = None
    memory_limit_mb: int | None = 4096
    batch_size: int = 64
    case_cache: bool = True  # reuse cases generated before with the same code (suites/case_cache.py)
    generation_timeout: float = 300.0  # seconds per spec version; a slower one is reported, not waited for
    # ask the backend first which factor values it implements, where the profile probes (suites/probe.py);
    # None on a resumed run recorded before probing existed: it did not probe
    probe: bool | None = True
    command: str = ""
    executor: str = "local"  # "local": the worker pool here; "dask": a Dask cluster (suites/dask_pool.py)
    scheduler: str | None = None  # with executor "dask": the scheduler's address; None starts a LocalCluster

    # settings a resumed run must keep (they decide which cases exist), with their command-line flags
    FIXED = {"backend": "--backend", "spec_pattern": "--spec", "profile": "--profile", "seed": "--seed",
             "shard": "--shard", "cases_from": "--cases-from", "probe": "--no-probe"}

    @property
    def probing(self) -> bool:
        """Whether this run probes: asked for, a profile that probes, and cases drawn here."""
        return bool(self.probe) and profiles.get(self.profile).probe and not self.cases_from


@dataclass
class RunSummary:
    counts: dict[str, Counter] = field(default_factory=lambda: defaultdict(Counter))  # spec id -> verdicts
    cases_run: int = 0  # in this session
    cases_skipped: int = 0  # already in results.jsonl (resume)
    models_built: int = 0
    backend_seconds: float = 0.0
    build_seconds: float = 0.0
    harness_seconds: float = 0.0
    generation_seconds: float = 0.0  # wall time of the planning phase
    execution_seconds: float = 0.0  # wall time of the execution phase
    workers_started: int = 0
    generation_errors: dict[str, str] = field(default_factory=dict)
    harness_errors: list[dict] = field(default_factory=list)  # also results, verdict harness-error
    attempts: dict[str, Attempts] = field(default_factory=lambda: defaultdict(Attempts))  # spec id -> did it run
    not_applicable: list[str] = field(default_factory=list)  # specs of another dialect
    notes: dict[str, str] = field(default_factory=dict)
    backend: str = ""
    # spec id -> [{"factor", "value", "message"}]: factor values the backend does not implement
    unsupported_factors: dict[str, list[dict]] = field(default_factory=dict)
    probe_seconds: float = 0.0  # wall time of probing (0 when answered from the cache or not probing)
    probes: int = 0  # probe cases run in this session
    results_from_probes: int = 0  # planned cases the probe had run: its answers are their results

    @property
    def not_run(self) -> dict[str, str]:
        """Spec versions none of whose valid cases ran -> why (the backend's messages)."""
        return {s: a.reason() for s, a in sorted(self.attempts.items()) if a.not_run}

    @property
    def totals(self) -> Counter:
        t: Counter = Counter()
        for c in self.counts.values():
            t.update(c)
        return t


class Listener:
    """Progress hooks; the command line shows a progress bar through them."""

    def probing(self, backend: str, total_specs: int) -> None: ...
    def planning(self, total_specs: int) -> None: ...
    def spec_planned(self, sc: plan.SpecCases) -> None: ...
    def executing(self, total_cases: int, already_done: int) -> None: ...
    def result(self, spec_id: str, verdict: str) -> None: ...
    def finished(self, summary: RunSummary) -> None: ...


def start_meta(config: RunConfig, backend: backends.Backend) -> dict:
    return {
        "opconform_version": __version__,
        "backend": config.backend,
        "backend_version": backend.version(),
        "profile": config.profile,
        "seed": config.seed,
        "jobs": config.jobs,
        "timeout": config.timeout,
        "spec_pattern": config.spec_pattern,
        "cases_from": config.cases_from,
        "shard": config.shard,
        "probe": config.probe,
        "started": results.now(),
        "finished": None,
        "machine": results.machine(),
        "command": config.command,
    }


def _same(key: str, given: Any, recorded: Any) -> bool:
    """Whether a setting given again on resume says what the record says (spellings aside)."""
    if given == recorded:
        return True
    if key == "probe":  # None: recorded before probing existed, when no run probed
        return bool(given) == bool(recorded)
    if recorded is None:
        return False
    if key == "spec_pattern":
        return globs(given) == globs(recorded)
    if key == "shard":
        return plan.parse_shard(given) == plan.parse_shard(recorded)
    if key == "cases_from":
        return Path(given).resolve() == Path(recorded).resolve()
    return str(given) == str(recorded)


def _shown(flag: str, value: Any) -> str:
    if isinstance(value, bool):  # a switch: given or not
        return flag if value is False else f"no {flag}"
    return f"no {flag}" if value is None else f"{flag} {shlex.quote(str(value))}"


def resumed_config(config: RunConfig, given: Mapping[str, Any] | None = None) -> RunConfig:
    """The run recorded in config.out/run.json, to continue: its FIXED settings (they decide which
    cases exist) with this session's own (jobs, timeout, ...). `given` holds the FIXED settings
    stated for this session (e.g. on the command line); one that differs from the record is refused
    with a ValueError, since continuing the recorded run would silently ignore it. So is a directory
    without run.json: resuming nothing must not quietly start a fresh default run."""
    out = Path(config.out)
    if not (out / results.RUN).is_file():
        why = "no run.json there" if out.is_dir() else "no such directory"
        raise ValueError(f"--resume --out {out}: {why}; expected the --out DIR of an earlier `opconform run` "
                         f"(leave --resume out to start a new run)")
    meta = results.read_run(out)
    recorded = {k: meta.get(k) for k in RunConfig.FIXED}
    for key, value in (given or {}).items():
        if not _same(key, value, recorded[key]):
            flag = RunConfig.FIXED[key]
            raise ValueError(f"--resume --out {out}: {_shown(flag, value)} contradicts the recorded run "
                             f"({_shown(flag, recorded[key])}); leave {flag} out to continue that run, or choose another --out")
    return replace(config, **recorded, resume=True)


def _probe(config: RunConfig, backend: backends.Backend, spec_ids: list[str], summary: RunSummary,
           listener: Listener) -> probe.Survey | None:
    """Ask the backend which factor values it implements (where this run probes); the answers
    go to the summary."""
    if not config.probing or not spec_ids or backend.skips_probe:
        return None
    listener.probing(backend.name, len(spec_ids))
    survey = probe.survey(backend, backend.ref or config.backend, spec_ids, jobs=config.jobs, timeout=config.timeout,
                          memory_limit_mb=config.memory_limit_mb, generation_timeout=config.generation_timeout)
    summary.unsupported_factors = survey.unsupported_factors()
    summary.probe_seconds, summary.probes = survey.seconds, survey.probes
    return survey


def _probing_meta(survey: probe.Survey) -> dict:
    return {"probes": survey.probes, "spec_versions_probed": survey.asked, "spec_versions_cached": survey.cached,
            "seconds": round(survey.seconds, 3), "errors": survey.errors}


def _add_evidence(planned: list[plan.SpecCases], evidence: Mapping[str, list]) -> None:
    """The probe case of each unsupported factor value joins its spec version's cases: the one
    result that shows the backend's answer (no other case holds that value)."""
    for sc in planned:
        if sc.spec_id not in evidence:
            continue
        have = {e[0] for e in sc.encoded} if sc.encoded else {c.id for c in sc.cases}
        extra = [c for c in evidence[sc.spec_id] if c.id not in have]
        if not extra:
            continue
        if sc.encoded is not None and len(sc.encoded) == len(sc.cases):
            spec = specs.load(sc.spec_id)
            sc.encoded = list(sc.encoded) + [plan.encode_case(c, spec) for c in extra]
        sc.cases = list(sc.cases) + extra


def run(config: RunConfig, listener: Listener | None = None) -> RunSummary:
    listener = listener or Listener()
    profiles.get(config.profile)
    check_pattern(config.spec_pattern)  # a glob that matches nothing is a typo, not a smaller run
    shard = plan.parse_shard(config.shard)
    backend = backends.get(config.backend)
    out = Path(config.out)
    out.mkdir(parents=True, exist_ok=True)
    with results.ResultsWriter(out, resume=config.resume) as writer:
        meta = results.read_run(out) if config.resume and (out / results.RUN).exists() else start_meta(config, backend)
        meta["finished"] = None
        results.write_run(out, meta)
        summary = RunSummary()
        for r in writer.previous:
            summary.counts[r["spec_id"]][r["verdict"]] += 1
            summary.attempts[r["spec_id"]].add(Verdict(r["verdict"]), expected_kind(r.get("extra"), r.get("case")),
                                               r.get("backend_message", ""))
        summary.cases_skipped = len(writer.done)

        def on_result(j: record.Judged) -> None:
            writer.write(j.case_id, j.line)
            counted(j)

        def on_results(judged: list[record.Judged]) -> None:  # a worker's gathered results: one write()
            writer.write_many([(j.case_id, j.line) for j in judged])
            for j in judged:
                counted(j)

        def counted(j: record.Judged) -> None:
            summary.counts[j.spec_id][j.verdict] += 1
            summary.attempts[j.spec_id].add(Verdict(j.verdict), j.expected_kind, j.message)
            summary.cases_run += 1
            summary.backend_seconds += j.backend_seconds
            summary.build_seconds += j.build_seconds
            summary.harness_seconds += j.harness_seconds
            listener.result(j.spec_id, j.verdict)

        def on_lost(item: plan.Item, status: str, message: str) -> None:  # crash, timeout or harness-error
            sid, case = item
            lost = record.make(specs.load(sid), case, Outcome(status, message=message), backend.name, shard=config.shard)
            on_result(record.Judged.of(lost))

        def on_harness_error(case_id: str, spec_id: str, message: str) -> None:
            summary.harness_errors.append({"case_id": case_id, "spec_id": spec_id, "message": message})

        pool = _pool(config, backend, on_result=on_result, on_lost=on_lost, on_harness_error=on_harness_error,
                     on_results=on_results)
        pool.start()  # the workers load the backend while this process plans (seconds of every run's start)
        try:
            _plan_and_execute(config, listener, backend, shard, out, writer, meta, summary, pool, on_result)
        finally:
            pool.close()
    listener.finished(summary)
    return summary


EXECUTORS = ("local", "dask")


def _pool(config: RunConfig, backend: backends.Backend, **callbacks: Any) -> Any:
    """The executor's pool: WorkerPool here, or DaskPool (same interface) on a Dask cluster."""
    if config.executor not in EXECUTORS:
        raise ValueError(f"--executor {config.executor!r}: expected one of {', '.join(EXECUTORS)}")
    if config.scheduler and config.executor != "dask":
        raise ValueError(f"--scheduler {config.scheduler}: goes with --executor dask (a Dask scheduler's address)")
    settings = dict(jobs=config.jobs, timeout=config.timeout, memory_limit_mb=config.memory_limit_mb, shard=config.shard)
    if config.executor == "dask":
        from opconform.suites.dask_pool import DaskPool

        return DaskPool(backend.ref or config.backend, **settings, **callbacks, scheduler=config.scheduler,
                        backend_name=backend.name)
    return WorkerPool(backend.ref or config.backend, **settings, **callbacks)


def _plan_and_execute(config: RunConfig, listener: Listener, backend: backends.Backend, shard: tuple[int, int] | None,
                      out: Path, writer: results.ResultsWriter, meta: dict, summary: RunSummary, pool: Any,
                      on_result: Any) -> None:
    """Probe, plan, and run the planned cases in the pool started beforehand; run.json at the end."""
    versions, bad_files = plan.select(config.spec_pattern)
    summary.generation_errors.update(bad_files)
    if not versions:
        raise ValueError(f"--spec {config.spec_pattern!r} matches no spec version; see `opconform validate`")
    mine = [v for v in versions if v.dialect in backend.dialects]
    summary.not_applicable = [v.id for v in versions if v.dialect not in backend.dialects]
    refused = {v.id: reason for v in mine if (reason := backend.accepts(v))}
    summary.backend = backend.name
    survey = _probe(config, backend, [v.id for v in mine if v.id not in refused], summary, listener)
    if survey is not None:
        meta.update(unsupported_factors=summary.unsupported_factors, probing=_probing_meta(survey))
        results.write_run(out, meta)
    elif config.probing and backend.skips_probe:  # run.json says why a probing profile did not probe
        meta.update(probing={"skipped": backend.skips_probe})
        results.write_run(out, meta)
    listener.planning(len(mine))
    t0 = perf_counter()
    if config.cases_from:
        planned = plan.from_cases_dir(Path(config.cases_from), [v.id for v in mine], listener.spec_planned)
    else:
        key = case_cache.code_key() if config.case_cache else None
        planned = plan.collect([v.id for v in mine], config.profile, config.seed, config.jobs, listener.spec_planned,
                               key, config.generation_timeout, excluded=survey.excluded() if survey else None,
                               probed=survey.drawn if survey else None)
        if survey is not None:
            _add_evidence(planned, survey.evidence())
    summary.generation_seconds = perf_counter() - t0
    for sc in planned:
        if sc.error:
            summary.generation_errors[sc.spec_id] = sc.error
        if sc.note:
            summary.notes[sc.spec_id] = sc.note

    encoded = {id(c): e for sc in planned if sc.encoded for c, e in zip(sc.cases, sc.encoded)}
    # a case's id hashes all its inputs: taken from its encoding where it has one, and once
    ids = {id(c): e[0] if (e := encoded.get(id(c))) else c.id for sc in planned for c in sc.cases}
    todo = [(sc.spec_id, c) for sc in planned for c in sc.cases if ids[id(c)] not in writer.done]
    groups = [(k, items) for k, items in plan.group(todo) if plan.in_shard(k, shard)]
    untaken = [item for _, items in groups for item in items if item[0] in refused]
    # the probe ran these already, in this session, on this backend: its answers are their results
    answered = survey.judged if survey is not None and shard is None else {}
    probed = [answered[(sid, ids[id(c)])] for _, items in groups for sid, c in items if (sid, ids[id(c)]) in answered]
    groups = [(k, kept) for k, items in groups
              if (kept := [(sid, c) for sid, c in items if (sid, ids[id(c)]) not in answered])]
    batches = plan.batches([(k, items) for k, items in groups if items[0][0] not in refused], config.batch_size)
    listener.executing(len(untaken) + len(probed) + sum(len(b) for b in batches), summary.cases_skipped)

    for sid, case in untaken:  # nothing to run: the backend does not take these spec versions
        on_result(record.Judged.of(record.not_taken(specs.load(sid), case, backend.name, refused[sid], shard=config.shard)))
    for j in probed:
        on_result(j)
    summary.results_from_probes = len(probed)
    if "probing" in meta:
        meta["probing"]["results_from_probes"] = len(probed)
    t0 = perf_counter()
    keys = {id(c): k for k, items in groups for _, c in items}
    stats = pool.run(batches, {v.id: v for v in mine}, encoded, keys)
    summary.execution_seconds = perf_counter() - t0
    summary.models_built, summary.workers_started = stats.models_built, stats.workers_started
    # deaths in opconform's code that the case, rerun alone, did not repeat: the backend's earlier damage
    meta["worker_deaths_not_reproduced"] = stats.deaths_not_reproduced
    meta.update(finished=results.now(), backend_version=stats.backend_version or meta.get("backend_version"),
                cases=sum(summary.totals.values()), verdicts=dict(summary.totals),
                generation_errors=summary.generation_errors, harness_errors=summary.harness_errors[:100],
                not_run=summary.not_run)
    results.write_run(out, meta)

