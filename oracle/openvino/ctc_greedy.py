"""Best-path (greedy) CTC decoding, shared by OpenVINO's CTCGreedyDecoder-1 and
CTCGreedyDecoderSeqLen-6: per batch row, the most probable class at each of its time steps,
repeated classes merged (merge_repeated: consecutive equal classes of the path, blanks between
them keeping them apart), then the blanks removed; the decoded classes padded with -1."""
from __future__ import annotations

import numpy as np

from opconform.oracle.kernels.elementwise import wide


def best_path(logits: np.ndarray, ties: str) -> np.ndarray:
    """[N, T] classes: the first (or last) position of each time step's maximum."""
    x = wide(logits)
    if ties == "first":
        return np.argmax(x, axis=-1)
    return x.shape[-1] - 1 - np.argmax(x[..., ::-1], axis=-1)


def decode(logits: np.ndarray, lengths: np.ndarray, blank: int, merge: bool, ties: str) -> tuple[np.ndarray, np.ndarray]:
    """(classes [N, T] padded with -1, decoded lengths [N]) of logits [N, T, C]."""
    n, t = logits.shape[:2]
    path = best_path(logits, ties) if logits.shape[-1] else np.zeros((n, t), dtype=np.int64)
    out = np.full((n, t), -1, dtype=np.int64)
    counts = np.zeros(n, dtype=np.int64)
    for b in range(n):
        previous = None
        for step in range(int(lengths[b])):
            c = int(path[b, step])
            if c != blank and not (merge and c == previous):
                out[b, counts[b]] = c
                counts[b] += 1
            previous = c
    return out, counts
