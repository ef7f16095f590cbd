"""The windows of OpenVINO's AdaptiveAvgPool-8 and AdaptiveMaxPool-8: along each spatial axis,
output position i reads input positions [floor(i * In / Out), ceil((i + 1) * In / Out)), computed
in integers (the documents' formulae, exact where a float quotient could round)."""
from __future__ import annotations

import itertools
from typing import Iterator

import numpy as np


def bounds(size_in: int, size_out: int) -> list[tuple[int, int]]:
    """(start, end) of each of the size_out windows over an axis of size_in."""
    return [((i * size_in) // size_out, -((-(i + 1) * size_in) // size_out)) for i in range(size_out)]


def windows(x: np.ndarray, out: tuple[int, ...]) -> Iterator[tuple[tuple[int, ...], np.ndarray, tuple[int, ...]]]:
    """(output position, the window's elements as (N, C, K) in row-major order, the window's start
    per spatial axis) for every output position; x is (N, C, spatial...)."""
    per_axis = [bounds(s, o) for s, o in zip(x.shape[2:], out)]
    for pos in itertools.product(*(range(o) for o in out)):
        spans = [per_axis[a][i] for a, i in enumerate(pos)]
        block = x[(slice(None), slice(None)) + tuple(slice(b, e) for b, e in spans)]
        count = int(np.prod([e - b for b, e in spans], dtype=np.int64))
        yield pos, block.reshape(x.shape[:2] + (count,)), tuple(b for b, _ in spans)


def output_size(x: np.ndarray, output_shape) -> tuple[int, ...]:
    return tuple(int(v) for v in np.asarray(output_shape).reshape(-1))
