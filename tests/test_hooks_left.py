"""The hooks left keep no hand-written breaker that a generic one covers (issue 12), except where
the generic breaker cannot reach the relation from the hook's draws (listed, with the reason)."""
from __future__ import annotations

import pytest

from opconform import specs
from opconform.generator import domains, hooks, mutations, solver, tensor_attributes, value_repair

# (spec id pattern, relation): the generic breaker drew no must-refuse case in 20 tries from the
# hook's draws (measured when the others were removed), so the hand-written one stays
STILL_NEEDED = {
    ("onnx::Pad-*", "output_dims_nonnegative"),  # a pad more negative than the dimension: needs the dimension
    ("onnx::Reshape-*", "at_most_one_inferred"),  # two -1 entries: the value breaker moves one element
    ("onnx::Reshape-*", "allowzero_no_zero_with_inferred"),
    ("onnx::ScatterND-*", "indices_in_bounds"),  # index tuples: the value term reads a column per axis
    ("onnx::Scatter*", "indices_in_bounds"),  # 4-12 of 30: the indices' extents and the axis' size move together
    ("onnx::Slice-*", "axes_in_range"),
    ("onnx::Slice-*", "steps_nonzero"),
    # 0 of 20 with the hand-written ones removed: the generic breakers change element_type first
    ("openvino::Constant-*", "content_covers_shape"),  # a size short of the content: needs its bytes
    ("openvino::Constant-*", "shape_nonnegative"),
}


def _generic(spec) -> set[str]:
    return (set(value_repair.breakers(spec)) | set(domains.breakers(spec)) | set(solver.breakers(spec))
            | set(mutations.generic_breakers(spec)) | set(tensor_attributes.breakers(spec)))


def _needed(spec, relation: str) -> bool:
    import fnmatch

    return any(fnmatch.fnmatchcase(spec.id, pat) and relation == r for pat, r in STILL_NEEDED)


@pytest.mark.parametrize("spec", [s for s in specs.select("*") if hooks.module_for(s) is not None], ids=lambda s: s.id)
def test_no_hand_written_breaker_duplicates_a_generic_one(spec):
    hand = set(getattr(hooks.module_for(spec), "BREAK", {}))
    both = {r for r in hand & _generic(spec) if not _needed(spec, r)}
    assert not both, f"{spec.id}: the hook breaks {sorted(both)} by hand where a generic breaker does"
