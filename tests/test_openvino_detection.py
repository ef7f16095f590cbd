"""OpenVINO's detection operations: ROIAlign-9 through ONNX's RoiAlign kernel (its three aligned
modes against the document's coordinate formulas, max pooling of interpolated samples), and
ReorgYolo-1's darknet order against OpenVINO's reference loop written out."""
from __future__ import annotations

import numpy as np
import pytest

from opconform import oracle, specs
from opconform.oracle.openvino import mapped


def _run(spec_id: str, inputs: list, attributes: dict, policies: dict | None = None) -> np.ndarray:
    return np.asarray(oracle.evaluate(specs.load(spec_id), inputs, attributes, policies=policies)[0]
                      if policies else oracle.evaluate(specs.load(spec_id), inputs, attributes)[0])


@pytest.mark.parametrize("aligned_mode, shift_in, shift_out, at_least_one", [
    ("asymmetric", 0.0, 0.0, True), ("half_pixel_for_nn", 0.0, -0.5, False), ("half_pixel", 0.5, -0.5, False)])
def test_roi_align_box_corners_follow_the_documents_formulas(aligned_mode, shift_in, shift_out, at_least_one):
    """The ONNX box corners the mapping hands over are the document's: (x + shift_in) * scale + shift_out."""
    spec = specs.load("openvino::ROIAlign-9")
    rois = np.array([[1.0, 2.0, 3.5, 2.25]], dtype=np.float32)
    attrs = spec.resolved_attributes({"pooled_h": 1, "pooled_w": 1, "sampling_ratio": 1, "spatial_scale": 2.0,
                                      "mode": "avg", "aligned_mode": aligned_mode})
    args, onnx_attrs = mapped.onnx_arguments(spec, [np.zeros((1, 1, 4, 4), np.float32), rois, np.zeros(1, np.int32)], attrs)
    onnx_shift = 0.0 if onnx_attrs["coordinate_transformation_mode"] == "output_half_pixel" else -0.5
    np.testing.assert_allclose(args[1] * 2.0 + onnx_shift, (rois + shift_in) * 2.0 + shift_out)
    assert (onnx_attrs["coordinate_transformation_mode"] == "output_half_pixel") == at_least_one


def test_roi_align_max_pools_interpolated_samples_even_when_all_are_negative():
    x = -np.arange(1, 10, dtype=np.float32).reshape(1, 1, 3, 3)
    attrs = {"pooled_h": 1, "pooled_w": 1, "sampling_ratio": 2, "spatial_scale": 1.0, "mode": "max"}
    got = _run("openvino::ROIAlign-9", [x, np.array([[0, 0, 2, 2]], np.float32), np.zeros(1, np.int64)], attrs)
    samples = [(-1 - 2 - 4 - 5) / 4, (-2 - 3 - 5 - 6) / 4, (-4 - 5 - 7 - 8) / 4, (-5 - 6 - 8 - 9) / 4]
    assert got.reshape(-1).tolist() == [max(samples)]


def test_roi_align_document_example_shape_with_two_of_its_boxes():
    """The IR example (1000 boxes over 7x256x200x200 maps; 40 s and 1 GB for the oracle) with two of
    its boxes over 7x256x8x8 maps (the output's shape does not depend on the maps' extent): [2, 256, 6, 6]."""
    data = np.random.default_rng(0).normal(size=(7, 256, 8, 8)).astype(np.float32)
    rois = np.array([[0.0, 0.0, 4.0, 5.0], [1.0, 2.0, 9.0, 8.0]], np.float32)
    attrs = {"pooled_h": 6, "pooled_w": 6, "spatial_scale": 16.0, "sampling_ratio": 2, "mode": "avg", "aligned_mode": "half_pixel"}
    got = _run("openvino::ROIAlign-9", [data, rois, np.array([0, 6], np.int32)], attrs)
    assert got.shape == (2, 256, 6, 6) and got.dtype == np.float32


def _reorg_reference_loop(x: np.ndarray, stride: int) -> np.ndarray:
    """OpenVINO's reference reorg_yolo.cpp, element by element."""
    n_, c_, h_, w_ = x.shape
    oc = c_ // (stride * stride)
    flat, out = x.reshape(-1), np.empty(x.size, x.dtype)
    for n in range(n_):
        for c in range(c_):
            for h in range(h_):
                for w in range(w_):
                    offset = c // oc
                    src = ((n * oc + c % oc) * h_ * stride + h * stride + offset // stride) * w_ * stride + w * stride + offset % stride
                    out[((n * c_ + c) * h_ + h) * w_ + w] = flat[src]
    return out.reshape(n_, c_ * stride * stride, h_ // stride, w_ // stride)


@pytest.mark.parametrize("shape, stride", [((1, 4, 2, 2), 2), ((2, 18, 6, 3), 3), ((1, 8, 4, 6), 2), ((2, 3, 2, 2), 1)])
def test_reorg_yolo_is_darknets_reorg(shape, stride):
    x = np.arange(int(np.prod(shape)), dtype=np.int32).reshape(shape)
    np.testing.assert_array_equal(_run("openvino::ReorgYolo-1", [x], {"stride": stride}), _reorg_reference_loop(x, stride))


def test_reorg_yolo_is_not_space_to_depth():
    x = np.arange(16, dtype=np.float32).reshape(1, 4, 2, 2)
    got = _run("openvino::ReorgYolo-1", [x], {"stride": 2})
    s2d = x.reshape(1, 4, 1, 2, 1, 2).transpose(0, 3, 5, 1, 2, 4).reshape(1, 16, 1, 1)
    assert not np.array_equal(got, s2d)


def _roi_bilinear_reference_loop(x: np.ndarray, roi: np.ndarray, ph: int, pw: int) -> np.ndarray:
    """OpenVINO's reference roi_pooling.hpp, method bilinear, for one box, point by point."""
    _, c_, h_, w_ = x.shape
    b, x1, y1, x2, y2 = roi
    out = np.zeros((c_, ph, pw))
    for c in range(c_):
        for i in range(ph):
            for j in range(pw):
                yy = ((h_ - 1) * y2 if i == ph - 1 else i * (y2 - y1) * (h_ - 1) / (ph - 1) + y1 * (h_ - 1)) if ph > 1 \
                    else 0.5 * (y1 + y2) * (h_ - 1)
                xx = ((w_ - 1) * x2 if j == pw - 1 else j * (x2 - x1) * (w_ - 1) / (pw - 1) + x1 * (w_ - 1)) if pw > 1 \
                    else 0.5 * (x1 + x2) * (w_ - 1)
                if not (0 <= yy <= h_ - 1 and 0 <= xx <= w_ - 1):
                    continue
                t, l = int(np.floor(yy)), int(np.floor(xx))
                bo, r = min(int(np.ceil(yy)), h_ - 1), min(int(np.ceil(xx)), w_ - 1)
                m = x[int(b), c]
                top = m[t, l] + (m[t, r] - m[t, l]) * (xx - l)
                bottom = m[bo, l] + (m[bo, r] - m[bo, l]) * (xx - l)
                out[c, i, j] = top + (bottom - top) * (yy - t)
    return out


@pytest.mark.parametrize("ph, pw", [(1, 1), (2, 3), (4, 2)])
def test_roi_pooling_bilinear_is_the_reference_grid(ph, pw):
    rng = np.random.default_rng(3)
    x = rng.normal(size=(2, 3, 5, 6))
    rois = np.array([[0, 0.1, 0.2, 0.9, 0.7], [1, 0.0, 0.0, 1.0, 1.0], [1, 0.5, 0.6, 1.3, 0.9]])
    attrs = {"pooled_h": ph, "pooled_w": pw, "spatial_scale": 1.0, "method": "bilinear"}
    got = _run("openvino::ROIPooling-1", [x, rois], attrs)
    want = np.stack([_roi_bilinear_reference_loop(x, r, ph, pw) for r in rois])
    np.testing.assert_allclose(got, want, atol=1e-12)


def test_roi_pooling_max_is_onnx_max_roi_pool():
    rng = np.random.default_rng(4)
    x = rng.normal(size=(2, 2, 6, 6)).astype(np.float32)
    rois = np.array([[1, 0, 0, 8, 5], [0, 2, 1, 3, 9]], np.float32)
    got = _run("openvino::ROIPooling-1", [x, rois], {"pooled_h": 2, "pooled_w": 3, "spatial_scale": 0.5})
    onnx = specs.load("onnx::MaxRoiPool-1")
    want = oracle.evaluate(onnx, [x, rois], {"pooled_shape": [2, 3], "spatial_scale": 0.5})[0]
    np.testing.assert_array_equal(got, want)


def test_prior_box_clustered_is_the_reference_loop():
    attrs = {"width": [86.0, 13.0, 57.0], "height": [44.0, 10.0, 30.0], "offset": 0.5, "step_w": 16.0, "step_h": 8.0,
             "variance": [0.1, 0.1, 0.2, 0.2], "clip": True}
    grid, image = np.array([3, 4], np.int64), np.array([30, 64], np.int64)
    got = _run("openvino::PriorBoxClustered-1", [grid, image], attrs)
    boxes, variances = [], []
    for h in range(3):
        for w in range(4):
            cx, cy = (w + 0.5) * 16.0, (h + 0.5) * 8.0
            for bw, bh in zip(attrs["width"], attrs["height"]):
                box = [(cx - bw / 2) / 64, (cy - bh / 2) / 30, (cx + bw / 2) / 64, (cy + bh / 2) / 30]
                boxes += [min(max(v, 0.0), 1.0) for v in box]
                variances += attrs["variance"]
    np.testing.assert_allclose(got, np.array([boxes, variances], np.float32), rtol=1e-6)


@pytest.mark.parametrize("do_softmax", [True, False])
def test_region_yolo_applies_the_logistic_and_softmax_per_region(do_softmax):
    """Two regions of 4 coordinates, the objectness and 3 classes over a 2x3 map: x, y and the
    objectness through the logistic function, the classes through a softmax (v2) or the logistic
    function (v3), w and h copied."""
    rng = np.random.default_rng(7)
    x = rng.normal(size=(1, 16, 2, 3)) * 3
    attrs = {"coords": 4, "classes": 3, "num": 2, "do_softmax": do_softmax, "mask": [0, 1], "axis": 1, "end_axis": 3}
    got = _run("openvino::RegionYolo-1", [x], attrs).reshape(1, 2, 8, 2, 3)
    r = x.reshape(1, 2, 8, 2, 3)
    logistic = 1 / (1 + np.exp(-r))
    np.testing.assert_allclose(got[:, :, [0, 1, 4]], logistic[:, :, [0, 1, 4]], rtol=1e-12)
    np.testing.assert_array_equal(got[:, :, 2:4], r[:, :, 2:4])
    if do_softmax:
        e = np.exp(r[:, :, 5:])
        np.testing.assert_allclose(got[:, :, 5:], e / e.sum(axis=2, keepdims=True), rtol=1e-12)
    else:
        np.testing.assert_allclose(got[:, :, 5:], logistic[:, :, 5:], rtol=1e-12)


def test_psroi_average_with_one_bin_is_the_mean_of_the_rounded_box():
    rng = np.random.default_rng(8)
    x = rng.normal(size=(2, 2, 6, 5))
    rois = np.array([[1, 0.4, 1.6, 3.2, 4.5], [0, 2.0, 0.0, 2.0, 0.0]])  # rounded: [0, 2, 3, 5] and [2, 0, 2, 0]
    got = _run("openvino::PSROIPooling-1", [x, rois], {"output_dim": 2, "group_size": 1, "spatial_scale": 1.0})
    np.testing.assert_allclose(got[0, :, 0, 0], x[1, :, 2:6, 0:4].mean(axis=(1, 2)), rtol=1e-12)
    np.testing.assert_allclose(got[1, :, 0, 0], x[0, :, 0, 2], rtol=1e-12)


def test_psroi_bilinear_averages_the_sub_boxes_centres():
    """group_size 1: one point per sub-box, at its centre in pixels ((W - 1) times the normalised
    coordinate), read from channel (sub-box index) * output_dim + c_out."""
    rng = np.random.default_rng(9)
    x = rng.normal(size=(1, 4, 5, 5))
    attrs = {"output_dim": 1, "group_size": 1, "spatial_scale": 1.0, "mode": "bilinear", "spatial_bins_x": 2, "spatial_bins_y": 2}
    got = _run("openvino::PSROIPooling-1", [x, np.array([[0, 0.0, 0.0, 1.0, 1.0]])], attrs)
    centres = [(1.0, 1.0), (1.0, 3.0), (3.0, 1.0), (3.0, 3.0)]  # (y, x) of the four sub-boxes of the whole map
    assert got.shape == (1, 1, 1, 1)
    np.testing.assert_allclose(got[0, 0, 0, 0], np.mean([x[0, k, int(y), int(c)] for k, (y, c) in enumerate(centres)]), rtol=1e-12)


def test_roi_align_rotated_quarter_turn_swaps_the_axes():
    """A 4 x 2 box turned by pi/2 samples where the 2 x 4 box does (the rotation about the centre)."""
    rng = np.random.default_rng(10)
    x = rng.normal(size=(1, 2, 7, 7))
    attrs = {"pooled_h": 2, "pooled_w": 2, "sampling_ratio": 2, "spatial_scale": 1.0}
    turned = _run("openvino::ROIAlignRotated-15", [x, np.array([[3.5, 3.5, 4.0, 2.0, np.pi / 2]]), np.zeros(1, np.int64)], attrs)
    flat = _run("openvino::ROIAlignRotated-15", [x, np.array([[3.5, 3.5, 2.0, 4.0, 0.0]]), np.zeros(1, np.int64)], attrs)
    # bin (i, j) of the turned box covers bin (j, 1 - i) of the upright one
    np.testing.assert_allclose(turned[0, :, :, :], np.rot90(flat[0], k=-1, axes=(1, 2)), atol=1e-12)


def test_roi_align_rotated_document_example_shape_with_two_of_its_boxes():
    data = np.random.default_rng(11).normal(size=(7, 256, 8, 8)).astype(np.float32)
    rois = np.array([[2.0, 2.0, 3.0, 1.0, 0.3], [4.0, 5.0, 2.0, 2.0, -1.0]], np.float32)
    attrs = {"pooled_h": 6, "pooled_w": 6, "spatial_scale": 16.0, "sampling_ratio": 2, "clockwise_mode": True}
    got = _run("openvino::ROIAlignRotated-15", [data, rois, np.array([0, 6], np.int32)], attrs)
    assert got.shape == (2, 256, 6, 6) and got.dtype == np.float32


def test_prior_grid_shifts_every_prior_to_every_cell_centre():
    priors = np.array([[-1.0, -2.0, 1.0, 2.0], [0.0, 0.0, 4.0, 4.0]])
    fmap, image = np.zeros((1, 5, 2, 3)), np.zeros((1, 3, 8, 12))
    got = _run("openvino::ExperimentalDetectronPriorGridGenerator-6", [priors, fmap, image], {"flatten": False, "stride_y": 3.0})
    assert got.shape == (2, 3, 2, 4)
    for y in range(2):
        for x in range(3):
            shift = np.array([(x + 0.5) * 4.0, (y + 0.5) * 3.0] * 2)  # stride_x 0: 12 / 3
            np.testing.assert_allclose(got[y, x], priors + shift, rtol=1e-12)
