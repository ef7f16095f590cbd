"""RoiAlign and AffineGrid: the vectorized oracles against onnx.reference on drawn inputs, and
the open choices (RoiAlign's max of interpolated samples or of weighted corners; AffineGrid's
axis of one pixel under align_corners)."""
from __future__ import annotations

import numpy as np
import pytest

from helpers_image import reference_run
from opconform import oracle, specs


@pytest.mark.parametrize("mode", ["avg", "max"])
@pytest.mark.parametrize("ctm", ["half_pixel", "output_half_pixel"])
def test_roialign_agrees_with_onnx_reference(mode, ctm):
    rng = np.random.default_rng(len(mode) + len(ctm))
    for k in range(6):
        x = rng.integers(-50, 50, size=(2, 2, 5, 4)).astype(np.float32)
        corners = rng.integers(-2, 22, size=(3, 4)) / 4
        rois = np.concatenate([np.minimum(corners[:, :2], corners[:, 2:]), np.maximum(corners[:, :2], corners[:, 2:])], axis=1).astype(np.float32)
        batch = rng.integers(0, 2, size=3).astype(np.int64)
        attrs = {"mode": mode, "coordinate_transformation_mode": ctm, "output_height": 1 + k % 3, "output_width": 1 + (k + 1) % 3,
                 "sampling_ratio": k % 3, "spatial_scale": [1.0, 0.5, 1.5][k % 3]}
        want = reference_run("RoiAlign", 22, [x, rois, batch], attrs)[0]
        got = oracle.evaluate("onnx::RoiAlign-22", [x, rois, batch], attrs)[0]
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-4, err_msg=str(attrs))


def test_roialign_max_mode_reads_interpolated_samples_or_weighted_corners():
    x = np.array([[[[0.0, 8.0], [8.0, 16.0]]]], dtype=np.float32)
    rois = np.array([[0.0, 0.0, 1.0, 1.0]], dtype=np.float32)
    exp = oracle.expectation(specs.load("onnx::RoiAlign-22"), [x, rois, np.array([0])],
                             {"mode": "max", "sampling_ratio": 1, "coordinate_transformation_mode": "output_half_pixel"})
    by = {a.policies["max_sample"]: float(a.outputs[0].reshape(-1)[0]) for a in exp.alternatives}
    # one sample at (0.5, 0.5): bilinear 8; the largest weighted corner 0.25 * 16 = 4
    assert by == {"interpolated": 8.0, "weighted_corner": 4.0}


@pytest.mark.parametrize("align", [0, 1])
@pytest.mark.parametrize("size", [(2, 3, 4, 5), (2, 1, 3, 2, 4)])
def test_affinegrid_agrees_with_onnx_reference(align, size):
    rng = np.random.default_rng(sum(size) + align)
    k = len(size) - 2
    theta = (rng.integers(-8, 9, size=(2, k, k + 1)) / 4).astype(np.float32)
    s = np.array(size, dtype=np.int64)
    want = reference_run("AffineGrid", 20, [theta, s], {"align_corners": align})[0]
    got = oracle.evaluate("onnx::AffineGrid-20", [theta, s], {"align_corners": align})[0]
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)


def test_affinegrid_keeps_theta_type_and_leaves_one_pixel_open():
    theta = np.array([[[1, 0, 0], [0, 1, 0]]], dtype=np.float64)
    exp = oracle.expectation(specs.load("onnx::AffineGrid-20"), [theta, np.array([1, 1, 1, 2])], {"align_corners": 1})
    by = {a.policies["single_pixel"]: a.outputs[0] for a in exp.alternatives}
    assert {k: v[0, 0, :, 1].tolist() for k, v in by.items()} == {"minus_one": [-1.0, -1.0], "zero": [0.0, 0.0], "plus_one": [1.0, 1.0]}
    assert all(v.dtype == np.float64 for v in by.values())


@pytest.mark.parametrize("spec_id", ["onnx::RoiAlign-10", "onnx::RoiAlign-22", "onnx::AffineGrid-20"])
def test_drawn_without_a_hook(spec_id):
    """RoiAlign's corners in order (value repair fixes each corner against the start it pairs
    with) and AffineGrid's size[0] equal to theta's batch (the solver sets theta's dimension)."""
    from helpers_generator import assert_drawn_without_a_hook

    assert_drawn_without_a_hook(spec_id, t=0, cap=0.1)
    assert_drawn_without_a_hook(spec_id, t=2, cap=0.1)


def test_affinegrid_batch_mismatch_is_a_must_refuse_case():
    from helpers_generator import assert_must_refuse_drafts

    assert_must_refuse_drafts(specs.load("onnx::AffineGrid-20"), "size_batch", tries=12, at_least=6)
