"""On-disk answers of backend probes (suites/probe.py), so that a backend version is asked once.

What a backend implements depends on the backend and its version; which probe cases ask it
depends on the spec file and on the code that draws them. So the key holds the backend's name
and version, the spec file's content, and the case cache's code key (the generator's source: the
probe case kept as evidence must be the one this code draws, or two machines with different cache
histories would record different cases). Location: next to the case cache,
`$OPCONFORM_CACHE/probes/<code key>/<backend>/<spec>-<digest>.json` (JSON: it is small and worth
reading by eye).
"""
from __future__ import annotations

import hashlib
import json
import os
import re
from pathlib import Path
from typing import Any

from opconform.suites import case_cache

FORMAT = 1  # bump when what a probe asks or how its answer is read changes
_UNSAFE = re.compile(r"[^A-Za-z0-9._+-]")


def spec_file(spec_id: str) -> Path:
    """The spec file that holds a spec version."""
    from opconform.specs.loader import SPEC_ROOT, parse_id

    dialect, op, _ = parse_id(spec_id)
    return SPEC_ROOT / dialect / f"{op}.yaml"


def _path(backend: str, version: str, spec_id: str) -> Path:
    h = hashlib.sha256(f"{FORMAT}\0{backend}\0{version}\0".encode())
    h.update(spec_file(spec_id).read_bytes())
    where = _UNSAFE.sub("_", f"{backend}-{version}")[:80]
    return case_cache.root() / "probes" / case_cache.code_key() / where / \
        f"{_UNSAFE.sub('_', spec_id)}-{h.hexdigest()[:16]}.json"


def load(backend: str, version: str, spec_id: str) -> dict | None:
    """What store() kept for this backend version and spec file, or None."""
    try:
        return json.loads(_path(backend, version, spec_id).read_text())
    except (OSError, ValueError):
        return None


def store(backend: str, version: str, spec_id: str, answer: dict[str, Any]) -> None:
    try:
        path = _path(backend, version, spec_id)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps(answer, sort_keys=True))
        os.replace(tmp, path)
    except OSError:
        pass  # a cache that cannot be written only costs time
