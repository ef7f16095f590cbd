"""The results directory: DIR/results.jsonl (one Result per line, appended the moment its verdict
is known) and DIR/run.json (what was run, where, when).

Durability: each line is written with one write() and flushed, so the kernel holds it even if the
process is SIGKILLed a microsecond later. fsync (which only matters if the machine itself goes
down) runs at most once per `fsync_every` seconds and at close, because an fsync per line would
cost more than the cases. A torn last line (killed mid-write) is cut off on resume and its case redone.
"""
from __future__ import annotations

import json
import os
import platform
import socket
import sys
from datetime import datetime, timezone
from pathlib import Path
from time import monotonic
from typing import Any, Mapping

from opconform.model import Result

RESULTS = "results.jsonl"
RUN = "run.json"


class CorruptResults(ValueError):
    pass


def now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def machine() -> dict:
    return {"platform": platform.platform(), "python": sys.version.split()[0], "cpu_count": os.cpu_count(),
            "hostname": socket.gethostname()}


def read_run(out: Path) -> dict:
    try:
        return json.loads((Path(out) / RUN).read_text())
    except FileNotFoundError:
        raise CorruptResults(f"{Path(out) / RUN}: missing; expected a results directory written by `opconform run`") from None
    except json.JSONDecodeError as e:
        raise CorruptResults(f"{Path(out) / RUN}: not valid JSON ({e.msg} at line {e.lineno})") from None


def write_run(out: Path, meta: Mapping[str, Any]) -> None:
    """Atomically: a kill during the write leaves the previous run.json intact."""
    path = Path(out) / RUN
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(dict(meta), indent=2) + "\n")
    os.replace(tmp, path)


def scan(path: Path) -> tuple[list[dict], int]:
    """Every complete line of a results file, and the byte length of the complete part.
    A last line without its newline, or one that is not JSON, was torn by a kill: it is left out."""
    rows, good = [], 0
    try:
        data = Path(path).read_bytes()
    except FileNotFoundError:
        return [], 0
    pos = 0
    while pos < len(data):
        end = data.find(b"\n", pos)
        if end < 0:
            break  # torn: no newline
        line = data[pos:end]
        try:
            rows.append(json.loads(line))
        except json.JSONDecodeError:
            if data.find(b"\n", end + 1) >= 0:
                raise CorruptResults(f"{path}: line {len(rows) + 1} is not JSON; expected one result per line") from None
            break  # a garbled last line: torn as well
        pos = good = end + 1
    return rows, good


def load_results(out: Path) -> list[Result]:
    rows, _ = scan(Path(out) / RESULTS)
    return [Result.from_json(r) for r in rows]


class ResultsWriter:
    """Appends results to DIR/results.jsonl; on resume, first cuts off a torn last line."""

    def __init__(self, out: Path, *, resume: bool, fsync_every: float = 1.0):
        self.path = Path(out) / RESULTS
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.done: set[str] = set()
        self.previous: list[dict] = []
        if resume:
            self.previous, good = scan(self.path)
            self.done = {r["case_id"] for r in self.previous}
            if self.path.exists() and self.path.stat().st_size != good:
                with open(self.path, "r+b") as f:
                    f.truncate(good)
        elif self.path.exists() and self.path.stat().st_size:
            raise FileExistsError(f"{out} already holds results; pass --resume to continue that run or choose another --out")
        self._f = open(self.path, "ab", buffering=0)
        self._fsync_every = fsync_every
        self._synced = monotonic()

    def write(self, case_id: str, line: bytes) -> None:
        """Append one JSON line (with its newline) for this case."""
        self._f.write(line)  # unbuffered: one write() syscall per line
        self.done.add(case_id)
        if monotonic() - self._synced >= self._fsync_every:
            os.fsync(self._f.fileno())
            self._synced = monotonic()

    def write_many(self, lines: list[tuple[str, bytes]]) -> None:
        """Append several (case id, JSON line) at once: one write() for all of them, so that a
        kill leaves each either whole in the kernel's hands or (the last, at worst) torn."""
        data = memoryview(b"".join(line for _, line in lines))
        while data:  # a raw write() may take less than all it is given
            data = data[self._f.write(data):]
        self.done.update(case_id for case_id, _ in lines)
        if monotonic() - self._synced >= self._fsync_every:
            os.fsync(self._f.fileno())
            self._synced = monotonic()

    def close(self) -> None:
        if not self._f.closed:
            os.fsync(self._f.fileno())
            self._f.close()

    def __enter__(self) -> "ResultsWriter":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

