"""Hook for onnx::Gemm: A and B that agree on K under transA/transB, C absent or unidirectionally
broadcastable to (M, N), and integral alpha/beta for integer tensors."""
from __future__ import annotations

from hypothesis import strategies as st

from opconform.generator.draft import Draft
from opconform.generator.families.default import input_array


def inputs(draw, d: Draft) -> None:
    side = st.integers(0, d.profile.max_side)
    m, k, n = draw(side), draw(side), draw(side)
    attrs = d.resolved
    a = input_array(draw, d, 0, shape=(k, m) if attrs["transA"] else (m, k))
    b = input_array(draw, d, 1, shape=(n, k) if attrs["transB"] else (k, n))
    c = None
    if d.present[2]:
        c = input_array(draw, d, 2, shape=draw(st.sampled_from([(m, n), (), (n,), (1, n), (m, 1), (1, 1)])))
    d.inputs = [a, b, c]
    if d.dtypes[0] in ("uint32", "uint64", "int32", "int64"):
        for name in ("alpha", "beta"):
            if name in d.attributes:
                d.attributes[name] = float(int(d.attributes[name]))


def break_c_broadcastable(draw, d: Draft) -> None:
    """C with M + 2 rows: neither M nor 1, so it cannot stretch to (M, N)."""
    a, b = d.input("A"), d.input("B")
    m = a.shape[1] if d.resolved["transA"] else a.shape[0]
    n = b.shape[0] if d.resolved["transB"] else b.shape[1]
    d.present[2] = True
    d.set_input("C", input_array(draw, d, 2, shape=(m + 2, n)))


def break_inner_dimensions(draw, d: Draft) -> None:
    """B with one more K than A has (N kept, so C still fits)."""
    b = d.input("B")
    shape = (b.shape[0], b.shape[1] + 1) if d.resolved["transB"] else (b.shape[0] + 1, b.shape[1])
    d.set_input("B", input_array(draw, d, 1, shape=shape))


BREAK = {"c_unidirectional_broadcastable": break_c_broadcastable, "inner_dimensions_match": break_inner_dimensions}
