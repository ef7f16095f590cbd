"""Which cases a run executes, and in what batches.

Cases come from the generator (valid and must-refuse, per the run profile) plus every worked
example of the spec file. Generation runs in a process pool, one spec version per task. Cases go
to workers in batches of whole signature groups, so a worker builds each model once and reuses
it for every case of that signature.
"""
from __future__ import annotations

import hashlib
import json
import warnings
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from time import perf_counter
from typing import Any, Callable, Hashable, Iterable, Iterator, Mapping, Sequence

import numpy as np

from opconform.backends.base import quick_key
from opconform.model import Alternative, Case, Expectation, SpecVersion
from opconform.suites import described, profiles, taskpool


@dataclass
class SpecCases:
    spec_id: str
    cases: list[Case] = field(default_factory=list)
    error: str | None = None  # why generation failed (the run goes on without this spec)
    note: str | None = None  # e.g. no oracle: only must-refuse cases
    seconds: float = 0.0
    cached: bool = False  # came from the case cache
    # (case id, the case's JSON, the case described) per case, encoded once at generation: a case's
    # JSON never changes, so workers splice it into each result line instead of encoding every input again
    encoded: list[tuple] | None = None
    rows: int = 0  # covering-array rows the valid cases were drawn for (0: no rows)
    infeasible: list[tuple[int, str]] = field(default_factory=list)  # (row index, why no case held it)
    # factor tuples the valid cases really exercise, per strength: [{"t": 2, "total": .., "exercised": ..}]
    coverage: list[dict] = field(default_factory=list)


def select(pattern: str | None) -> tuple[list[SpecVersion], dict[str, str]]:
    """Spec versions matching the pattern (specs.selection: the one implementation of --spec), and
    {file: error} for spec files it could match that do not load: a malformed file costs its own
    cases, not the run."""
    from opconform import specs

    versions, malformed = specs.selection(pattern)
    return versions, {str(path): str(e) for path, e in malformed.items()}


def example_cases(spec: SpecVersion, expect: Callable | None) -> list[Case]:
    """The spec file's worked examples as cases; the oracle gives every allowed outcome when it
    exists, else the example's own outputs are the one expected outcome."""
    from opconform import generator

    constant = tuple(p.constant for p in spec.inputs)
    out = []
    for ex in spec.examples:
        inputs = tuple(ex.inputs)
        flags = tuple(constant[min(i, len(constant) - 1)] if constant else False for i in range(len(inputs)))
        every = generator.example_outputs(spec, inputs, ex.attributes, None if ex.outputs is None else len(ex.outputs))
        if expect is not None:
            expected, asked = expect(spec, inputs, ex.attributes), every
        elif ex.outputs is None:
            on = spec.relation(ex.expect_error).on_violation if ex.expect_error else "error"
            expected, asked = Expectation("error" if on == "error" else "undefined", relation=ex.expect_error), every
        else:
            n = len(ex.outputs)
            asked = tuple(i < n for i in range(len(spec.outputs)))
            padded = tuple(ex.outputs) + (None,) * (len(spec.outputs) - n)
            expected = Expectation("outputs", (Alternative(dict(ex.policies), padded),))
        out.append(Case(spec.id, dict(ex.attributes), inputs, asked, expected, None, flags, f"example:{ex.name}"))
    return out


Exclusion = tuple[tuple[str, int], ...]  # (factor name, index in its values): values not to draw


@contextmanager
def quietly() -> Iterator[None]:
    """Drawing cases and computing their expectations meet NaN and overflow on purpose: no
    warning or floating-point error report from them (generation, probes)."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        yield


def cases_for(spec_id: str, profile_name: str | profiles.RunProfile, seed: int, cache_key: str | None = None,
              exclude: Exclusion = (), probed: Mapping[tuple[int, ...], Case | None] | None = None) -> SpecCases:
    """Every case of one spec version under a run profile (runs in a pool process). With a
    cache_key (see case_cache) the cases are kept for later runs with the same code. exclude:
    factor values the valid cases must not hold (the backend does not implement them, see
    suites/probe.py); they change the cases, so they are part of the cache entry's name.
    probed: the probe's round-one cases by probe row, when this run probed (a profile that probes
    starts its rows from them; without them they are drawn here, the same ones)."""
    from opconform import specs
    from opconform.suites import case_cache

    t0 = perf_counter()
    with quietly():
        result = _generate(spec_id, profile_name, seed, tuple(exclude), probed)
    if result.error is None:
        spec = specs.load(spec_id)
        result.encoded = [encode_case(c, spec) for c in result.cases]
    result.seconds = perf_counter() - t0
    if cache_key and result.error is None and isinstance(profile_name, str):
        case_cache.store(cache_key, spec_id, profile_name, seed, result, variant=case_cache.variant(exclude))
    return result


def encode_case(case: Case, spec: SpecVersion) -> tuple[str, bytes, described.Described]:
    """(case id, Case.to_json() as compact JSON bytes, the case described: its call in words and its
    fields of a result's `extra`), kept with the case in the cache: no worker computes them again."""
    d = case.to_json()
    return d["id"], json.dumps(d, separators=(",", ":")).encode(), described.describe(spec, case)


def _generate(spec_id: str, profile_name: str | profiles.RunProfile, seed: int, exclude: Exclusion = (),
              probed: Mapping[tuple[int, ...], Case | None] | None = None) -> SpecCases:
    from opconform import generator, oracle, specs

    result = SpecCases(spec_id)
    try:
        spec = specs.load(spec_id)
        prof = profiles.get(profile_name)
        judged = oracle.has_oracle(spec)
        expect = oracle.expectation if judged else None
        found: dict[str, Case] = {}
        for c in example_cases(spec, expect):
            found.setdefault(c.id, c)
        valid: list[Case] = []
        rows: list[dict] | None = None
        if judged and prof.valid:
            valid, rows = _valid_cases(spec, prof, seed, expect, result, exclude, probed)
        else:
            result.note = "no oracle: only must-refuse cases and stored examples"
        invalid: list[Case] = []
        if prof.invalid and generator.error_relations(spec):
            # a must-refuse case of a type the backend does not implement is refused for that, not
            # for the relation it breaks: excluded values are left out of these too
            # at least one per error relation (they take turns, see generator.generate)
            count = max(prof.invalid, len(generator.error_relations(spec)))
            invalid = generator.generate(spec, count, seed, profile=prof.size, expect=oracle.expectation,
                                         kind="invalid", keep=_holding_none(spec, exclude))
        _add_with_variants(found, spec, valid, prof.variants_per_case(len(valid)), seed, prof)
        _add_with_variants(found, spec, invalid, prof.variants_per_case(len(invalid), prof.invalid), seed, prof)
        result.cases = list(found.values())
        if judged and prof.t:
            result.coverage = exercised_coverage(spec, result.cases, prof.t, exclude, rows)
    except Exception as e:  # noqa: BLE001 - one spec's generator failure must not stop the run
        result.error = f"{type(e).__name__}: {e}".splitlines()[0][:300]
    return result


FREE_DRAWS = 4  # valid cases per spec version drawn without a row, however many rows there are


def _valid_cases(spec: SpecVersion, prof: profiles.RunProfile, seed: int, expect: Callable,
                 result: SpecCases, exclude: Exclusion = (),
                 probed: Mapping[tuple[int, ...], Case | None] | None = None) -> tuple[list[Case], list[dict] | None]:
    """One case per covering-array row (when the profile has rows), then free draws up to
    prof.valid. A profile that probes starts the array from the probe rows (their cases are
    `probed`'s, or drawn here when the run did not probe). Rows no case could hold are kept in
    result.infeasible with the reason. No case holds an excluded factor value: the rows leave
    them out, free draws that hold one are skipped."""
    from opconform import generator

    valid: list[Case] = []
    rows = None
    if prof.t:
        given = generator.probe_seeds(spec, probed if probed is not None else generator.draw_probes(spec, expect), exclude) \
            if prof.probe else []
        rows = generator.spec_rows(spec, prof.t, seed, exclude, given=[row for row, _ in given])
        drawn = generator.generate_rows(spec, rows[len(given):], seed, profile=prof.size, expect=expect)
        valid = list({c.id: c for c in [c for _, c in given] + [c for _, c in drawn.cases]}.values())
        result.rows = len(rows)
        result.infeasible = [(len(given) + i, why) for i, why in drawn.infeasible]
    # free draws fill up to prof.valid, and there are always a few: pinned rows shape their inputs
    # to hold the pinned values (a conversion's row holds every value class, so never a scalar or an
    # empty tensor), and only free draws reach the shapes no factor names
    wanted = max(prof.valid - len(valid), min(FREE_DRAWS, prof.valid)) if prof.t else prof.valid - len(valid)
    if wanted > 0:
        ids = {c.id for c in valid}
        # the first draws of the free sequence: `wanted` and a spare or two for one a row already drew
        free = generator.generate(spec, min(prof.valid, wanted + 2), seed, profile=prof.size, expect=expect,
                                  kind="valid", keep=_holding_none(spec, exclude))
        valid += [c for c in free if c.id not in ids][:wanted]
    return valid, rows


def _add_with_variants(found: dict[str, Case], spec: SpecVersion, cases: list[Case], count: int, seed: int,
                       prof: profiles.RunProfile) -> None:
    from opconform import generator, oracle

    for c in cases:
        found.setdefault(c.id, c)
        if count:
            for v in generator.case_variants(spec, c, count, seed, size=prof.size, expect=oracle.expectation):
                found.setdefault(v.id, v)


def _holding_none(spec: SpecVersion, exclude: Exclusion) -> Callable[[Case], bool] | None:
    """A test that a case holds none of the excluded factor values (None: nothing excluded)."""
    if not exclude:
        return None
    from opconform.generator import exercised_values, same_value, spec_factors

    fs = spec_factors(spec)
    banned = [(f.name, f.values[i]) for f in fs for name, i in exclude if name == f.name]
    names = {name for name, _ in banned}
    watched = [f for f in fs if f.name in names]

    def keep(case: Case) -> bool:
        got = exercised_values(spec, watched, case)
        return not any(same_value(got.get(name), value) for name, value in banned)

    return keep


def exercised_coverage(spec: SpecVersion, cases: Sequence[Case], t: int, exclude: Exclusion = (),
                       rows: Sequence[Mapping[str, Any]] | None = None) -> list[dict]:
    """Pairs (and, for t=3, triples) of factor values the valid cases exercise: one summary per
    strength, {"t", "total", "exercised"} (see generator/tuple_coverage.py). Excluded factor values
    (not implemented by the backend) are no tuple to exercise. rows: the plan's covering rows
    (strength t, the same exclusions), which hold every allowed tuple: no second array is built."""
    from opconform.generator import factor_tuple_coverage, restricted, spec_factors

    fs = restricted(spec_factors(spec), exclude)
    valid = [c for c in cases if c.expected.kind != "error" and not c.label.startswith("breaks:")]
    return [factor_tuple_coverage(spec, valid, k, fs, rows).summary() for k in sorted({2, t})]


def collect(spec_ids: Sequence[str], profile_name: str, seed: int, jobs: int,
            on_spec: Callable[[SpecCases], None] | None = None, cache_key: str | None = None,
            timeout: float = 300.0, excluded: Mapping[str, Exclusion] | None = None,
            probed: Mapping[str, Mapping[tuple[int, ...], Case | None]] | None = None) -> list[SpecCases]:
    """Cases of every spec version, generated `jobs` at a time in killable processes (a spec
    whose generation passes `timeout` seconds gets an error instead of cases); in spec order.
    excluded: per spec id, factor values its valid cases must not hold; probed: per spec id, the
    probe's round-one cases (see cases_for)."""
    from opconform.suites import case_cache

    excluded = excluded or {}
    done: dict[str, SpecCases] = {}
    todo = []
    for sid in spec_ids:
        hit = case_cache.load(cache_key, sid, profile_name, seed, variant=case_cache.variant(excluded.get(sid, ()))) \
            if cache_key else None
        if hit is not None:
            done[sid] = SpecCases(sid, hit.cases, note=hit.note, cached=True, encoded=hit.encoded, rows=hit.rows,
                                  infeasible=hit.infeasible, coverage=hit.coverage)
            on_spec and on_spec(done[sid])
        else:
            todo.append(sid)

    def finished(i: int, sc: SpecCases) -> None:
        done[sc.spec_id] = sc
        on_spec and on_spec(sc)

    def failed(i: int, why: str) -> None:
        finished(i, SpecCases(todo[i], error=why))

    probed = probed or {}
    taskpool.run(cases_for, [(sid, profile_name, seed, cache_key, tuple(excluded.get(sid, ())), probed.get(sid))
                             for sid in todo],
                 jobs=jobs, timeout=timeout,
                 on_done=finished, on_failed=failed)
    return [done[sid] for sid in spec_ids]


def from_results(results_dir: Path, spec_ids: Sequence[str],
                 on_spec: Callable[[SpecCases], None] | None = None) -> list[SpecCases]:
    """The cases another run recorded (every Result carries its case), for these spec versions:
    certify a second backend on exactly the cases of the first, without generating again."""
    from opconform.suites import results

    rows, _ = results.scan(Path(results_dir) / results.RESULTS)
    if not rows and not (Path(results_dir) / results.RESULTS).exists():
        raise ValueError(f"--cases-from {results_dir}: no {results.RESULTS} there; expected a results directory")
    return _recorded(((r["spec_id"], r["case_id"], r.get("case")) for r in rows), spec_ids,
                     "cases from " + str(results_dir), on_spec)


def from_manifest(generated_dir: Path, spec_ids: Sequence[str],
                  on_spec: Callable[[SpecCases], None] | None = None) -> list[SpecCases]:
    """The cases `opconform generate` wrote into this directory (its manifest holds every case
    whole): run a backend on the very cases a backend outside Python was given as files."""
    from opconform.generator import read_manifest

    doc = read_manifest(generated_dir)
    return _recorded(((e["spec_id"], e["id"], e.get("case")) for e in doc["cases"]), spec_ids,
                     "cases from " + str(generated_dir), on_spec)


def from_cases_dir(directory: Path, spec_ids: Sequence[str],
                   on_spec: Callable[[SpecCases], None] | None = None) -> list[SpecCases]:
    """--cases-from DIR: a results directory (`opconform run`) or generated files (`opconform generate`)."""
    kind = cases_dir_kind(Path(directory), "--cases-from")
    return (from_results if kind == "results" else from_manifest)(Path(directory), spec_ids, on_spec)


def cases_dir_kind(directory: Path, flag: str) -> str:
    """"results" (DIR/results.jsonl) or "generated" (DIR/manifest.json); a ValueError naming the
    directory and what was expected when it is neither, or both."""
    from opconform.generator import MANIFEST
    from opconform.suites.results import RESULTS

    expected = (f"expected a results directory of `opconform run` ({RESULTS}) or a directory written by "
                f"`opconform generate` ({MANIFEST})")
    if not directory.is_dir():
        raise ValueError(f"{flag} {directory}: no such directory; {expected}")
    found = [kind for kind, name in (("results", RESULTS), ("generated", MANIFEST)) if (directory / name).is_file()]
    if len(found) != 1:
        what = f"both {RESULTS} and {MANIFEST}" if found else f"neither {RESULTS} nor {MANIFEST}"
        raise ValueError(f"{flag} {directory}: {what} there; {expected}")
    return found[0]


def _recorded(records: Iterable[tuple[str, str, Mapping | None]], spec_ids: Sequence[str], note: str,
              on_spec: Callable[[SpecCases], None] | None) -> list[SpecCases]:
    """SpecCases from recorded cases, (spec id, case id, Case.to_json()) each: the spec versions
    asked for, each case once, in recorded order."""
    by_spec: dict[str, dict[str, tuple[Case, tuple[str, bytes]]]] = {sid: {} for sid in spec_ids}
    for spec_id, case_id, case in records:
        if spec_id in by_spec and case and case_id not in by_spec[spec_id]:
            # the recorded case JSON is the case's encoding: kept, not computed again per result
            encoded = (case_id, json.dumps(case, separators=(",", ":")).encode())
            by_spec[spec_id][case_id] = (Case.from_json(case), encoded)
    out = [SpecCases(sid, [c for c, _ in found.values()], note=note,
                     encoded=[e for _, e in found.values()]) for sid, found in by_spec.items() if found]
    for sc in out:
        on_spec and on_spec(sc)
    return out


def stable_hash(key: Hashable) -> int:
    return int.from_bytes(hashlib.sha256(repr(key).encode()).digest()[:8], "big")


def in_shard(key: Hashable, shard: tuple[int, int] | None) -> bool:
    """Shard K of N (1-based) holds the keys whose stable hash is K-1 modulo N."""
    return shard is None or stable_hash(key) % shard[1] == shard[0] - 1


def parse_shard(text: str | None) -> tuple[int, int] | None:
    if not text:
        return None
    try:
        k, n = (int(x) for x in text.split("/"))
    except ValueError:
        raise ValueError(f"--shard {text!r}: expected K/N with 1 <= K <= N, e.g. 2/4") from None
    if not 1 <= k <= n:
        raise ValueError(f"--shard {text!r}: expected K/N with 1 <= K <= N, e.g. 2/4")
    return k, n


Item = tuple[str, Case]  # (spec id, case)


def batches(groups: Iterable[tuple[Hashable, list[Item]]], size: int) -> list[list[Item]]:
    """Whole signature groups packed into batches of about `size` cases (a larger group is split)."""
    out: list[list[Item]] = []
    current: list[Item] = []
    for _, items in groups:
        for start in range(0, len(items), size):
            chunk = items[start:start + size]
            if current and len(current) + len(chunk) > size:
                out.append(current)
                current = []
            current.extend(chunk)
    if current:
        out.append(current)
    return out


def group_key(spec_id: str, case: Case) -> Hashable:
    """Groups and shards cases by what their model depends on, computed cheaply and safely in the
    parent (see opconform.backends.base.quick_key: no onnx shape inference, which can crash)."""
    return quick_key(spec_id, case)


def group(items: Iterable[Item]) -> list[tuple[Hashable, list[Item]]]:
    groups: dict[Hashable, list[Item]] = {}
    for sid, case in items:
        groups.setdefault(group_key(sid, case), []).append((sid, case))
    return list(groups.items())
