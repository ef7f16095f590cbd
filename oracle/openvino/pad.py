"""OpenVINO Pad-12: the positive pads added to the whole input by pad_mode (constant with pad_value
or 0, edge, reflect, symmetric: numpy.pad's modes of those names), then the negative pads cropped.
The order is the mixed example's (its reflect output holds a row the crop removes)."""
from __future__ import annotations

import numpy as np

from opconform.model import SpecVersion


def run(spec: SpecVersion, inputs: list, attributes: dict, policies: dict) -> tuple[np.ndarray, ...]:
    data = np.asarray(inputs[0])
    begin = [int(v) for v in np.asarray(inputs[1]).reshape(-1)]
    end = [int(v) for v in np.asarray(inputs[2]).reshape(-1)]
    value = inputs[3] if len(inputs) > 3 and inputs[3] is not None else None
    widths = [(max(b, 0), max(e, 0)) for b, e in zip(begin, end)]
    mode = attributes["pad_mode"]
    if data.ndim == 0:  # no axis to pad (numpy.pad refuses an empty list of widths)
        padded = data
    elif mode == "constant":
        fill = np.zeros((), dtype=data.dtype) if value is None else np.asarray(value, dtype=data.dtype)
        padded = np.pad(data, widths, mode="constant", constant_values=fill)
    elif data.size == 0 or not any(w for pair in widths for w in pair):
        padded = data
    else:
        padded = np.pad(data, widths, mode=mode)
    crop = tuple(slice(max(-b, 0), max(n - max(-e, 0), max(-b, 0))) for b, e, n in zip(begin, end, padded.shape))
    return (padded[crop],)
