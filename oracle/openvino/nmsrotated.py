"""OpenVINO NMSRotated-13: NonMaxSuppression-9's hard steps (oracle/openvino/nonmaxsuppression.py
select) on the IoU of rotated boxes [x_center, y_center, width, height, angle]: the corners turned
by the angle (radians; clockwise as seen in image coordinates, y down, where clockwise is true),
their intersection polygon (each box clipped by the other, Sutherland-Hodgman, both convex), its
area by the shoelace formula, and intersection / (area1 + area2 - intersection). A box without
area has IoU 0 (no overlap to exceed a threshold)."""
from __future__ import annotations

import numpy as np

from opconform.model import SpecVersion
from opconform.oracle.openvino.nonmaxsuppression import select


def corners(box: np.ndarray, clockwise: bool) -> np.ndarray:
    """(4, 2) corners of one box, counterclockwise in the x-right, y-down frame's arithmetic."""
    cx, cy, w, h, a = (float(v) for v in box)
    a = a if clockwise else -a  # with y down, the rotation [[cos, -sin], [sin, cos]] turns clockwise on the image
    half = np.array([[-w, -h], [w, -h], [w, h], [-w, h]]) / 2
    turn = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    return half @ turn.T + [cx, cy]


def _area(poly: np.ndarray) -> float:
    if len(poly) < 3:
        return 0.0
    x, y = poly[:, 0], poly[:, 1]
    return abs(float(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1)))) / 2


def _clip(subject: np.ndarray, clipper: np.ndarray) -> np.ndarray:
    """subject cut to the convex clipper (corners in one turning direction)."""
    (ux, uy), (vx, vy) = clipper[1] - clipper[0], clipper[2] - clipper[1]
    orientation = np.sign(ux * vy - uy * vx)
    out = subject
    for k in range(len(clipper)):
        if len(out) == 0:
            break
        p, q = clipper[k], clipper[(k + 1) % len(clipper)]
        side = orientation * ((q[0] - p[0]) * (out[:, 1] - p[1]) - (q[1] - p[1]) * (out[:, 0] - p[0]))
        kept = []
        for i in range(len(out)):
            a, b, sa, sb = out[i], out[(i + 1) % len(out)], side[i], side[(i + 1) % len(out)]
            if sa >= 0:
                kept.append(a)
            if (sa >= 0) != (sb >= 0):
                kept.append(a + (b - a) * (sa / (sa - sb)))
        out = np.array(kept).reshape(-1, 2)
    return out


def rotated_iou(b1: np.ndarray, b2: np.ndarray, clockwise: bool) -> float:
    area1, area2 = float(b1[2] * b1[3]), float(b2[2] * b2[3])
    if area1 <= 0 or area2 <= 0:
        return 0.0
    inter = _area(_clip(corners(b1, clockwise), corners(b2, clockwise)))
    return inter / (area1 + area2 - inter)


def overlaps(boxes: np.ndarray, clockwise: bool) -> np.ndarray:
    """(B, N, N) rotated IoU of every pair of each batch's boxes, float64."""
    b = boxes.astype(np.float64)
    out = np.zeros(b.shape[:2] + (b.shape[1],))
    for batch in range(b.shape[0]):
        for i in range(b.shape[1]):
            for j in range(i + 1, b.shape[1]):
                out[batch, i, j] = out[batch, j, i] = rotated_iou(b[batch, i], b[batch, j], clockwise)
    return out


def run(spec: SpecVersion, inputs: list, attributes: dict, policies: dict) -> tuple[np.ndarray, ...]:
    overlap = overlaps(np.asarray(inputs[0]), bool(attributes.get("clockwise", True)))
    return select(spec, inputs, attributes, policies, overlap)
