"""The cast kernel between ml_dtypes float types that ml_dtypes has no direct cast for."""
import ml_dtypes
import numpy as np
import pytest

from opconform import dtypes
from opconform.oracle.kernels.cast import cast

FLOAT8 = ["float8e4m3fn", "float8e4m3fnuz", "float8e5m2", "float8e5m2fnuz"]


@pytest.mark.parametrize("to", FLOAT8 + ["bfloat16", "float16"])
@pytest.mark.parametrize("saturate", [True, False])
def test_e8m0_to_other_floats_rounds_once_as_through_float64(to, saturate):
    # powers of two from 2**-3 to 2**6: every target holds them exactly, so the cast must keep them
    x = np.array([0.125, 0.5, 1.0, 4.0, 64.0]).astype(ml_dtypes.float8_e8m0fnu)
    got = cast(x, to, saturate=saturate)
    assert got.dtype == dtypes.numpy_dtype(to)
    assert np.array_equal(got.astype(np.float64), [0.125, 0.5, 1.0, 4.0, 64.0])


def test_float8_to_float8_of_another_kind_without_saturation():
    x = np.array([1.5, -2.0, 448.0], dtype=ml_dtypes.float8_e4m3fn)
    got = cast(x, "float8e5m2", saturate=False)
    assert got.dtype == ml_dtypes.float8_e5m2
    assert np.array_equal(got.astype(np.float64), np.array([1.5, -2.0, 448.0]).astype(ml_dtypes.float8_e5m2).astype(np.float64))
