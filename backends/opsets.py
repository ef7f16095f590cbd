"""Which opsets a spec version is in force at, and which of them a backend should use."""
from __future__ import annotations

from functools import lru_cache

import onnx
import onnx.defs

from opconform.model import SpecVersion

LATEST = onnx.defs.onnx_opset_version()


@lru_cache(maxsize=None)
def in_force(dialect: str, operator: str, domain: str, since: int) -> tuple[int, int]:
    """(first, last) opset at which version `since` of the operator is the one in force."""
    last = since
    for opset in range(since + 1, LATEST + 1):
        try:
            schema = onnx.defs.get_schema(operator, opset, domain)
        except onnx.defs.SchemaError:
            return since, _next_in_library(dialect, operator, since, LATEST)
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
    opset = max(first, lowest)
    return opset if opset <= min(last, highest) else None


def lowest_ir(opset: int) -> int:
    """The lowest IR version that can carry this opset (runtimes lag behind the newest IR)."""
    from onnx.helper import VERSION_TABLE

    return min(ir for _, ir, ai_onnx, *_ in VERSION_TABLE if ai_onnx >= opset)
