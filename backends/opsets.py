"""Which opsets a spec version is in force at, and which of them a backend should use."""
from __future__ import annotations

from functools import lru_cache

import onnx
import onnx.defs

from opconform.model import SpecVersion

LATEST = onnx.defs.onnx_opset_version()


@lru_cache(maxsize=None)
def latest(domain: str) -> int:
    """The installed onnx's newest opset of an operator-set domain ("" the default: LATEST)."""
    if not domain:
        return LATEST
    from onnx.helper import VERSION_TABLE  # rows: release, IR, ai.onnx, ai.onnx.ml, ai.onnx.training

    column = {"ai.onnx.ml": 3, "ai.onnx.training": 4}.get(domain)
    if column is not None:
        return max(row[column] for row in VERSION_TABLE)
    return max(s.since_version for s in onnx.defs.get_all_schemas_with_history() if s.domain == domain)


@lru_cache(maxsize=None)
def in_force(dialect: str, operator: str, domain: str, since: int) -> tuple[int, int]:
    """(first, last) opset at which version `since` of the operator is the one in force."""
    last = since
    top = latest(domain)
    for opset in range(since + 1, top + 1):
        try:
            schema = onnx.defs.get_schema(operator, opset, domain)
        except onnx.defs.SchemaError:
            return since, _next_in_library(dialect, operator, since, top)
        if schema.since_version != since:
            break
        last = opset
    return since, last


def _next_in_library(dialect: str, operator: str, since: int, latest: int) -> int:
    """For operators onnx.defs does not know: up to the next version the spec library holds."""
    from opconform import specs

    try:
        later = [v.since for v in specs.load_spec(dialect, operator).versions if v.since > since]
    except KeyError:
        later = []
    return min(later) - 1 if later else latest


def pick(spec: SpecVersion, lowest: int, highest: int) -> int | None:
    """The lowest opset >= spec.since that the backend loads and at which the spec version is in force."""
    first, last = in_force(spec.dialect, spec.operator, spec.domain, spec.since)
    if spec.domain:  # a backend's range counts opsets of the default domain; another domain's are its own
        lowest, highest = 1, latest(spec.domain)
    opset = max(first, lowest)
    return opset if opset <= min(last, highest) else None


def lowest_ir(opset: int) -> int:
    """The lowest IR version that can carry this opset (runtimes lag behind the newest IR)."""
    from onnx.helper import VERSION_TABLE

    return min(ir for _, ir, ai_onnx, *_ in VERSION_TABLE if ai_onnx >= opset)
