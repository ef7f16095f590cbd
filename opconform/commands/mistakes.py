"""Mistakes on the command line, and the checks that find them before a command starts work.

A command raises Mistake (or calls a check here that does); cli.main prints it as one line,
`opconform COMMAND: ...`, naming the thing and what was expected, and exits 2. That is the one
error path for mistakes: no command needs its own try/except to turn one into a message.
"""
from __future__ import annotations

import argparse
import os
import tempfile
from pathlib import Path
from typing import Callable, Iterable


class Mistake(Exception):
    """A mistake in what the command was given; its text is the whole message."""


def positive(kind: Callable[[str], float]) -> Callable[[str], float]:
    """An argparse `type=` that reads a number with `kind` (int, float) and refuses zero, negative
    numbers and text that is not a number, naming what was given."""
    def parse(text: str):
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"got {text!r}, expected a positive number") from None
        if value <= 0:
            raise argparse.ArgumentTypeError(f"got {text!r}, expected a positive number")
        return value
    return parse


def spec_pattern(pattern: str | None, files: Iterable[Path] | None = None) -> None:
    """Every comma-separated glob of a --spec must match a spec file or version (in `files`,
    default the installed library): a typo in one of them would otherwise drop those specs silently."""
    from opconform.specs.loader import check_pattern

    try:
        check_pattern(pattern, files)
    except ValueError as e:
        raise Mistake(str(e)) from None


def _file_in_the_way(path: Path) -> Path | None:
    """The path itself or the nearest existing ancestor, when that is not a directory."""
    for p in (path, *path.parents):
        if p.exists():
            return None if p.is_dir() else p
    return None


def writable_dir(path: str | os.PathLike, flag: str = "--out", *, must_exist: bool = False) -> Path:
    """`path`, once it is proven that a file can be written in it, or that it can be created where
    it is (the command creates it: proving does not, so a command that then fails on its other
    input leaves nothing behind); otherwise Mistake naming the flag, the path and why."""
    path = Path(path)
    if must_exist and not path.is_dir() and _file_in_the_way(path) is None:
        raise Mistake(f"{flag} {path}: no such directory")
    _prove_writable(path, f"{flag} {path}")
    return path


def writable_file(path: str | os.PathLike, flag: str = "--out") -> Path:
    """A file that can be (over)written: not a directory, and in a directory that exists or can be
    created and is writable. An existing file is opened for update without changing it."""
    path = Path(path)
    if path.is_dir():
        raise Mistake(f"{flag} {path}: it is a directory; expected a file")
    _prove_writable(path.parent, f"{flag} {path}")
    if path.exists():
        try:
            with open(path, "r+b"):
                pass
        except OSError as e:
            raise Mistake(f"{flag} {path}: cannot write it ({e.strerror or e})") from None
    return path


def _prove_writable(directory: Path, what: str) -> None:
    """Write a probe file in `directory`, or in its nearest existing ancestor when it does not exist
    yet (where it would be created). Permission bits cannot tell: root ignores them, a read-only
    mount ignores root; only a write proves that a write will work."""
    blocker = _file_in_the_way(directory)
    if blocker is not None:
        raise Mistake(f"{what}: {blocker} is a file; expected a directory")
    existing = next((p for p in (directory, *directory.parents) if p.is_dir()), Path("."))
    try:
        fd, probe = tempfile.mkstemp(dir=existing, prefix=".opconform-probe-")
        os.close(fd)
        os.unlink(probe)
    except OSError as e:
        raise Mistake(f"{what}: cannot write there ({e.strerror or e}); expected a directory opconform can create and write") from None
