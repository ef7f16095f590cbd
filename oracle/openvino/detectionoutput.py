"""OpenVINO DetectionOutput-8: SSD's detection output (Caffe's DetectionOutput layer, and with two more
inputs RefineDet's anchor refinement). Per image: the location predictions decoded against the
priors (CORNER: prior + variance * offset; CENTER_SIZE: centre moved by variance * offset * size,
size scaled by exp(variance * offset)), the confidences per class, per-class greedy NMS over the
scores above confidence_threshold cut to top_k (Caffe), or with decrease_label_id one best class per
prior (MXNet, labels less one), at most keep_top_k detections by score; rows
[image, label, score, x1, y1, x2, y2] per image in ascending label order, the first unused row's
image -1, the others 0.

The document cites the SSD and RefineDet papers and names the attributes; the steps are Caffe's,
MXNet's and OpenVINO's. Computed in float64. Equal candidate scores, and a score or IoU within the
element type's rounding of its threshold, are undefined (oracle-side relations)."""
from __future__ import annotations

import numpy as np

from opconform.model import RelationBroken, SpecVersion
from opconform.oracle.kernels.elementwise import wide
from opconform.oracle.openvino.proposal import margin_of

CORNER = "caffe.PriorBoxParameter.CORNER"


def decode(priors: np.ndarray, variances: np.ndarray, offsets: np.ndarray, code_type: str) -> np.ndarray:
    """(P, 4) boxes from (P, 4) priors, (P, 4) variances (ones where encoded in the target) and offsets."""
    if code_type == CORNER:
        return priors + variances * offsets
    size = priors[:, 2:] - priors[:, :2]
    centre = (priors[:, :2] + priors[:, 2:]) / 2 + variances[:, :2] * offsets[:, :2] * size
    half = np.exp(variances[:, 2:] * offsets[:, 2:]) * size / 2
    return np.concatenate([centre - half, centre + half], -1)


def jaccard(boxes: np.ndarray) -> np.ndarray:
    """Caffe's JaccardOverlap of every pair: 0 unless the intersection has width and height."""
    x0 = np.maximum(boxes[:, None, 0], boxes[None, :, 0])
    y0 = np.maximum(boxes[:, None, 1], boxes[None, :, 1])
    iw = np.minimum(boxes[:, None, 2], boxes[None, :, 2]) - x0
    ih = np.minimum(boxes[:, None, 3], boxes[None, :, 3]) - y0
    size = np.where((boxes[:, 2] < boxes[:, 0]) | (boxes[:, 3] < boxes[:, 1]), 0.0,
                    (boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1]))
    inter = iw * ih
    with np.errstate(all="ignore"):
        return np.where((iw > 0) & (ih > 0), inter / (size[:, None] + size[None, :] - inter), 0.0)


class _Judge:
    """The oracle-side relations: what the text leaves open for these inputs."""

    def __init__(self, spec: SpecVersion, margin: float):
        self.spec, self.margin = spec, margin

    def distinct(self, scores: np.ndarray) -> None:
        if len(np.unique(scores)) < len(scores):
            raise RelationBroken(self.spec.id, "ties_unordered", "undefined",
                                 "candidate detections share a score: which is kept first, or cut, is open")

    def apart(self, values: np.ndarray, threshold: float, what: str) -> None:
        near = (np.abs(values - threshold) <= self.margin * max(1.0, abs(threshold))) & (values != 0)
        if near.any():
            raise RelationBroken(self.spec.id, "threshold_within_rounding", "undefined",
                                 f"{what} lies within the element type's rounding of its threshold")


def greedy(judge: _Judge, boxes: np.ndarray, order: np.ndarray, threshold: float) -> list[int]:
    """Prior indices kept, in order: each whose overlap with every kept one is at most threshold."""
    overlap = jaccard(boxes[order])
    judge.apart(overlap[~np.eye(len(order), dtype=bool)], threshold, "an IoU")
    kept: list[int] = []
    for k in range(len(order)):
        if all(overlap[k, j] <= threshold for j in kept):
            kept.append(k)
    return [int(order[k]) for k in kept]


def _boxes(attributes: dict, priors: np.ndarray, loc: np.ndarray, arm_loc: np.ndarray | None,
           n_priors: int, n_loc: int) -> np.ndarray:
    """(n_loc, P, 4) decoded boxes of one image from its priors row block [1 or 2, P * size]."""
    size = 4 if attributes.get("normalized", False) else 5
    prior = priors[0].reshape(n_priors, size)[:, size - 4:]
    if not attributes.get("normalized", False):
        prior = prior / np.array([attributes.get("input_width", 1), attributes.get("input_height", 1)] * 2, np.float64)
    variances = np.ones((n_priors, 4)) if attributes.get("variance_encoded_in_target", False) \
        else priors[1][: n_priors * 4].reshape(n_priors, 4)
    code = attributes.get("code_type", CORNER)
    clip = attributes.get("clip_before_nms", False)
    out = []
    for c in range(n_loc):
        base = prior
        if arm_loc is not None:  # RefineDet: the priors refined by the anchor offsets first
            base = decode(prior, variances, arm_loc.reshape(n_priors, n_loc, 4)[:, c], code)
            base = np.clip(base, 0, 1) if clip else base
        boxes = decode(base, variances, loc.reshape(n_priors, n_loc, 4)[:, c], code)
        out.append(np.clip(boxes, 0, 1) if clip else boxes)
    return np.stack(out)


def _caffe(judge: _Judge, attributes: dict, boxes: np.ndarray, scores: np.ndarray) -> dict[int, list[int]]:
    threshold, top_k = float(attributes.get("confidence_threshold", 0.0)), int(attributes.get("top_k", -1))
    kept = {}
    for c in range(scores.shape[1]):
        if c == attributes.get("background_label_id", 0):
            continue
        s = scores[:, c]
        judge.apart(s, threshold, "a confidence")
        index = np.flatnonzero(s > threshold)
        judge.distinct(s[index])
        order = index[np.argsort(-s[index], kind="stable")]
        if top_k > -1:
            order = order[:top_k]
        kept[c] = greedy(judge, boxes[0 if boxes.shape[0] == 1 else c], order, float(attributes["nms_threshold"]))
    return kept


def _mxnet(judge: _Judge, attributes: dict, boxes: np.ndarray, scores: np.ndarray) -> dict[int, list[int]]:
    background = attributes.get("background_label_id", 0)
    classes = [c for c in range(1, scores.shape[1]) if not (background > -1 and c == background)]
    if not classes:
        return {}
    s = scores[:, classes]
    top_two = np.sort(s, axis=1)[:, -2:]
    if s.shape[1] > 1 and np.any(top_two[:, 0] == top_two[:, 1]):
        raise RelationBroken(judge.spec.id, "ties_unordered", "undefined", "two classes share a prior's best score")
    best = np.asarray(classes)[np.argmax(s, axis=1)]
    conf = np.max(s, axis=1)
    threshold = float(attributes.get("confidence_threshold", 0.0))
    judge.apart(conf, threshold, "a confidence")
    index = np.flatnonzero((conf >= threshold) & (conf > -1))
    judge.distinct(conf[index])
    order = index[np.argsort(-conf[index], kind="stable")]
    top_k = int(attributes.get("top_k", -1))
    if top_k != -1:
        order = order[:top_k]
    kept: dict[int, list[int]] = {}
    for c in sorted(set(best[order].tolist())):
        mine = order[best[order] == c]
        kept[c] = greedy(judge, boxes[0 if boxes.shape[0] == 1 else c], mine, float(attributes["nms_threshold"]))
    return kept


def run(spec: SpecVersion, inputs: list, attributes: dict, policies: dict) -> tuple[np.ndarray, ...]:
    loc, conf, priors = (wide(np.asarray(x)) for x in inputs[:3])
    arm = [None if len(inputs) <= k or inputs[k] is None else wide(np.asarray(inputs[k])) for k in (3, 4)]
    dtype = np.asarray(inputs[0]).dtype
    judge = _Judge(spec, margin_of(dtype))
    size = 4 if attributes.get("normalized", False) else 5
    n, n_priors = loc.shape[0], priors.shape[2] // size
    n_classes = conf.shape[1] // n_priors
    n_loc = 1 if attributes.get("share_location", True) else n_classes
    keep_top_k, top_k = int(attributes["keep_top_k"][0]), int(attributes.get("top_k", -1))
    rows: list[list[float]] = []
    for i in range(n):
        scores = conf[i].reshape(n_priors, n_classes)
        if arm[0] is not None:  # RefineDet: priors the anchor step finds no object in are background
            gone = arm[0][i].reshape(n_priors, 2)[:, 1] < float(attributes.get("objectness_score", 0.0))
            judge.apart(arm[0][i].reshape(n_priors, 2)[:, 1], float(attributes.get("objectness_score", 0.0)), "an objectness")
            background = np.arange(n_classes) == attributes.get("background_label_id", 0)
            scores = np.where(gone[:, None], background[None, :].astype(np.float64), scores)
        block = priors[0 if priors.shape[0] == 1 else i]
        boxes = _boxes(attributes, block, loc[i], None if arm[1] is None else arm[1][i], n_priors, n_loc)
        pick = _mxnet if attributes.get("decrease_label_id", False) else _caffe
        kept = pick(judge, attributes, boxes, scores)
        total = sum(len(v) for v in kept.values())
        if keep_top_k > -1 and total > keep_top_k:
            pairs = [(scores[p, c], p, c) for c, ps in kept.items() for p in ps]
            judge.distinct(np.asarray([p[0] for p in pairs]))
            pairs = sorted(pairs, key=lambda t: -t[0])[:keep_top_k]
            kept = {c: [p for s_, p, c_ in pairs if c_ == c] for c in sorted({t[2] for t in pairs})}
        for c in sorted(kept):
            for p in kept[c]:
                box = boxes[0 if n_loc == 1 else c, p]
                box = np.clip(box, 0, 1) if attributes.get("clip_after_nms", False) else box
                label = c - 1 if attributes.get("decrease_label_id", False) else c
                rows.append([i, label, scores[p, c], *box])
    if keep_top_k > 0:
        capacity = n * keep_top_k
    elif top_k > 0:
        capacity = n * top_k * n_classes
    else:
        capacity = n * n_classes * n_priors
    if len(rows) > capacity:
        raise RelationBroken(spec.id, "detections_fit", "undefined",
                             f"{len(rows)} detections do not fit the output's {capacity} rows")
    out = np.zeros((capacity, 7))
    out[: len(rows)] = np.asarray(rows, dtype=np.float64).reshape(-1, 7)
    if len(rows) < capacity:
        out[len(rows), 0] = -1
    with np.errstate(all="ignore"):
        return (out.reshape(1, 1, capacity, 7).astype(dtype),)
