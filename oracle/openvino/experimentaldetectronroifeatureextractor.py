"""OpenVINO ExperimentalDetectronROIFeatureExtractor-6: ROIAlign of every ROI over the pyramid layer
its size picks. Level j = floor(2 + log2(sqrt(w * h) / 224 + 1e-6)) clamped to the layers there
are (FPN's and Detectron's mapping, which OpenVINO's reference follows; the document's formula
names no range), w and h the box's extents (`roi_extent`: x2 - x1, or Detectron's x2 - x1 + 1).
Each ROI is then pooled as ONNX's RoiAlign computes it (oracle/onnx/roialign.py, avg,
output_half_pixel: the box at least 1 x 1), scaled by 1 / pyramid_scales[j] and shifted by -0.5
when aligned. A size whose level sits next to a boundary, where float32 and float64 part, is
undefined (oracle-side relation `level_on_a_boundary`)."""
from __future__ import annotations

import numpy as np

from opconform.model import RelationBroken, SpecVersion
from opconform.oracle.onnx import roialign

_CANONICAL_SIZE, _CANONICAL_LEVEL, _EPS = 224.0, 2, 1e-6


def levels(rois: np.ndarray, layers: int, plus_one: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Per ROI its pyramid level (clamped to 0 .. layers - 1) and the unclamped 2 + log2(...)."""
    extra = 1.0 if plus_one else 0.0
    w, h = rois[:, 2] - rois[:, 0] + extra, rois[:, 3] - rois[:, 1] + extra
    with np.errstate(all="ignore"):
        raw = _CANONICAL_LEVEL + np.log2(np.sqrt(w * h) / _CANONICAL_SIZE + _EPS)
    return np.clip(np.floor(raw), 0, layers - 1).astype(np.int64), raw


def _boundary_decides(spec_id: str, raw: np.ndarray, layers: int) -> None:
    nearest = np.round(raw)
    near = np.abs(raw - nearest) < 1e-4  # float32's log2 of the same size lands on either side
    moves = near & (np.clip(nearest - 1, 0, layers - 1) != np.clip(nearest, 0, layers - 1))
    if np.any(moves):
        raise RelationBroken(spec_id, "level_on_a_boundary", "undefined",
                             "a ROI's level is within float32's rounding of a level boundary")


def run(spec: SpecVersion, inputs: list, attributes: dict, policies: dict) -> tuple[np.ndarray, ...]:
    rois, pyramid = np.asarray(inputs[0]), [np.asarray(x) for x in inputs[1:]]  # the variadic port: every input after rois
    boxes = rois.astype(np.float64)
    layer_of, raw = levels(boxes, len(pyramid), policies.get("roi_extent", "difference") == "plus_one")
    _boundary_decides(spec.id, raw, len(pyramid))
    size, scales = int(attributes["output_size"]), [float(s) for s in attributes["pyramid_scales"]]
    shift = 0.5 if attributes.get("aligned", False) else 0.0
    channels = pyramid[0].shape[1]
    features = np.zeros((len(rois), channels, size, size), dtype=rois.dtype)
    for j, layer in enumerate(pyramid):
        mine = np.flatnonzero(layer_of == j)
        if mine.size == 0:
            continue
        # output_half_pixel scales the box as given; (x - shift * scale_j) / scale_j = x / scale_j - shift
        shifted = boxes[mine] - shift * scales[j]
        attrs = {"output_height": size, "output_width": size, "sampling_ratio": int(attributes["sampling_ratio"]),
                 "spatial_scale": 1.0 / scales[j], "mode": "avg", "coordinate_transformation_mode": "output_half_pixel"}
        (pooled,) = roialign.run(spec, [layer, shifted, np.zeros(mine.size, np.int64)], attrs,
                                 {"coordinate_precision": policies.get("coordinate_precision", "float64")})
        features[mine] = pooled.astype(rois.dtype)
    if policies.get("rois_output", "as_given") == "by_level":
        return features, rois[np.argsort(layer_of, kind="stable")]
    return features, rois.copy()
