"""ONNX AffineGrid (20): the normalized positions of an output image (evenly spaced in [-1, 1]
per spatial axis: the corner pixels' centres with align_corners, their outer edges without),
as homogeneous (x, y[, z], 1) vectors, multiplied by each batch's theta. Computed in float64 and
rounded once to theta's type."""
from __future__ import annotations

import numpy as np


def positions(length: int, align_corners: bool, single: str) -> np.ndarray:
    """Normalized coordinates of `length` pixels along one axis."""
    if align_corners:
        if length == 1:  # both corners are the one pixel: -1 (onnx.reference), 0 (PyTorch) or 1
            return np.array([{"minus_one": -1.0, "zero": 0.0, "plus_one": 1.0}[single]])
        return np.linspace(-1.0, 1.0, length)
    return (2.0 * np.arange(length) + 1.0) / length - 1.0


def run(spec, inputs, attributes, policies):
    theta, size = np.asarray(inputs[0]), np.asarray(inputs[1]).reshape(-1)
    spatial = [int(v) for v in size[2:]]  # (H, W) or (D, H, W)
    axes = [positions(n, bool(attributes["align_corners"]), policies.get("single_pixel", "zero")) for n in spatial]
    mesh = np.meshgrid(*axes, indexing="ij")  # the outermost axis first
    # homogeneous vectors list the innermost coordinate first: (x, y[, z], 1)
    homo = np.stack(list(mesh[::-1]) + [np.ones(mesh[0].shape)], axis=-1)
    grid = np.einsum("nij,...j->n...i", theta.astype(np.float64), homo)
    return (grid.astype(theta.dtype),)


def policies_in_play(spec, inputs, attributes) -> set[str]:
    size = np.asarray(inputs[1]).reshape(-1)
    return {"single_pixel"} if attributes["align_corners"] and 1 in size[2:].tolist() else set()
