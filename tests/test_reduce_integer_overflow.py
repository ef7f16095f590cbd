"""Issue 13 item 4: an integer Reduce* whose sums or products leave the type's range in some order
is undefined (the text does not define integer overflow): onnxruntime's wrapped answer and a
saturated one both pass, on the versions that take axes as an input too. In range, it is checked."""
import numpy as np
import pytest

from opconform.model import Verdict

from helpers_oracle import expect, verdict

AXES = np.array([1], np.int64)


def _wrapped(values, dtype, how):
    """The answer of an implementation that accumulates in the type itself (two's complement)."""
    acc = dtype.type(0) if how != "prod" else dtype.type(1)
    with np.errstate(over="ignore"):
        for v in values:
            v = dtype.type(v)
            acc = acc * v if how == "prod" else acc + (v * v if how == "square" else abs(v) if how == "abs" else v)
    return acc


@pytest.mark.parametrize("spec_id, row, how", [
    ("onnx::ReduceSum-13", [2**31 - 1, 1, 0], "sum"),
    ("onnx::ReduceL1-18", [-2**31 + 1, -2**31 + 1, 2], "abs"),
    ("onnx::ReduceSumSquare-18", [40000, 40000, 1], "square"),
    ("onnx::ReduceProd-18", [65536, 65536, 1], "prod"),
])
def test_overflow_along_an_axes_input_is_undefined(spec_id, row, how):
    x = np.array([row, [1, 2, 3]], np.int32)
    _, e = expect(spec_id, [x, AXES], {"keepdims": 0})
    assert e.kind == "undefined" and e.relation == "integer_overflow"
    wrapped = np.array([_wrapped(row, np.dtype(np.int32), how), _wrapped([1, 2, 3], np.dtype(np.int32), how)], np.int32)
    saturated = np.array([2**31 - 1, wrapped[1]], np.int32)
    for got in (wrapped, saturated):
        assert verdict(spec_id, [x, AXES], {"keepdims": 0}, got)[0] is Verdict.PASS


@pytest.mark.parametrize("spec_id, row, how", [
    ("onnx::ReduceL1-18", [-2**30, -2**30 + 1, 0], "abs"),
    ("onnx::ReduceProd-18", [-65536, 16384, 1], "prod"),
])
def test_in_range_along_an_axes_input_is_checked(spec_id, row, how):
    x = np.array([row, [1, 2, 3]], np.int32)
    _, e = expect(spec_id, [x, AXES], {"keepdims": 0})
    assert e.kind == "outputs"
    right = np.array([_wrapped(row, np.dtype(np.int32), how), _wrapped([1, 2, 3], np.dtype(np.int32), how)], np.int32)
    assert verdict(spec_id, [x, AXES], {"keepdims": 0}, right)[0] is Verdict.PASS
    assert verdict(spec_id, [x, AXES], {"keepdims": 0}, right + 1)[0] is Verdict.MISMATCH
