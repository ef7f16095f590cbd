"""OpenVINO PriorBoxClustered-1: for grid point (h, w) and prior s the box centred at
((w + offset) * step_w, (h + offset) * step_h) of width[s] x height[s], divided by the image size
(clipped to [0, 1] with clip), as row 0 [xmin, ymin, xmax, ymax] per (h, w, s); row 1 the variances
(one repeated four times, or four; 0.1 where none are given). A step of 0 takes `step`; both 0,
the image size over the grid size."""
from __future__ import annotations

import numpy as np

from opconform.model import SpecVersion


def run(spec: SpecVersion, inputs: list, attributes: dict, policies: dict) -> tuple[np.ndarray, ...]:
    t = np.float32 if policies.get("box_arithmetic") == "float32" else np.float64
    grid_h, grid_w = (int(v) for v in np.asarray(inputs[0]).reshape(-1))
    img_h, img_w = (int(v) for v in np.asarray(inputs[1]).reshape(-1))
    widths, heights = np.asarray(attributes["width"], t), np.asarray(attributes["height"], t)
    step = t(attributes.get("step", 0.0))
    step_w = t(attributes.get("step_w", 0.0)) or step
    step_h = t(attributes.get("step_h", 0.0)) or step
    if step_w == 0 and step_h == 0:
        step_w, step_h = t(img_w) / t(grid_w), t(img_h) / t(grid_h)
    offset = t(attributes["offset"])
    cx = ((np.arange(grid_w, dtype=t) + offset) * step_w)[None, :, None]
    cy = ((np.arange(grid_h, dtype=t) + offset) * step_h)[:, None, None]
    half_w, half_h = (widths / t(2))[None, None, :], (heights / t(2))[None, None, :]
    with np.errstate(all="ignore"):
        boxes = np.stack(np.broadcast_arrays((cx - half_w) / t(img_w), (cy - half_h) / t(img_h),
                                             (cx + half_w) / t(img_w), (cy + half_h) / t(img_h)), axis=-1)
    return (with_variances(np.clip(boxes, 0, 1) if attributes.get("clip", True) else boxes, attributes),)


def with_variances(boxes: np.ndarray, attributes: dict) -> np.ndarray:
    """The prior-box output: row 0 the boxes' corners in order, row 1 each box's four variances (one
    variance repeated, or four; 0.1 where none are given), in float32."""
    variance = list(attributes.get("variance") or [0.1])
    per_box = np.asarray(variance * 4 if len(variance) == 1 else variance, dtype=np.float64)
    row1 = np.tile(per_box, boxes.size // 4)
    return np.stack([boxes.reshape(-1).astype(np.float64), row1]).astype(np.float32)
