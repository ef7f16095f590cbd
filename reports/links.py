"""Where each part of a report lives: one detail page per (backend, spec version) under
DIR/details/, and ids inside it for each failure group. Names are derived from the ids alone, so
links agree between the first view and the pages without passing anything around."""
from __future__ import annotations

import hashlib
import re

DETAILS_DIR = "details"
ALL_GROUPS = f"{DETAILS_DIR}/groups.html"  # every failure group (the first view lists the biggest); no pair's anchor starts "groups"
UNSUPPORTED = f"{DETAILS_DIR}/unsupported.html"  # every factor value a backend does not support, per backend


def unsupported_id(backend: str) -> str:
    """The id, inside UNSUPPORTED, of one backend's section."""
    return f"u-{_slug(backend)}-{hashlib.sha1(backend.encode()).hexdigest()[:6]}"


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "-", text).strip("-")


def anchor(backend: str, spec_id: str) -> str:
    """A file-name-safe, unique name for one (backend, spec version): readable slug plus a short hash,
    as two ids may slug alike ("a::b" and "a-b")."""
    return f"d-{_slug(f'{backend}-{spec_id}')}-{hashlib.sha1(f'{backend}|{spec_id}'.encode()).hexdigest()[:6]}"


def page(backend: str, spec_id: str) -> str:
    """The detail page of one (backend, spec version), relative to the report directory."""
    return f"{DETAILS_DIR}/{anchor(backend, spec_id)}.html"


def group_id(verdict: str, symptom: str | None) -> str:
    """The id, inside a detail page, of one failure group's heading: its verdict and symptom key
    (reports/groups.py), the key hashed (it is long and holds any character)."""
    key = f"{verdict}|{symptom or ''}"
    return f"g-{_slug(verdict)}-{hashlib.sha1(key.encode()).hexdigest()[:10]}"
