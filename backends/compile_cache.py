"""Compiled models, and compiles that failed, kept between runs for the compiler backends.

IREE and TVM spend nearly all of a run compiling: a ci run has some 30,000 signatures, and their
compiles took 3.6 and 1.9 hours of worker time (on this project's 2-core machine), against under a
minute running the cases. A compile's result depends only on the model's bytes, the compiler
(its version and flags), the adapter's code that turns the model into the compiler's input, and
the machine's CPU, so it is kept under exactly those: a rerun of the same specs (a CI gate, a
certify sweep after a report change) loads what compiled before and runs the cases again.

What is kept, per model (the name is the SHA-256 of its bytes, as compile_deaths names its marks):
- a compiled artifact (IREE's .vmfb, TVM's shared library), loaded instead of compiling;
- a refusal or crash of the compiler: the exception's type name, message and what the backend
  made of it, raised again as the same words (Remembered), so a warm run says what a cold one said;
- a compile that never returned (its worker died in it, or hung in it until the runner's timeout
  killed it): found as a stale compile_deaths mark by a later worker and kept as that worker's
  CompileDied, so the next run does not spend a worker, or a whole case timeout, on it again.
Failures the machine causes (out of memory, no disk, a compiler killed by SIGKILL: lasting()) are
not kept.

Location: $OPCONFORM_COMPILE_CACHE, else $OPCONFORM_CACHE/compiled (~/.cache/opconform/compiled);
OPCONFORM_COMPILE_CACHE=0 turns it off. A remembered failure reads as the compile's own did (so a
warm run's failure groups and gate findings are the cold run's); deleting the folder compiles again.
A backend's folder of another compiler version, flags or adapter code that no run has opened for
UNUSED_DAYS is removed when a run opens the backend's cache: an upgrade would otherwise leave a
whole ci run's compiles behind (IREE's are 202 MB, TVM's some 400 MB).
"""
from __future__ import annotations

import hashlib
import json
import os
import platform
import re
import shutil
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable

from opconform.backends import compile_deaths
from opconform.backends.compile_deaths import model_name

ENV = "OPCONFORM_COMPILE_CACHE"
FORMAT = "1"
UNUSED_DAYS = 30
USED_MARK = "last-used"  # touched in a folder each time a run opens it
_FOLDER_NAME = re.compile(r"[0-9a-f]{20}")  # what CompileCache names its folders: nothing else is removed


class Remembered(RuntimeError):
    """A compile failure kept from an earlier compile of the same model: raised with the original
    exception's type name (a subclass of this one named after it, so that messages read the same),
    its message, and what the backend classified it as (status) and whether it asked for static
    shapes (static)."""

    status = "error"
    static = False


_REMEMBERED: dict[str, type[Remembered]] = {}


def remembered(type_name: str, message: str, status: str, static: bool) -> Remembered:
    cls = _REMEMBERED.get(type_name)
    if cls is None:
        cls = _REMEMBERED[type_name] = type(type_name, (Remembered,), {"__module__": __name__})
    exc = cls(message)
    exc.status, exc.static = status, static
    return exc


@dataclass
class Hit:
    """A kept compile: the artifact's path and the entry point in it, or the failure to raise."""

    artifact: Path | None = None
    entry: str = ""
    failure: Remembered | None = None


def lasting(exc: BaseException) -> bool:
    """Whether a compile failure is the model's and the compiler's, to be kept: not one the machine
    caused (memory, disk, a compiler the kernel killed)."""
    return not isinstance(exc, (MemoryError, OSError)) and "SIGKILL" not in str(exc)


def enabled() -> bool:
    return os.environ.get(ENV, "") != "0"


def for_backend(backend: str, salt: Iterable[str], adapter_files: Iterable[str | Path]) -> "CompileCache | None":
    """The backend's cache, or None where OPCONFORM_COMPILE_CACHE=0."""
    return CompileCache(backend, salt, adapter_files) if enabled() else None


def root() -> Path:
    if os.environ.get(ENV) and os.environ[ENV] != "0":
        return Path(os.environ[ENV])
    return Path(os.environ.get("OPCONFORM_CACHE") or Path.home() / ".cache" / "opconform") / "compiled"


def _cpu() -> str:
    """What the machine's code generation depends on: a compiler asked for this CPU (IREE's
    --iree-llvmcpu-target-cpu=host) makes code another CPU may not run."""
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return platform.processor() or platform.machine()
    fields = {k.strip(): v.strip() for k, v in (ln.split(":", 1) for ln in text.splitlines() if ":" in ln)}
    return f"{fields.get('model name', '')}|{fields.get('flags', '')}"


class CompileCache:
    """The kept compiles of one backend, compiler version, settings and adapter code."""

    def __init__(self, backend: str, salt: Iterable[str], adapter_files: Iterable[str | Path]) -> None:
        h = hashlib.sha256(f"{FORMAT}\0{backend}\0{platform.machine()}\0{_cpu()}\0".encode())
        for part in salt:
            h.update(part.encode() + b"\0")
        for path in adapter_files:
            h.update(Path(path).read_bytes() + b"\0")
        self.folder = root() / backend / h.hexdigest()[:20]
        self.hits = self.kept = 0
        try:
            if self.folder.is_dir():
                (self.folder / USED_MARK).touch()
            self._remove_unused_siblings()
        except OSError:
            pass  # a cache that cannot be tidied only costs disk

    def _remove_unused_siblings(self) -> None:
        oldest = time.time() - UNUSED_DAYS * 86400
        for folder in self.folder.parent.iterdir() if self.folder.parent.is_dir() else ():
            if folder == self.folder or not folder.is_dir() or not _FOLDER_NAME.fullmatch(folder.name):
                continue
            marks = [folder, folder / USED_MARK]  # a folder's mtime moves as entries are kept in it
            if max(m.stat().st_mtime for m in marks if m.exists()) < oldest:
                shutil.rmtree(folder, ignore_errors=True)

    def lookup(self, name: str) -> Hit | None:
        """The kept compile of the model of this name, or None (never kept, or unreadable)."""
        try:
            entry = json.loads((self.folder / f"{name}.json").read_text())
        except (OSError, ValueError):
            return None
        try:
            if "failure" in entry:
                f = entry["failure"]
                hit = Hit(failure=remembered(f["type"], f["message"], f["status"], bool(f.get("static"))))
            else:
                artifact = self.folder / entry["artifact"]
                if not artifact.is_file():
                    return None
                hit = Hit(artifact=artifact, entry=entry["entry"])
        except (KeyError, TypeError):
            return None  # an entry of another shape: compiled afresh, and replaced
        self.hits += 1
        return hit

    def keep_artifact(self, write: Callable[[Path], None], suffix: str, entries: dict[str, str]) -> Path | None:
        """Keep a compiled artifact that write(path) writes, and for each model name the entry point
        in it that is that model's (several models compiled together share one artifact). The
        artifact's path, or None where it could not be kept (the run goes on without it)."""
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            partial = self.folder / f"artifact.{os.getpid()}.tmp{suffix}"
            try:
                write(partial)
            except Exception:  # noqa: BLE001 - the compiler's export refused it: used from memory, not kept
                partial.unlink(missing_ok=True)
                return None
            digest = hashlib.sha256(partial.read_bytes()).hexdigest()[:32]
            artifact = self.folder / f"{digest}{suffix}"
            os.replace(partial, artifact)  # whole or absent, whichever worker writes it
            for name, entry in entries.items():
                self._write_entry(name, {"artifact": artifact.name, "entry": entry})
        except OSError:
            return None
        self.kept += 1
        return artifact

    def keep_failure(self, name: str, exc: BaseException, status: str, static: bool) -> None:
        """Keep a compile's failure: what classify() and needs_static() made of it, with its words."""
        if isinstance(exc, Remembered) or not lasting(exc):
            return
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            self._write_entry(name, {"failure": {"type": type(exc).__name__, "message": str(exc), "status": status,
                                                 "static": static}})
        except OSError:
            return
        self.kept += 1

    def keep_lost(self, backend: str) -> None:
        """Keep, as crashes, the compiles this run's dead workers left marked (compile_deaths): a
        signature with one case whose compile hung is never asked for again in this run, and
        would cost the next run a whole case timeout."""
        for name, exc in compile_deaths.lost(backend):
            self.keep_failure(name, exc, "crash", False)

    def _write_entry(self, name: str, entry: dict[str, Any]) -> None:
        partial = self.folder / f"{name}.{os.getpid()}.tmp"
        partial.write_text(json.dumps(entry))
        os.replace(partial, self.folder / f"{name}.json")
