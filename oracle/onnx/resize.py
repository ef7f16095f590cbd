"""ONNX Resize (10, 11, 13, 18, 19) and Upsample (7, 9, 10): the output size per axis, then each
resized axis resampled in turn (oracle/kernels/resize.py). Weighted modes compute in float64 (the
data's complex type for complex data) and convert once to the element type."""
from __future__ import annotations

import numpy as np

from opconform import dtypes
from opconform.model import RelationBroken
from opconform.oracle.kernels import resize

# Resize-10 and Upsample name no coordinate mapping: the policy `legacy_mapping` picks one
_LEGACY = {
    "asymmetric_floor": ("asymmetric", "floor"),
    "asymmetric_ceil_downscaled": ("asymmetric", "ceil_downscaled"),
    "asymmetric_round_prefer_ceil": ("asymmetric", "round_prefer_ceil"),
    "half_pixel_round_prefer_floor": ("half_pixel", "round_prefer_floor"),
}


def run(spec, inputs, attributes, policies):
    x = np.asarray(inputs[0])
    a = dict(attributes)
    if spec.operator == "Upsample" or spec.since == 10:
        scales = attributes["scales"] if spec.since == 7 else inputs[1]
        ctm, rule = _LEGACY[policies["legacy_mapping"]]
        a.update(coordinate_transformation_mode=ctm, nearest_mode=rule)
        roi, sizes = None, None
    else:
        roi, scales = inputs[1], inputs[2]
        sizes = inputs[3] if len(inputs) > 3 else None
        if scales is not None and np.asarray(scales).size == 0:
            scales = None  # Resize-11: an empty scales when sizes is given
    return (resample(x, roi, scales, sizes, a, policies),)


def resample(x: np.ndarray, roi, scales, sizes, a: dict, policies: dict) -> np.ndarray:
    r = x.ndim
    axes = [int(v) % r for v in a["axes"]] if a.get("axes") is not None else list(range(r))
    precision = np.float32 if policies.get("coordinate_precision") == "float32" else np.float64
    in_shape = [x.shape[d] for d in axes]
    ctm = a.get("coordinate_transformation_mode", "half_pixel")
    crop = ctm == "tf_crop_and_resize"
    roi = None if roi is None or np.asarray(roi).size == 0 else np.asarray(roi, dtype=np.float64).reshape(-1)
    n = len(axes)
    lengths = None
    if sizes is not None:
        out_shape, axis_scales = _from_sizes(np.asarray(sizes, dtype=np.int64).reshape(-1), in_shape,
                                             a.get("keep_aspect_ratio_policy", "stretch"), precision)
    else:
        given = np.asarray(scales, dtype=np.float32).reshape(-1)
        span = roi[n:] - roi[:n] if crop and roi is not None and policies.get("crop_output_size") == "roi_scaled" else np.ones(n)
        wide = np.asarray(in_shape, dtype=precision) * span.astype(precision) * given.astype(precision)
        out_shape = [int(np.floor(v)) for v in wide]
        if policies.get("scale_for_coordinates") == "length_ratio":
            axis_scales = [o / i if i else float(s) for o, i, s in zip(out_shape, in_shape, given)]
        else:  # the given scale, and the fractional length it asks for
            axis_scales = [float(s) for s in given]
            lengths = [float(v) for v in np.asarray(in_shape, dtype=precision) * given.astype(precision)]
    mode = a.get("mode", "nearest")
    weighted = mode != "nearest"
    kind = _kind(x.dtype)
    if weighted and kind in ("string", "bool"):
        raise RelationBroken("Resize", "weighted_mode_numeric", "undefined", "a weighted average of strings or booleans")
    data = x.astype(np.complex128 if kind == "complex" else np.float64) if weighted else x
    extrapolation = float(a.get("extrapolation_value", 0.0))
    for k, d in enumerate(axes):
        box = (roi[k], roi[n + k]) if crop and roi is not None else None
        if out_shape[k] == x.shape[d] and axis_scales[k] == 1.0 and not crop:
            continue  # every mode maps an unscaled axis onto itself
        coords, outside = resize.source_coordinates(ctm, x.shape[d], out_shape[k], axis_scales[k], box, precision,
                                                  None if lengths is None else lengths[k])
        if not weighted:
            rule = a.get("nearest_mode", "round_prefer_floor")
            if rule == "ceil_downscaled":
                rule = "ceil" if axis_scales[k] < 1 else "floor"
            plan = resize.AxisPlan(resize.nearest_taps(coords, x.shape[d], rule), None, outside)
        else:
            taps, weights = resize.filter_taps(coords, x.shape[d], mode, axis_scales[k], float(a.get("cubic_coeff_a", -0.75)),
                                               bool(a.get("antialias", 0)), bool(a.get("exclude_outside", 0)),
                                               clip_window=policies.get("antialias_border") == "clipped_window")
            plan = resize.AxisPlan(taps, weights, outside)
        if x.shape[d] == 0 or out_shape[k] == 0:
            shape = list(data.shape)
            shape[d] = out_shape[k]
            data = np.empty(shape, dtype=data.dtype)
            continue
        data = resize.resample_axis(data, d, plan, extrapolation)
    return to_element_type(data, x.dtype, policies.get("integer_result", "round_half_even")) if weighted else data


def _from_sizes(sizes: np.ndarray, in_shape: list[int], policy: str, precision) -> tuple[list[int], list[float]]:
    if policy == "stretch":
        return [int(s) for s in sizes], [float(precision(s) / precision(i)) if i else 1.0 for s, i in zip(sizes, in_shape)]
    ratios = np.asarray(sizes, dtype=precision) / np.asarray(in_shape, dtype=precision)
    scale = ratios.min() if policy == "not_larger" else ratios.max()
    out = resize.round_half_up(precision(scale) * np.asarray(in_shape, dtype=precision))
    return [int(v) for v in out], [float(scale)] * len(in_shape)


def to_element_type(v: np.ndarray, dtype: np.dtype, rule: str) -> np.ndarray:
    """A weighted result (float64 or complex128) in the element type: integers rounded by the
    policy integer_result and saturated, floats rounded once."""
    kind = _kind(dtype)
    if kind in ("int", "uint"):
        info = np.iinfo(dtype)
        v = np.trunc(v) if rule == "truncate" else np.round(v)
        return np.clip(v, info.min, info.max).astype(dtype)
    with np.errstate(over="ignore"):
        return v.astype(dtype)


def _kind(dtype) -> str:
    return dtypes.get(dtypes.name_of(dtype)).kind


def policies_in_play(spec, inputs, attributes) -> set[str]:
    """Which open choices can change this case's outputs."""
    out = {"coordinate_precision", "legacy_mapping"}
    mode = attributes.get("mode", "nearest")
    legacy = spec.operator == "Upsample" or spec.since == 10
    scales = None if legacy else inputs[2]
    if scales is not None and np.asarray(scales).size:
        out.add("scale_for_coordinates")
        if attributes.get("coordinate_transformation_mode") == "tf_crop_and_resize":
            out.add("crop_output_size")
    if mode != "nearest" and _kind(np.asarray(inputs[0]).dtype) in ("int", "uint"):
        out.add("integer_result")
    if mode != "nearest" and attributes.get("antialias") and not attributes.get("exclude_outside"):
        out.add("antialias_border")
    return {p.name for p in spec.policies} & out
