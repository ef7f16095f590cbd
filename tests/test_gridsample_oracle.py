"""GridSample: the oracle (one gather per combination of taps) against onnx.reference, point by
point, for every mode, padding_mode and align_corners on 1-D, 2-D and 3-D images; the open
choices change outputs where the spec says they do."""
from __future__ import annotations

import itertools

import numpy as np
import pytest

from helpers_image import reference_run
from opconform import oracle, specs
from opconform.generator import sampling


@pytest.mark.parametrize("mode,padding,align", list(itertools.product(["nearest", "linear", "cubic"],
                                                                      ["zeros", "border", "reflection"], [0, 1])))
def test_agrees_with_onnx_reference(mode, padding, align):
    rng = np.random.default_rng(hash((mode, padding, align)) % 2**32)
    for spatial in ((5,), (3, 4), (2, 3, 3)):
        x = rng.integers(-50, 50, size=(2, 2) + spatial).astype(np.float32)
        # sixteenths in [-1.3, 1.3]: halfway points and points outside, exact in float32
        grid = (rng.integers(-21, 22, size=(2,) + (3, 2, 2)[:len(spatial)] + (len(spatial),)) / 16).astype(np.float32)
        attrs = {"mode": mode, "padding_mode": padding, "align_corners": align}
        want = reference_run("GridSample", 22, [x, grid], attrs)[0]
        got = oracle.evaluate("onnx::GridSample-22", [x, grid], attrs)[0]
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-4, err_msg=str((attrs, spatial)))


def test_cubic_padding_of_the_point_or_of_its_taps():
    # a point 0.7 pixels left of a 3-pixel row, border padding: clamped first it reads pixel 0;
    # its taps clamped one by one mix pixels 0 and 1 (PyTorch)
    x = np.array([[[[0.0, 10.0, 20.0]]]], dtype=np.float32)
    grid = np.array([[[[(2 * -0.7 + 1) / 3 - 1, 0.0]]]], dtype=np.float32)  # pixel coordinate -0.7
    exp = oracle.expectation(specs.load("onnx::GridSample-22"), [x, grid], {"mode": "cubic", "padding_mode": "border"})
    by = {a.policies["cubic_padding"]: float(a.outputs[0].reshape(-1)[0]) for a in exp.alternatives}
    assert by["coordinate_and_taps"] == 0.0 and by["taps"] != 0.0


def test_gridsample_16_leaves_the_halfway_rounding_open():
    x = np.arange(4, dtype=np.float32).reshape(1, 1, 1, 4)
    grid = np.array([[[[-0.5, 0.0], [0.5, 0.0]]]], dtype=np.float32)  # pixel coordinates 0.5 and 2.5
    exp = oracle.expectation(specs.load("onnx::GridSample-16"), [x, grid], {"mode": "nearest"})
    by = {a.policies["nearest_halfway"]: a.outputs[0].reshape(-1).tolist() for a in exp.alternatives}
    assert by == {"half_even": [0.0, 2.0], "half_away_from_zero": [1.0, 3.0]}
    exp = oracle.expectation(specs.load("onnx::GridSample-20"), [x, grid], {"mode": "nearest"})
    assert [a.outputs[0].reshape(-1).tolist() for a in exp.alternatives] == [[0.0, 2.0]]  # "rounds to the nearest even index"


@pytest.mark.parametrize("spec_id", ["onnx::GridSample-16", "onnx::GridSample-20", "onnx::GridSample-22"])
def test_valid_drafts_are_rarely_rejected(spec_id):
    # free draws pick the element type apart from the mode (a string X under linear is undefined);
    # the covering rows the ci profile draws hold that pair, so they are held closer
    for t, cap in ((0, 0.4), (2, 0.2)):
        log: list[str] = []
        rate = sampling.rejection_rate(specs.load(spec_id), "ci", 60, t=t, log=log)
        assert rate <= cap, (t, rate, log[:5])
