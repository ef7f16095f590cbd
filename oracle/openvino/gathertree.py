"""OpenVINO GatherTree-1: the document's pseudocode, vectorized over the beams of a batch entry."""
from __future__ import annotations

import numpy as np

from opconform.model import SpecVersion


def run(spec: SpecVersion, inputs: list, attributes: dict, policies: dict) -> tuple[np.ndarray, ...]:
    step_ids, parent_ids, max_seq_len, end_token = (np.asarray(x) for x in inputs)
    max_time, batch_size, beam_width = step_ids.shape
    parents = parent_ids.astype(np.float64).astype(np.int64)
    out = np.full(step_ids.shape, end_token, dtype=step_ids.dtype)
    for b in range(batch_size):
        length = min(max_time, int(np.float64(max_seq_len[b])))
        if length < 1 or beam_width == 0:
            continue
        beams = np.arange(beam_width)
        out[length - 1, b] = step_ids[length - 1, b]
        parent = parents[length - 1, b, beams]
        for level in range(length - 2, -1, -1):
            out[level, b] = step_ids[level, b, parent]
            parent = parents[level, b, parent]
        # every step after a beam's first end_token becomes end_token
        ended = np.cumsum(out[:length, b] == end_token, axis=0) > 0
        after = np.concatenate([np.zeros((1, beam_width), bool), ended[:-1]], axis=0)
        out[:length, b][after] = end_token
    return (out,)
