"""OpenVINO ExperimentalDetectronDetectionOutput-6: the document's box refinement per ROI and class
(deltas over deltas_weights, exp clamped at max_delta_log_wh, +1 pixel widths), then per class
from 1 (class 0 is the background; policy background) the scores above score_threshold, greedy NMS
at nms_threshold with +1 widths (Detectron's and OpenVINO's JaccardOverlap: Proposal-4's IoU
with an offset of 1) cut to post_nms_count, and at most max_detections_per_image detections, the
highest scores. Open in the text and policies here: the clip (to the image, or at 0 only as
OpenVINO's reference does), ROIs without extent (refined, or skipped as the reference does), the
order of the detections, the classes' element type. Equal
scores, and an IoU within the type's rounding of nms_threshold, are undefined where they change
the output (oracle-side relations equal_scores_decide, threshold_within_rounding). The rows after
the detections are the text's undefined values: the outputs are `compare: judged`, judge() reading
the detection rows only."""
from __future__ import annotations

import numpy as np

from opconform.model import RelationBroken, SpecVersion
from opconform.oracle.examples import mismatch
from opconform.oracle.kernels.elementwise import wide
from opconform.oracle.openvino.proposal import iou_matrix

_MARGIN = {"float16": 2e-3, "bfloat16": 1.6e-2, "float32": 1e-5, "float64": 1e-12}


def refine(rois: np.ndarray, deltas: np.ndarray, weights, max_delta_log_wh: float) -> np.ndarray:
    """(C, R, 4) boxes: every ROI moved by every class's deltas as the document's formulas say."""
    r, c = rois.shape[0], deltas.shape[1] // 4
    d = deltas.reshape(r, c, 4).transpose(1, 0, 2) / np.asarray(weights, np.float64)[:4]
    x0, y0, x1, y1 = (rois[None, :, i] for i in range(4))
    bw, bh = x1 - x0 + 1.0, y1 - y0 + 1.0
    cx, cy = x0 + 0.5 * bw, y0 + 0.5 * bh
    with np.errstate(over="ignore", invalid="ignore"):
        ew, eh = np.exp(np.minimum(d[..., 2], max_delta_log_wh)), np.exp(np.minimum(d[..., 3], max_delta_log_wh))
    return np.stack([cx + (d[..., 0] - 0.5 * ew) * bw, cy + (d[..., 1] - 0.5 * eh) * bh,
                     cx + (d[..., 0] + 0.5 * ew) * bw - 1.0, cy + (d[..., 1] + 0.5 * eh) * bh - 1.0], axis=-1)


def nudged(overlap: np.ndarray, nudge: float) -> np.ndarray:
    """IoUs moved by -nudge (a threshold moved by +nudge), but for 0 (boxes apart) and 1 (equal
    boxes), which every element type computes exactly."""
    return np.where((overlap > 0) & (overlap < 1), overlap - nudge, overlap)


def _greedy(boxes: np.ndarray, threshold: float, nudge: float, limit: int) -> list[int]:
    """Greedy NMS computing one IoU row per kept box (a class may hold thousands of candidates)."""
    dead = np.zeros(len(boxes), dtype=bool)
    kept: list[int] = []
    for i in range(len(boxes)):
        if dead[i]:
            continue
        if len(kept) == limit:
            break
        kept.append(i)
        rest = np.arange(i + 1, len(boxes))
        rest = rest[~dead[rest]]
        if rest.size:
            dead[rest] |= nudged(iou_matrix(boxes[np.concatenate([[i], rest])], 1.0)[0, 1:], nudge) > threshold
    return kept


def _detections(boxes, scores, attributes, policies, ties_last: bool, nudge: float):
    """(score, class, roi) of every detection, in the order policy `order` asks, at most
    max_detections_per_image of them."""
    agnostic = bool(attributes.get("class_agnostic_box_regression", False))
    first = 0 if policies.get("background", "always_removed") == "removed_if_agnostic" and not agnostic else 1
    threshold, post = float(attributes["score_threshold"]), int(attributes["post_nms_count"])
    found = []
    for c in range(first, scores.shape[1]):
        candidates = np.flatnonzero(scores[:, c] > threshold)
        key = -candidates if ties_last else candidates
        order = candidates[np.lexsort((key, -scores[candidates, c]))]
        kept = order[_greedy(boxes[c][order], float(attributes["nms_threshold"]), nudge, post)]
        found += [(float(scores[k, c]), c, int(k)) for k in kept]
    sign = -1 if ties_last else 1
    by_score = sorted(found, key=lambda t: (-t[0], sign * t[1], sign * t[2]))
    limit = int(attributes["max_detections_per_image"])
    cut = len(found) > limit
    chosen = by_score[:limit]
    order = policies.get("order", "by_class_unless_cut")
    if order == "by_class" or (order == "by_class_unless_cut" and not cut):
        rank = {t: i for i, t in enumerate(found)}  # class-major, NMS order within a class
        chosen = sorted(chosen, key=rank.__getitem__)
    return chosen


def _expected(spec: SpecVersion, inputs: list, attributes: dict, policies: dict) -> tuple[tuple, int]:
    """The three outputs, rows past the detections zero, and how many detections there are."""
    rois, deltas, scores, im_info = (wide(np.asarray(x)) for x in inputs)
    dtype = np.asarray(inputs[0]).dtype
    margin = _MARGIN.get(dtype.name, 1e-5)
    boxes = refine(rois, deltas, attributes["deltas_weights"], float(attributes["max_delta_log_wh"]))
    upper = np.inf if policies.get("clip", "at_zero") == "at_zero" else \
        np.array([im_info[0, 1], im_info[0, 0], im_info[0, 1], im_info[0, 0]]) - 1.0
    boxes = np.maximum(0.0, np.minimum(boxes, upper))
    if policies.get("flat_rois", "skipped") == "skipped":
        flat = (rois[:, 2] - rois[:, 0] <= 0) | (rois[:, 3] - rois[:, 1] <= 0)
        scores = np.where(flat[:, None], -np.inf, scores)  # never above score_threshold
    chosen = _detections(boxes, scores, attributes, policies, False, 0.0)
    for ties_last, nudge in ((True, 0.0), (False, margin), (False, -margin)):
        if _detections(boxes, scores, attributes, policies, ties_last, nudge) != chosen:
            relation = "equal_scores_decide" if ties_last else "threshold_within_rounding"
            raise RelationBroken(spec.id, relation, "undefined",
                                 "equal scores whose order changes the detections or their order" if ties_last
                                 else "an IoU lies within the element type's rounding of nms_threshold")
    limit = int(attributes["max_detections_per_image"])
    out_boxes, out_classes, out_scores = np.zeros((limit, 4)), np.zeros(limit, np.int64), np.zeros(limit)
    for i, (score, c, k) in enumerate(chosen):
        out_boxes[i], out_classes[i], out_scores[i] = boxes[c, k], c, score
    classes_type = np.int64 if policies.get("classes_type", "int32") == "int64" else np.int32
    with np.errstate(all="ignore"):
        return (out_boxes.astype(dtype), out_classes.astype(classes_type), out_scores.astype(dtype)), len(chosen)


def run(spec: SpecVersion, inputs: list, attributes: dict, policies: dict) -> tuple[np.ndarray, ...]:
    """The representative outputs: the rows past the detections, whose values the text leaves
    undefined, zero (what OpenVINO's reference writes); judge() does not read them."""
    return _expected(spec, inputs, attributes, policies)[0]


def judge(spec: SpecVersion, inputs: list, attributes: dict, policies: dict, outputs: dict) -> str:
    """'' when every detection row of every output asked agrees with the oracle under the spec's
    tolerance; the rows after them are the text's undefined values (element type and shape are
    compared before this, as for every `compare: judged` port)."""
    expected, count = _expected(spec, inputs, attributes, policies)
    for port, want in zip(spec.outputs, expected):
        if port.name in outputs:
            found = mismatch(np.asarray(outputs[port.name])[:count], want[:count], spec)
            if found:
                return f"output {port.name}, its first {count} rows (the detections): {found}"
    return ""


def policies_in_play(spec: SpecVersion, inputs: list, attributes: dict) -> set[str]:
    """background only where class_agnostic_box_regression is false, flat_rois only with a ROI
    without extent; the order, the clip and the classes' type always."""
    rois = wide(np.asarray(inputs[0]))
    names = {"order", "clip", "classes_type"}
    if not attributes.get("class_agnostic_box_regression", False):
        names.add("background")
    if rois.ndim == 2 and rois.shape[1] >= 4 and np.any((rois[:, 2] <= rois[:, 0]) | (rois[:, 3] <= rois[:, 1])):
        names.add("flat_rois")
    return names
