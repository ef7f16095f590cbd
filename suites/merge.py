"""Reading results directories, and joining the shards of one run into one results set.

A results directory is what `opconform run --out DIR` writes: DIR/results.jsonl (one
`Result.to_json()` per line) and DIR/run.json (the run's metadata). Reports, the gate and
merge all read directories through `read_dir`, so that a missing file or a corrupt line is
reported the same way everywhere: one line naming the file, the line number and what was expected.
"""
from __future__ import annotations

import json
import os
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Sequence

from opconform import attempts
from opconform.model import Result

RESULTS_FILE = "results.jsonl"
SHRUNK_FILE = "shrunk.jsonl"  # minimal cases of failure groups (opconform shrink): evidence, not verdicts
RUN_FILE = "run.json"
# run.json keys that must agree between shards of one run: different values mean different cases
# (seed, profile, spec_pattern) or a different thing certified (backend).
RUN_IDENTITY = ("backend", "seed", "profile", "spec_pattern")


class ResultsError(ValueError):
    """A results directory cannot be read; the message is one line naming the file and the problem."""


@dataclass
class ResultsDir:
    path: Path
    run: dict  # run.json ({} when the directory has none)
    results: list[Result] = field(default_factory=list)
    torn_line: int | None = None  # a last line cut short by a killed run (left out, as resume does)
    shrunk: list[Result] = field(default_factory=list)  # DIR/shrunk.jsonl, when shrinking ran
    shrunk_torn_line: int | None = None  # the same, in shrunk.jsonl

    def torn_warnings(self) -> list[str]:
        """One line per file whose cut-short last line was left out, for commands to print: a dropped
        line is a result missing from what they show, and readers must not have to guess that."""
        torn = ((RESULTS_FILE, self.torn_line), (SHRUNK_FILE, self.shrunk_torn_line))
        return [f"{self.path / name}: line {n} was cut short (the run was killed while writing it); "
                f"that one line was dropped, every other line was read" for name, n in torn if n]


def read_dir(path: str | os.PathLike) -> ResultsDir:
    """Read one results directory. Later lines for the same (backend, case_id) replace earlier
    ones, as a resumed run appends the new verdict after the old one."""
    d = Path(path)
    if not d.is_dir():
        raise ResultsError(f"{d}: not a results directory (expected a directory holding {RESULTS_FILE})")
    jsonl = d / RESULTS_FILE
    if not jsonl.is_file():
        raise ResultsError(f"{jsonl}: missing (expected the results file that `opconform run --out {d}` writes)")
    results, torn = _read_jsonl(jsonl)
    shrunk, shrunk_torn = _read_jsonl(d / SHRUNK_FILE) if (d / SHRUNK_FILE).is_file() else ([], None)
    return ResultsDir(d, _read_run(d / RUN_FILE), dedup(results), torn, dedup(shrunk), shrunk_torn)


def read_dirs(paths: Iterable[str | os.PathLike]) -> list[ResultsDir]:
    return [read_dir(p) for p in paths]


def _read_run(path: Path) -> dict:
    if not path.is_file():
        return {}
    try:
        run = json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise ResultsError(f"{path}: not valid JSON ({e})") from None
    if not isinstance(run, dict):
        raise ResultsError(f"{path}: expected a JSON object of run metadata")
    return run


def _read_jsonl(path: Path) -> tuple[list[Result], int | None]:
    """The results, and the number of a torn last line (no newline, not JSON: the run was killed
    while writing it) if there is one. Any other line that is not a result is an error."""
    out = []
    with path.open(encoding="utf-8", errors="surrogateescape") as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                out.append(Result.from_json(json.loads(line)))
            except json.JSONDecodeError as e:
                if not line.endswith("\n"):
                    return out, n
                raise ResultsError(f"{path}:{n}: corrupt line, not JSON ({e.msg} at column {e.colno})") from None
            except (KeyError, TypeError, ValueError, AttributeError) as e:
                raise ResultsError(f"{path}:{n}: not a result (expected Result.to_json() fields: {e!r})") from None
    return out, None


def dedup(results: Iterable[Result]) -> list[Result]:
    """One result per (backend, case_id), the last one winning, in first-seen order."""
    keep: dict[tuple[str, str], Result] = {}
    for r in results:
        keep.pop((r.backend, r.case_id), None)
        keep[(r.backend, r.case_id)] = r
    return list(keep.values())


def check_same_run(dirs: Sequence[ResultsDir]) -> None:
    """Refuse to join directories that are not shards of one run."""
    first = dirs[0]
    for other in dirs[1:]:
        for key in RUN_IDENTITY:
            a, b = first.run.get(key), other.run.get(key)
            if a != b:
                raise ResultsError(
                    f"cannot merge {other.path} into {first.path}: different runs ({key} {b!r} vs {a!r}); "
                    f"expected shards of one run with equal {', '.join(RUN_IDENTITY)}"
                )


def merged_run(dirs: Sequence[ResultsDir]) -> dict:
    """run.json for the merged set: the shared identity, the span of time, and every shard's machine."""
    runs = [d.run for d in dirs]
    run = dict(runs[0])
    shards = sorted({r["shard"] for r in runs if r.get("shard")}, key=_shard_key)
    run["shard"] = None
    run["merged_from"] = [{"dir": str(d.path), "shard": d.run.get("shard"), "machine": d.run.get("machine")} for d in dirs]
    run["shards"] = shards
    run["shards_missing"] = _missing_shards(shards)
    # totals the runner records per run: add the shards' up
    if any("cases" in r for r in runs):
        run["cases"] = sum(int(r.get("cases") or 0) for r in runs)
    if any("verdicts" in r for r in runs):
        run["verdicts"] = dict(sum((Counter(r.get("verdicts") or {}) for r in runs), Counter()))
    if any("generation_errors" in r for r in runs):
        run["generation_errors"] = {k: v for r in runs for k, v in (r.get("generation_errors") or {}).items()}
    if any("not_run" in r for r in runs):  # one shard's spec version not run may have run in another
        run["not_run"] = attempts.not_run(r for d in dirs for r in d.results)
    if any("harness_errors" in r for r in runs):
        run["harness_errors"] = [e for r in runs for e in (r.get("harness_errors") or [])]
    if any("unsupported_factors" in r for r in runs):  # every shard probes: keep each value once
        merged: dict[str, list] = {}
        for r in runs:
            for sid, values in (r.get("unsupported_factors") or {}).items():
                known = {(v.get("factor"), v.get("value")) for v in merged.setdefault(sid, [])}
                merged[sid] += [v for v in values if (v.get("factor"), v.get("value")) not in known]
        run["unsupported_factors"] = merged
    starts = [r["started"] for r in runs if r.get("started")]
    ends = [r["finished"] for r in runs if r.get("finished")]
    run["started"] = min(starts) if starts else None
    run["finished"] = max(ends) if len(ends) == len(runs) and ends else None
    return run


def _shard_key(s: str) -> tuple[int, int]:
    k, _, n = s.partition("/")
    return (int(n), int(k)) if k.isdigit() and n.isdigit() else (0, 0)


def _missing_shards(shards: Sequence[str]) -> list[str]:
    totals = {_shard_key(s)[0] for s in shards}
    if len(totals) != 1:
        return []
    n = totals.pop()
    return [f"{k}/{n}" for k in range(1, n + 1) if f"{k}/{n}" not in shards]


def merge(paths: Sequence[str | os.PathLike], out: str | os.PathLike) -> ResultsDir:
    """Join shards' results directories into OUT (results.jsonl + run.json)."""
    if not paths:
        raise ResultsError("merge: expected at least one results directory")
    dirs = read_dirs(paths)
    check_same_run(dirs)
    merged = ResultsDir(Path(out), merged_run(dirs), dedup(r for d in dirs for r in d.results),
                        shrunk=dedup(r for d in dirs for r in d.shrunk))
    merged.path.mkdir(parents=True, exist_ok=True)
    _write_jsonl(merged.path / RESULTS_FILE, merged.results)
    if merged.shrunk:
        _write_jsonl(merged.path / SHRUNK_FILE, merged.shrunk)
    (merged.path / RUN_FILE).write_text(json.dumps(merged.run, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    return merged


def _write_jsonl(path: Path, results: Sequence[Result]) -> None:
    tmp = path.with_name(path.name + ".tmp")
    with tmp.open("w", encoding="utf-8", errors="surrogateescape") as f:
        for r in results:
            f.write(json.dumps(r.to_json(), sort_keys=True) + "\n")
    os.replace(tmp, path)
