"""OpenVINO FakeConvert-13: every output is (v + shift) / scale for a v the 8-bit type holds, the
value of that type nearest to data * scale - shift (ties to even), and past the type's range the
saturation policy decides."""
from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from opconform import oracle, specs

F8 = {"f8e4m3": ml_dtypes.float8_e4m3fn, "f8e5m2": ml_dtypes.float8_e5m2}


@pytest.mark.parametrize("destination", sorted(F8))
def test_outputs_are_the_nearest_8_bit_values_mapped_back(destination):
    rng = np.random.default_rng(1)
    data = rng.uniform(-50, 50, 200).astype(np.float32)
    scale, shift = np.array([1.5], np.float32), np.array([0.25], np.float32)
    (y,) = oracle.evaluate(specs.load("openvino::FakeConvert-13"), [data, scale, shift], {"destination_type": destination},
                           {"intermediate_precision": "wide", "saturation": "saturate"})
    v = y.astype(np.float64) * 1.5 - 0.25
    grid = np.unique(np.arange(256, dtype=np.uint8).view(F8[destination]).astype(np.float64))
    grid = grid[np.isfinite(grid)]
    x = data.astype(np.float64) * 1.5 - 0.25
    nearest = grid[np.argmin(np.abs(grid[None, :] - x[:, None]), axis=1)]
    assert np.allclose(v, nearest, rtol=1e-6, atol=1e-6)


def test_saturation_policies_part_past_the_range():
    args = [np.array([1000.0], np.float32), np.array([1.0], np.float32)]
    spec = specs.load("openvino::FakeConvert-13")
    assert oracle.evaluate(spec, args, {"destination_type": "f8e4m3"}, {"saturation": "saturate"})[0].tolist() == [448.0]
    assert np.isnan(oracle.evaluate(spec, args, {"destination_type": "f8e4m3"}, {"saturation": "overflow"})[0]).all()
    assert np.isinf(oracle.evaluate(spec, [np.array([1e6], np.float32), args[1]], {"destination_type": "f8e5m2"},
                                    {"saturation": "overflow"})[0]).all()
