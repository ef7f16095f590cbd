"""OpenVINO PriorBox-8: at every grid point (h, w) the same list of priors, each a box of half-width
and half-height around a centre shifted from the point's centre; row 0 holds [xmin, ymin, xmax, ymax]
per (h, w, prior) divided by the image size, row 1 the variances (one repeated, or four; 0.1 where
none are given).

Centres: (w + offset) * step, or (w + 0.5) * image width / grid width where step is 0. Priors per
point, in order: for each fixed_size a density x density lattice of boxes for each fixed_ratio (or
the square box and then each aspect ratio other than 1); then for each min_size the square box, the
box of side sqrt(min_size * max_size) and the aspect-ratio boxes of min_size (Caffe's order, or
aspect ratios before max with min_max_aspect_ratios_order false). With scale_all_sizes false
(MXNet's prior box) max_size is ignored and the aspect-ratio boxes come once, of the first min_size,
after the last square one. The document gives only the centre and the square box; the rest is
read from the attribute texts and from OpenVINO's reference, the open parts being policies."""
from __future__ import annotations

import math

import numpy as np

from opconform.model import RelationBroken, SpecVersion
from opconform.oracle.kernels.fp_extremes import extremes_are_data
from opconform.oracle.openvino.priorboxclustered import with_variances

# (centre shift x, centre shift y, half width, half height, always clipped to the image)
Prior = tuple[float, float, float, float, bool]


def aspect_ratios(attributes: dict, flipped: str) -> list[float]:
    """1 first, then each aspect_ratio not within 1e-6 of one already kept, with its inverse under
    flip: next to it (interleaved, OpenVINO's reference) or after all of them (appended, the
    flip text's example [4.0, 2.0, 0.25, 0.5])."""
    kept: list[float] = [1.0]
    for ar in attributes.get("aspect_ratio", []):
        if all(abs(ar - k) >= 1e-6 for k in kept):
            kept.append(float(ar))
    if not attributes.get("flip", False):
        return kept
    if flipped == "appended":
        return kept + [1.0 / ar for ar in kept[1:]]
    return [1.0] + [r for ar in kept[1:] for r in (ar, 1.0 / ar)]


def openvino_prior_count(attributes: dict) -> int:
    """priors_per_point as OpenVINO's node counts it (PriorBox::number_of_priors): the shape its
    output is given, which the document leaves to 'the operation attribute values'."""
    total = len(aspect_ratios(attributes, "interleaved"))
    min_size, max_size = attributes.get("min_size", []), attributes.get("max_size", [])
    fixed_size, fixed_ratio = attributes.get("fixed_size", []), attributes.get("fixed_ratio", [])
    if attributes.get("scale_all_sizes", True):
        count = total * len(min_size) + len(max_size)
    else:
        count = total + len(min_size) - 1
    if fixed_size:
        count = total * len(fixed_size)
    for d in attributes.get("density", []):
        count += (len(fixed_ratio) or total) * (int(d) * int(d) - 1)
    return count


def _lattice(size: float, density: int, half_w: float, half_h: float) -> list[Prior]:
    """density x density boxes spread over a fixed_size box: integer cell `shift` apart, from half
    a cell past its (integer) top-left corner, row by row."""
    shift = int(size / density)
    start = -(int(size) // 2) + shift / 2.0
    return [(start + c * shift, start + r * shift, half_w, half_h, True) for r in range(density) for c in range(density)]


def priors(attributes: dict, min_sizes: list[float], flipped: str) -> list[Prior]:
    ratios = [r for r in aspect_ratios(attributes, flipped) if abs(r - 1.0) >= 1e-6]
    fixed_ratio, density = attributes.get("fixed_ratio", []), attributes.get("density", [])
    out: list[Prior] = []
    for s, size in enumerate(attributes.get("fixed_size", [])):
        d = int(density[s])
        if fixed_ratio:
            for ar in fixed_ratio:
                out += _lattice(size, d, size * 0.5 * math.sqrt(ar), size * 0.5 / math.sqrt(ar))
            continue
        out += _lattice(size, d, int(size) * 0.5, int(size) * 0.5)
        for ar in ratios:
            out += _lattice(size, d, size * 0.5 * math.sqrt(ar), size * 0.5 / math.sqrt(ar))
    scale_all = attributes.get("scale_all_sizes", True)
    max_sizes = attributes.get("max_size", []) if scale_all else []
    caffe_order = attributes.get("min_max_aspect_ratios_order", True)
    for i, m in enumerate(min_sizes):
        square = [(0.0, 0.0, m * 0.5, m * 0.5, False)]
        bigger = [(0.0, 0.0, math.sqrt(m * max_sizes[i]) * 0.5, math.sqrt(m * max_sizes[i]) * 0.5, False)] \
            if i < len(max_sizes) else []
        base = min_sizes[i] if scale_all else min_sizes[0]
        shaped = [(0.0, 0.0, base * 0.5 * math.sqrt(ar), base * 0.5 / math.sqrt(ar), False) for ar in ratios] \
            if scale_all or i == len(min_sizes) - 1 else []
        out += square + (bigger + shaped if caffe_order else shaped + bigger)
    return out


@extremes_are_data
def run(spec: SpecVersion, inputs: list, attributes: dict, policies: dict) -> tuple[np.ndarray, ...]:
    t = np.float32 if policies.get("box_arithmetic") == "float32" else np.float64
    grid_h, grid_w = (int(v) for v in np.asarray(inputs[0]).reshape(-1))
    img_h, img_w = (int(v) for v in np.asarray(inputs[1]).reshape(-1))
    step = float(attributes.get("step", 0.0))
    min_sizes = [float(m) for m in attributes.get("min_size", [])]
    if not attributes.get("scale_all_sizes", True) and policies.get("unscaled_sizes") == "image_fraction":
        step, min_sizes = step * img_h, [m * img_h for m in min_sizes]
    table = priors(attributes, min_sizes, policies.get("flipped_order", "appended"))
    if len(table) != openvino_prior_count(attributes):
        raise RelationBroken(spec.id, "prior_count_stated", "undefined",
                             f"the attributes draw {len(table)} priors per point where OpenVINO's output shape "
                             f"counts {openvino_prior_count(attributes)}: the document gives no count")
    p = np.asarray([row[:4] for row in table], dtype=t).reshape(-1, 4)
    edge = np.asarray([row[4] for row in table], dtype=bool)
    if step == 0:
        cx = (np.arange(grid_w, dtype=t) + t(0.5)) * (t(img_w) / t(grid_w))
        cy = (np.arange(grid_h, dtype=t) + t(0.5)) * (t(img_h) / t(grid_h))
    else:
        cx = (np.arange(grid_w, dtype=t) + t(attributes["offset"])) * t(step)
        cy = (np.arange(grid_h, dtype=t) + t(attributes["offset"])) * t(step)
    px = cx[None, :, None] + p[None, None, :, 0]  # (h, w, prior)
    py = cy[:, None, None] + p[None, None, :, 1]
    with np.errstate(all="ignore"):
        boxes = np.stack(np.broadcast_arrays((px - p[:, 2]) / t(img_w), (py - p[:, 3]) / t(img_h),
                                             (px + p[:, 2]) / t(img_w), (py + p[:, 3]) / t(img_h)), axis=-1)
    if policies.get("fixed_size_clip") == "always":
        boxes[..., :2] = np.where(edge[:, None], np.maximum(boxes[..., :2], 0), boxes[..., :2])
        boxes[..., 2:] = np.where(edge[:, None], np.minimum(boxes[..., 2:], 1), boxes[..., 2:])
    return (with_variances(np.clip(boxes, 0, 1) if attributes.get("clip", False) else boxes, attributes),)
