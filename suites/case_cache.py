"""A cache of generated cases, so that certifying five backends generates the cases once.

Generation is deterministic (same spec, seed, profile and code -> same cases), so its output
can be kept. The key covers everything it depends on: the source of the specs, generator and
oracle stages, of the core model and of the run's planning (plan, profiles), the spec files, and the versions of Hypothesis, NumPy, onnx
and ml_dtypes. Any change to those starts a fresh cache directory. Location: $OPCONFORM_CACHE,
else ~/.cache/opconform.
"""
from __future__ import annotations

import hashlib
import os
import pickle
from functools import lru_cache
from importlib import metadata
from pathlib import Path
from typing import Any, Iterable


_STAGES = ("opconform.specs", "opconform.generator", "opconform.oracle")
_CORE = ("model.py", "dtypes.py", "tensors.py", "containers.py", "compare.py")
# in opconform.suites: how a run turns specs into cases, and the cases described (kept with them)
_PLANNING = ("plan.py", "profiles.py", "described.py")
_LIBRARIES = ("hypothesis", "numpy", "onnx", "ml_dtypes", "pillow")  # pillow: ImageDecoder's encoded images


def root() -> Path:
    return Path(os.environ.get("OPCONFORM_CACHE") or Path.home() / ".cache" / "opconform")


@lru_cache(maxsize=1)
def code_key() -> str:
    import importlib

    import opconform

    h = hashlib.sha256()
    files = [Path(opconform.__file__).parent / name for name in _CORE]
    files += [Path(__file__).parent / name for name in _PLANNING]
    for stage in _STAGES:
        base = Path(importlib.import_module(stage).__file__).parent
        files += sorted(p for p in base.rglob("*") if p.suffix in (".py", ".yaml", ".json") and "__pycache__" not in p.parts)
    for p in files:
        h.update(p.name.encode() + b"\0" + p.read_bytes() + b"\0")
    for lib in _LIBRARIES:
        h.update(f"{lib}={metadata.version(lib)}".encode())
    return h.hexdigest()[:20]


def variant(exclude: Iterable[tuple[str, int]]) -> str:
    """The part of a cache entry's name that the factor values left out of its cases decide (what
    a backend's probe found unsupported, suites/probe.py): '' when none, so a plan without
    exclusions is shared by every backend, and one with them is never mixed with another's."""
    items = sorted(set((str(name), int(i)) for name, i in exclude))
    if not items:
        return ""
    return "-x" + hashlib.sha256(repr(items).encode()).hexdigest()[:12]


def _path(key: str, spec_id: str, profile: str, seed: int, variant: str = "") -> Path:
    safe = spec_id.replace("::", "__").replace("/", "_")
    return root() / "cases" / key / f"{profile}-{seed}" / f"{safe}{variant}.pkl"


def load(key: str, spec_id: str, profile: str, seed: int, variant: str = "") -> Any:
    """What store() kept (a plan.SpecCases), or None."""
    return _read(_path(key, spec_id, profile, seed, variant))


def store(key: str, spec_id: str, profile: str, seed: int, cases: Any, variant: str = "") -> None:
    _write(_path(key, spec_id, profile, seed, variant), cases)


def spec_factors(spec: Any) -> list:
    """generator.spec_factors(spec), kept under the code key and the spec version's own content (a
    test's altered copy of a spec keeps its id): computing them probes the spec's relations (some
    7 ms a spec version, 0.05-0.5 ms to hash it), and every worker that judges a failure needs them."""
    from opconform.generator import spec_factors as compute

    content = hashlib.sha256(pickle.dumps(spec, protocol=pickle.HIGHEST_PROTOCOL)).hexdigest()[:16]
    path = root() / "factors" / code_key() / f"{spec.id.replace('::', '__').replace('/', '_')}-{content}.pkl"
    found = _read(path)
    if found is None:
        found = compute(spec)
        _write(path, found)
    return found


def _read(path: Path) -> Any:
    try:
        with open(path, "rb") as f:
            return pickle.load(f)
    except (OSError, pickle.UnpicklingError, EOFError, AttributeError):
        return None


def _write(path: Path, value: Any) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        with open(tmp, "wb") as f:
            pickle.dump(value, f, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(tmp, path)
    except OSError:
        pass  # a cache that cannot be written only costs time
