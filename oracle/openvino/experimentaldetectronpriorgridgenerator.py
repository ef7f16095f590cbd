"""OpenVINO ExperimentalDetectronPriorGridGenerator-6: every prior [x0, y0, x1, y1] shifted to every
cell (y, x) of the grid by ((x + 0.5) * stride_x, (y + 0.5) * stride_y) on both corners; a stride
of 0 is the image extent over the feature map's; rows ordered (y, x, prior), flattened to
[H * W * priors, 4] or kept [H, W, priors, 4]. float64, rounded once."""
from __future__ import annotations

import numpy as np

from opconform.model import SpecVersion


def run(spec: SpecVersion, inputs: list, attributes: dict, policies: dict) -> tuple[np.ndarray, ...]:
    priors = np.asarray(inputs[0])
    fh, fw = np.asarray(inputs[1]).shape[2:]
    ih, iw = np.asarray(inputs[2]).shape[2:]
    sx = float(attributes.get("stride_x", 0.0)) or iw / fw
    sy = float(attributes.get("stride_y", 0.0)) or ih / fh
    shift_x = (np.arange(fw) + 0.5) * sx
    shift_y = (np.arange(fh) + 0.5) * sy
    shifts = np.stack(np.broadcast_arrays(shift_x[None, :], shift_y[:, None], shift_x[None, :], shift_y[:, None]), axis=-1)
    grid = shifts[:, :, None, :] + priors.astype(np.float64)[None, None, :, :]  # (H, W, P, 4)
    if attributes.get("flatten", True):
        grid = grid.reshape(-1, 4)
    return (grid.astype(priors.dtype),)
