"""OpenVINO's ExperimentalDetectron operations and DeformablePSROIPooling: the oracles against
OpenVINO's reference loops written out element by element (the documents give no values), the
level mapping against hand-computed levels, and a few drawn cases on openvino-native."""
from __future__ import annotations

import math

import numpy as np
import pytest

from opconform import oracle, specs
from opconform.generator import sampling

ROI_FEATURES = "openvino::ExperimentalDetectronROIFeatureExtractor-6"
DEFORMABLE = "openvino::DeformablePSROIPooling-1"


def _run(spec_id: str, inputs: list, attributes: dict, policies: dict | None = None) -> tuple:
    return oracle.evaluate(specs.load(spec_id), inputs, attributes, **({"policies": policies} if policies else {}))


def _bilinear_caffe2(plane: np.ndarray, y: float, x: float) -> float:
    """Caffe2's ROIAlign read (OpenVINO's pre_calc_for_bilinear_interpolate): 0 past one pixel
    outside, the edge within it."""
    h, w = plane.shape
    if y < -1.0 or y > h or x < -1.0 or x > w:
        return 0.0
    y, x = max(y, 0.0), max(x, 0.0)
    y0, x0 = int(y), int(x)
    if y0 >= h - 1:
        y0 = y1 = h - 1
        y = float(y0)
    else:
        y1 = y0 + 1
    if x0 >= w - 1:
        x0 = x1 = w - 1
        x = float(x0)
    else:
        x1 = x0 + 1
    ly, lx = y - y0, x - x0
    return ((1 - ly) * (1 - lx) * plane[y0, x0] + (1 - ly) * lx * plane[y0, x1]
            + ly * (1 - lx) * plane[y1, x0] + ly * lx * plane[y1, x1])


def _roi_features_reference(rois, pyramid, size, ratio, scales, aligned):
    """experimental_detectron_roi_feature_extractor.cpp, ROI by ROI and sample by sample."""
    out = np.zeros((len(rois), pyramid[0].shape[1], size, size))
    for i, (x0, y0, x1, y1) in enumerate(rois.astype(np.float64)):
        area = (x1 - x0) * (y1 - y0)
        level = len(pyramid)
        if area > 0:
            level = int(math.floor(math.log2(math.sqrt(area) / 224.0 + 1e-6) + 2))
            level = max(0, min(len(pyramid) - 1, level))
        if level == len(pyramid):
            continue
        scale, offset = 1.0 / scales[level], 0.5 if aligned else 0.0
        sw, sh, ew, eh = x0 * scale - offset, y0 * scale - offset, x1 * scale - offset, y1 * scale - offset
        rw, rh = max(ew - sw, 1.0), max(eh - sh, 1.0)
        bw, bh = rw / size, rh / size
        gh = ratio if ratio > 0 else int(math.ceil(rh / size))
        gw = ratio if ratio > 0 else int(math.ceil(rw / size))
        for c in range(out.shape[1]):
            plane = pyramid[level][0, c].astype(np.float64)
            for ph in range(size):
                for pw in range(size):
                    acc = 0.0
                    for iy in range(gh):
                        for ix in range(gw):
                            y = sh + ph * bh + (iy + 0.5) * bh / gh
                            x = sw + pw * bw + (ix + 0.5) * bw / gw
                            acc += _bilinear_caffe2(plane, y, x)
                    out[i, c, ph, pw] = acc / max(gh * gw, 1)
    return out


@pytest.mark.parametrize("seed, ratio, aligned", [(0, 2, False), (1, 0, False), (2, 1, True), (3, 0, True)])
def test_roi_features_are_the_reference_loop(seed, ratio, aligned):
    rng = np.random.default_rng(seed)
    pyramid = [rng.normal(size=(1, 2, s, s + 1)).astype(np.float32) for s in (8, 5, 3)]
    corners = rng.integers(0, 40, size=(6, 2))
    sides = np.array([[3, 5], [120, 130], [250, 240], [1, 1], [60, 70], [200, 150]])
    rois = np.concatenate([corners, corners + sides], axis=1).astype(np.float32)
    attrs = {"output_size": 2, "sampling_ratio": ratio, "pyramid_scales": [4, 8, 16], "aligned": aligned}
    features, rois_out = _run(ROI_FEATURES, [rois] + pyramid, attrs)
    np.testing.assert_allclose(features, _roi_features_reference(rois, pyramid, 2, ratio, [4, 8, 16], aligned),
                               rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(rois_out, rois)


def test_roi_levels_by_hand():
    """floor(2 + log2(sqrt(w h) / 224)), clamped to the 4 layers: 55 px -> 0 (-0.03 -> clamp), 112 ->
    1, 223 -> 1 (1.99), 224 -> 2, 448 -> 3, 1000 -> 3 (clamp)."""
    from opconform.oracle.openvino.experimentaldetectronroifeatureextractor import levels

    sides = np.array([55.0, 112.0, 223.0, 224.0, 448.0, 1000.0])
    rois = np.stack([np.zeros(6), np.zeros(6), sides, sides], axis=1)
    level, _ = levels(rois, 4)
    assert level.tolist() == [0, 1, 1, 2, 3, 3]
    plus_one, _ = levels(rois, 4, plus_one=True)
    assert plus_one.tolist() == [0, 1, 2, 2, 3, 3]  # 224 x 224 with Detectron's + 1 moves 223 up


def test_rois_output_policy_sorts_by_level_keeping_the_given_order_within_one():
    pyramid = [np.ones((1, 1, 4, 4), np.float32), np.ones((1, 1, 2, 2), np.float32)]
    rois = np.array([[0, 0, 300, 300], [0, 0, 4, 4], [0, 0, 250, 250], [1, 1, 3, 3]], np.float32)
    attrs = {"output_size": 1, "sampling_ratio": 1, "pyramid_scales": [1, 2]}
    _, by_level = _run(ROI_FEATURES, [rois] + pyramid, attrs, {"rois_output": "by_level"})
    np.testing.assert_array_equal(by_level, rois[[1, 3, 0, 2]])


def _mxnet_round(v: float) -> float:
    return math.copysign(math.floor(abs(v) + 0.5), v)


def _deformable_reference(x, rois, offsets, out_dim, g, scale, bins_x, bins_y, trans_std, part):
    """deformable_psroi_pooling.hpp (after MXNet's kernel), output element by output element."""
    _, _, h, w = x.shape
    out = np.zeros((len(rois), out_dim, g, g))
    for r, (b, x1, y1, x2, y2) in enumerate(rois.astype(np.float64)):
        rx1, ry1 = _mxnet_round(x1) * scale - 0.5, _mxnet_round(y1) * scale - 0.5
        rx2, ry2 = (_mxnet_round(x2) + 1) * scale - 0.5, (_mxnet_round(y2) + 1) * scale - 0.5
        rw, rh = max(rx2 - rx1, 0.1), max(ry2 - ry1, 0.1)
        bw, bh = rw / g, rh / g
        c_in = 0
        for c in range(out_dim):
            for ph in range(g):
                for pw in range(g):
                    bx, by = rx1 + pw * bw, ry1 + ph * bh
                    if offsets is not None:
                        classes = offsets.shape[1] // 2
                        k = c // (out_dim // classes)
                        oh, ow = ph * part // g, pw * part // g
                        bx += float(offsets[r, 2 * k, oh, ow]) * trans_std * rw
                        by += float(offsets[r, 2 * k + 1, oh, ow]) * trans_std * rh
                    total, count = 0.0, 0
                    for iy in range(bins_y):
                        sy = by + iy * bh / bins_y
                        if sy < -0.5 or sy > h - 0.5:
                            continue
                        for ix in range(bins_x):
                            sx = bx + ix * bw / bins_x
                            if sx < -0.5 or sx > w - 0.5:
                                continue
                            px, py = min(max(sx, 0.0), w - 1.0), min(max(sy, 0.0), h - 1.0)
                            lx, rx, ty, byy = math.floor(px), math.ceil(px), math.floor(py), math.ceil(py)
                            plane = x[int(b), c_in].astype(np.float64)
                            top = plane[ty, lx] + (plane[ty, rx] - plane[ty, lx]) * (px - lx)
                            bottom = plane[byy, lx] + (plane[byy, rx] - plane[byy, lx]) * (px - lx)
                            total += top + (bottom - top) * (py - ty)
                            count += 1
                    out[r, c, ph, pw] = total / count if count else 0.0
                    c_in += 1
    return out


@pytest.mark.parametrize("seed, with_offsets, classes, part", [(0, False, 1, 1), (1, True, 1, 2), (2, True, 2, 3), (3, True, 3, 1)])
def test_deformable_pooling_is_the_reference_loop(seed, with_offsets, classes, part):
    rng = np.random.default_rng(seed)
    out_dim, g, bins_x, bins_y, scale, std = 6, 2, 3, 2, 0.5, 0.7
    x = rng.normal(size=(2, out_dim * g * g, 5, 7)).astype(np.float32)
    rois = np.concatenate([rng.integers(0, 2, size=(5, 1)), rng.uniform(-2, 14, size=(5, 4))], axis=1).astype(np.float32)
    offsets = rng.uniform(-0.5, 0.5, size=(5, 2 * classes, part, part)).astype(np.float32) if with_offsets else None
    attrs = {"output_dim": out_dim, "group_size": g, "spatial_scale": scale, "spatial_bins_x": bins_x,
             "spatial_bins_y": bins_y, "trans_std": std, "part_size": part}
    (got,) = _run(DEFORMABLE, [x, rois] + ([offsets] if with_offsets else []), attrs)
    want = _deformable_reference(x, rois, offsets, out_dim, g, scale, bins_x, bins_y, std, part)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


@pytest.mark.backend
@pytest.mark.parametrize("spec_id", [ROI_FEATURES, DEFORMABLE])
def test_drawn_cases_pass_on_openvino_native(spec_id):
    pytest.importorskip("openvino")
    from opconform.backends import get
    from opconform.model import Verdict
    from opconform.suites import verdicts

    spec = specs.load(spec_id)
    backend = get("openvino-native")
    cases = sampling.generate(spec, 4, 11, kind="valid", expect=oracle.expectation)
    assert cases
    for case in cases:
        verdict, detail, _ = verdicts.judge(spec, case, backend.execute(spec, case))
        assert verdict == Verdict.PASS, (case.id, detail)
