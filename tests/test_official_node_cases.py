"""Every official ONNX single-node case of an operator that has a spec file and an oracle
passes through the oracle (onnx.backend.test.case.node, via opconform.oracle.official).

One test per operator, found from the spec library, so operators added later are picked up.
Collecting the official cases takes several seconds; opconform.oracle.official caches them
per process, so only the first test of a worker pays for it.
"""
from __future__ import annotations

import pytest

from helpers_library import loadable_specs
from opconform import oracle
from opconform.oracle import official
from opconform.specs import dialects


def _operators_with_oracle() -> list[tuple[str, str]]:
    """(dialect, operator) of every ONNX dialect's spec with an oracle: ai.onnx.ml's too."""
    out = []
    for spec in [s for d in dialects.of_format("onnx") for s in loadable_specs(d)]:
        try:
            has = any(oracle.has_oracle(v) for v in spec.versions)
        except Exception:
            has = True  # the oracle exists but does not import: let the test show the failure
        if has:
            out.append((spec.dialect, spec.operator))
    return out


@pytest.mark.parametrize("dialect,operator", [pytest.param(d, op, id=op if d == "onnx" else f"{d}::{op}")
                                              for d, op in _operators_with_oracle()])
def test_official_node_cases_pass(dialect, operator):
    results = official.check_operator(operator, dialect)
    if not results:
        pytest.skip(f"onnx has no official single-node case for {operator}")
    failed = [r for r in results if not r.passed]
    lines = "\n".join(f"  {r.case.name} (opset {r.case.opset}, {r.spec_id}): {r.message}" for r in failed)
    assert not failed, f"{len(failed)} of {len(results)} official cases of {operator} fail:\n{lines}"
