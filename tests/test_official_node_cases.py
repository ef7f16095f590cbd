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


def _operators_with_oracle() -> list[str]:
    out = []
    for spec in loadable_specs("onnx"):
        try:
            has = any(oracle.has_oracle(v) for v in spec.versions)
        except Exception:
            has = True  # the oracle exists but does not import: let the test show the failure
        if has:
            out.append(spec.operator)
    return out


@pytest.mark.parametrize("operator", _operators_with_oracle())
def test_official_node_cases_pass(operator):
    results = official.check_operator(operator)
    if not results:
        pytest.skip(f"onnx has no official single-node case for {operator}")
    failed = [r for r in results if not r.passed]
    lines = "\n".join(f"  {r.case.name} (opset {r.case.opset}, {r.spec_id}): {r.message}" for r in failed)
    assert not failed, f"{len(failed)} of {len(results)} official cases of {operator} fail:\n{lines}"
