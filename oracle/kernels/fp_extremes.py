"""A decorator for oracles whose drawn inputs reach NaN, infinities and the extremes of their types
on purpose (OpenVINO's documents leave those to the arithmetic; ML features use NaN for a missing
value, as oracle/kernels/ml.py's `quiet`): NumPy's floating-point warnings (invalid casts,
overflow to inf) are the data's, not faults of the oracle.

    @extremes_are_data
    def run(spec, inputs, attributes, policies): ...
"""
from __future__ import annotations

import functools
from typing import Callable

import numpy as np


def extremes_are_data(run: Callable) -> Callable:
    @functools.wraps(run)
    def wrapped(*args, **kwargs):
        with np.errstate(all="ignore"):
            return run(*args, **kwargs)
    return wrapped
