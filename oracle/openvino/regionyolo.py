"""OpenVINO RegionYolo-1: darknet's region layers as OpenVINO's reference computes them. The input
[N, R * (coords + classes + 1), H, W] holds, per region, x, y, the other coordinates, the
objectness and the class scores. x, y and the objectness go through the logistic function; the
class scores through a softmax over the classes (do_softmax: YOLO v2, R = num, the output flattened
from axis to end_axis) or the logistic function (YOLO v3, R = len(mask), the output [N, R * (coords
+ classes + 1), H, W]); the other coordinates are copied. float64, rounded once."""
from __future__ import annotations

import numpy as np

from opconform.model import SpecVersion
from opconform.specs import normalize_axis


def _logistic(v: np.ndarray) -> np.ndarray:
    with np.errstate(over="ignore"):
        return 1.0 / (1.0 + np.exp(-v))


def run(spec: SpecVersion, inputs: list, attributes: dict, policies: dict) -> tuple[np.ndarray, ...]:
    x = np.asarray(inputs[0])
    n, _, h, w = x.shape
    coords, classes = int(attributes["coords"]), int(attributes["classes"])
    softmax = bool(attributes.get("do_softmax", True))
    regions = int(attributes["num"]) if softmax else len(attributes.get("mask") or [])
    entries = coords + classes + 1
    original = x.astype(np.float64).reshape(-1)[: n * regions * entries * h * w].reshape(n, regions, entries, h, w)
    y = original.copy()
    # in place and in this order, as the reference: with fewer than 2 coordinates the objectness (and
    # classes) overlap x and y and go through the logistic function twice
    y[:, :, 0:2] = _logistic(y[:, :, 0:2])
    if softmax:
        y[:, :, coords] = _logistic(y[:, :, coords])
        scores = original[:, :, coords + 1:]  # the softmax reads the input, not the logistic values
        if scores.shape[2]:
            e = np.exp(scores - scores.max(axis=2, keepdims=True))
            y[:, :, coords + 1:] = e / e.sum(axis=2, keepdims=True)
        a = normalize_axis(int(attributes["axis"]), 4)
        b = normalize_axis(int(attributes["end_axis"]), 4)
        shape = x.shape[:a] + (int(np.prod(x.shape[a:b + 1], dtype=np.int64)),) + x.shape[b + 1:]
        return (y.reshape(shape).astype(x.dtype),)
    y[:, :, coords:] = _logistic(y[:, :, coords:])
    return (y.reshape(n, regions * entries, h, w).astype(x.dtype),)
