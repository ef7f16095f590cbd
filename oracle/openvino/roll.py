"""OpenVINO Roll-7: numpy.roll, the shifts of an axis named more than once summed first (the text's
rule), a scalar shift applying to every named axis. Shifts are summed as Python integers, so a
sum past int64 is still the true total."""
from __future__ import annotations

import numpy as np

from opconform.model import SpecVersion


def run(spec: SpecVersion, inputs: list, attributes: dict, policies: dict) -> tuple[np.ndarray, ...]:
    data, shift, axes = np.asarray(inputs[0]), np.asarray(inputs[1]), np.asarray(inputs[2]).reshape(-1)
    shifts = [int(s) for s in np.broadcast_to(shift, axes.shape)] if shift.ndim == 0 else [int(s) for s in shift]
    total = [0] * data.ndim
    for s, a in zip(shifts, axes):
        total[int(a) % data.ndim] += s
    out = data
    for axis, s in enumerate(total):
        if data.shape[axis]:
            out = np.roll(out, s % data.shape[axis], axis=axis)
    return (np.array(out, copy=True),)
