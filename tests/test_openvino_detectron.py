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


def _not_a_known_failure(spec_id: str):
    """GenerateProposalsSingleImage's failures on OpenVINO's CPU plugin that the ci run reports:
    float64 computed in float32, and post_nms_count 0, which kills the process (SIGSEGV)."""
    if spec_id != "openvino::ExperimentalDetectronGenerateProposalsSingleImage-6":
        return None
    return lambda case: case.inputs[1].dtype != np.float64 and case.attributes.get("post_nms_count", 0) > 0


@pytest.mark.backend
@pytest.mark.parametrize("spec_id", [ROI_FEATURES, DEFORMABLE, "openvino::ExperimentalDetectronGenerateProposalsSingleImage-6",
                                     "openvino::ExperimentalDetectronDetectionOutput-6"])
def test_drawn_cases_pass_on_openvino_native(spec_id):
    pytest.importorskip("openvino")
    from opconform.backends import get
    from opconform.model import Verdict
    from opconform.suites import verdicts

    spec = specs.load(spec_id)
    backend = get("openvino-native")
    cases = sampling.generate(spec, 4, 11, kind="valid", expect=oracle.expectation, keep=_not_a_known_failure(spec_id))
    assert cases
    for case in cases:
        verdict, detail, _ = verdicts.judge(spec, case, backend.execute(spec, case))
        assert verdict == Verdict.PASS, (case.id, detail)


PROPOSALS = "openvino::ExperimentalDetectronGenerateProposalsSingleImage-6"
DETECTIONS = "openvino::ExperimentalDetectronDetectionOutput-6"


def _proposals_reference(im_info, anchors, deltas, scores, min_size, nms_threshold, pre, post):
    """experimental_detectron_proposal_single_image.cpp: refine_anchors, partial_sort, nms_cpu
    (coordinates_offset 0), fill_output_blobs, proposal by proposal."""
    a, h, w = scores.shape
    props = []
    for y in range(h):
        for x in range(w):
            for k in range(a):
                x0, y0, x1, y1 = anchors[(y * w + x) * a + k].astype(np.float64)
                dx, dy, dlw, dlh = (float(deltas[4 * k + j, y, x]) for j in range(4))
                ww, hh = x1 - x0 + 1, y1 - y0 + 1
                cx, cy = dx * ww + x0 + 0.5 * ww, dy * hh + y0 + 0.5 * hh
                pw, ph = math.exp(min(dlw, math.log(1000 / 16))) * ww, math.exp(min(dlh, math.log(1000 / 16))) * hh
                box = [cx - 0.5 * pw, cy - 0.5 * ph, cx + 0.5 * pw - 1, cy + 0.5 * ph - 1]
                box = [max(0.0, min(v, float(im_info[1 - i % 2]) - 1)) for i, v in enumerate(box)]
                keep = min_size <= box[2] - box[0] + 1 and min_size <= box[3] - box[1] + 1
                props.append((box, float(scores[k, y, x]) if keep else 0.0))
    props = sorted(props, key=lambda p: -p[1])[:min(pre, len(props))]
    dead, out = [False] * len(props), []
    for i, (bi, si) in enumerate(props):
        if dead[i]:
            continue
        out.append((bi, si))
        if len(out) == post:
            break
        for j in range(i + 1, len(props)):
            bj = props[j][0]
            iw, ih = min(bi[2], bj[2]) - max(bi[0], bj[0]), min(bi[3], bj[3]) - max(bi[1], bj[1])
            inter = max(0.0, iw) * max(0.0, ih)
            union = (bi[2] - bi[0]) * (bi[3] - bi[1]) + (bj[2] - bj[0]) * (bj[3] - bj[1]) - inter
            overlap = inter / union if union else math.nan
            dead[j] = nms_threshold < overlap and bi[0] <= bj[2] and bi[1] <= bj[3] and bj[0] <= bi[2] and bj[1] <= bi[3]
    rois, roi_scores = np.zeros((post, 4)), np.zeros(post)
    for i, (b, s) in enumerate(out):
        rois[i], roi_scores[i] = b, s
    return rois, roi_scores


@pytest.mark.parametrize("seed", range(4))
def test_proposals_are_the_reference_loop(seed):
    rng = np.random.default_rng(seed)
    a, h, w = 2, 2, 3
    corners = rng.integers(0, 20, size=(a * h * w, 2))
    anchors = np.concatenate([corners, corners + rng.integers(0, 10, size=(a * h * w, 2))], axis=1).astype(np.float32)
    deltas = (rng.integers(-8, 9, size=(4 * a, h, w)) / 8).astype(np.float32)
    scores = (rng.permutation(a * h * w) / 64).reshape(a, h, w).astype(np.float32)
    im_info = np.array([24, 28, 1], np.float32)
    attrs = {"min_size": 0.0, "nms_threshold": 0.45, "pre_nms_count": 9, "post_nms_count": 7}
    got = _run(PROPOSALS, [im_info, anchors, deltas, scores], attrs, {"small_boxes": "zero_score"})
    want = _proposals_reference(im_info, anchors, deltas, scores, 0.0, 0.45, 9, 7)
    np.testing.assert_allclose(got[0], want[0], rtol=1e-5, atol=1e-4)
    np.testing.assert_array_equal(got[1], want[1].astype(np.float32))


def _detections_reference(rois, deltas, scores, im_info, attrs):
    """experimental_detectron_detection_output.cpp: refine_boxes (skipping flat ROIs, clamping at
    0), nms_cf per class from 1, the cut by score, the outputs in class order unless cut."""
    weights, classes, limit = attrs["deltas_weights"], attrs["num_classes"], attrs["max_detections_per_image"]
    refined, areas, ok = {}, {}, {}
    for r, (x0, y0, x1, y1) in enumerate(rois.astype(np.float64)):
        ok[r] = x1 - x0 > 0 and y1 - y0 > 0
        ww, hh = x1 - x0 + 1, y1 - y0 + 1
        for c in range(1, classes):
            dx, dy, dlw, dlh = (float(deltas[r, 4 * c + j]) / weights[j] for j in range(4))
            cx, cy = dx * ww + x0 + 0.5 * ww, dy * hh + y0 + 0.5 * hh
            pw = math.exp(min(dlw, attrs["max_delta_log_wh"])) * ww
            ph = math.exp(min(dlh, attrs["max_delta_log_wh"])) * hh
            b = [max(0.0, v) for v in (cx - 0.5 * pw, cy - 0.5 * ph, cx + 0.5 * pw - 1, cy + 0.5 * ph - 1)]
            refined[c, r], areas[c, r] = b, (b[2] - b[0] + 1) * (b[3] - b[1] + 1)
    found = []
    for c in range(1, classes):
        cand = sorted((r for r in range(len(rois)) if ok[r] and scores[r, c] > attrs["score_threshold"]),
                      key=lambda r: (-scores[r, c], r))
        kept = []
        for r in cand:
            bi = refined[c, r]
            suppressed = False
            for k in kept:
                bk = refined[c, k]
                if bk[0] > bi[2] or bk[2] < bi[0] or bk[1] > bi[3] or bk[3] < bi[1]:
                    continue
                iw = min(bi[2], bk[2]) - max(bi[0], bk[0]) + 1
                ih = min(bi[3], bk[3]) - max(bi[1], bk[1]) + 1
                if iw > 0 and ih > 0 and iw * ih / (areas[c, r] + areas[c, k] - iw * ih) > attrs["nms_threshold"]:
                    suppressed = True
                    break
            if not suppressed:
                kept.append(r)
        found += [(float(scores[r, c]), c, r) for r in kept[:attrs["post_nms_count"]]]
    if len(found) > limit:
        found = sorted(found, key=lambda t: (-t[0], t[2]))[:limit]
    boxes, out_classes, out_scores = np.zeros((limit, 4)), np.zeros(limit, np.int32), np.zeros(limit)
    for i, (s, c, r) in enumerate(found):
        boxes[i], out_classes[i], out_scores[i] = refined[c, r], c, s
    return boxes, out_classes, out_scores


@pytest.mark.parametrize("seed, limit", [(0, 10), (1, 4), (2, 2), (3, 6)])
def test_detections_are_the_reference_loop(seed, limit):
    rng = np.random.default_rng(seed)
    rois_count, classes = 6, 3
    corners = rng.integers(0, 16, size=(rois_count, 2))
    rois = np.concatenate([corners, corners + rng.integers(0, 8, size=(rois_count, 2))], axis=1).astype(np.float32)
    deltas = (rng.integers(-8, 9, size=(rois_count, 4 * classes)) / 4).astype(np.float32)
    scores = (rng.permutation(rois_count * classes) / 32).reshape(rois_count, classes).astype(np.float32)
    im_info = np.array([[20, 20, 1]], np.float32)
    attrs = {"score_threshold": 0.1, "nms_threshold": 0.3, "num_classes": classes, "post_nms_count": 3,
             "max_detections_per_image": limit, "max_delta_log_wh": 1.5, "deltas_weights": [2.0, 2.0, 1.0, 1.0]}
    got = _run(DETECTIONS, [rois, deltas, scores, im_info], attrs)
    want = _detections_reference(rois, deltas, scores, im_info, attrs)
    np.testing.assert_allclose(got[0], want[0], rtol=1e-5, atol=1e-4)
    np.testing.assert_array_equal(got[1], want[1])
    np.testing.assert_array_equal(got[2], want[2].astype(np.float32))


def test_detection_rows_past_the_count_are_not_judged():
    """The text leaves the rows after the detections undefined: any values there pass, a wrong
    detection row does not."""
    spec = specs.load(DETECTIONS)
    rois = np.array([[0, 0, 3, 3]], np.float32)
    inputs = [rois, np.zeros((1, 8), np.float32), np.array([[0.1, 0.9]], np.float32), np.array([[32, 32, 1]], np.float32)]
    attrs = spec.resolved_attributes({"score_threshold": 0.05, "nms_threshold": 0.5, "num_classes": 2, "post_nms_count": 2,
                                      "max_detections_per_image": 3, "max_delta_log_wh": 4.0, "deltas_weights": [1.0] * 4})
    boxes, classes, scores = _run(DETECTIONS, inputs, attrs)
    garbage = {"boxes": np.where(np.arange(3)[:, None] > 0, -7.0, boxes).astype(np.float32),
               "classes": np.array([1, 12345, -1], np.int32), "out_scores": np.array([0.9, 3.0, -2.0], np.float32)}
    assert oracle.judge(spec, inputs, attrs, None, garbage) == ""
    wrong = dict(garbage, out_scores=np.array([0.8, 0, 0], np.float32))
    assert "out_scores" in oracle.judge(spec, inputs, attrs, None, wrong)
