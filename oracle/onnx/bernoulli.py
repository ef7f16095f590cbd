"""ONNX Bernoulli: 1 with probability p, else 0, per element of the input (random output, compare:
judged). run() gives the representative (p rounded half up: 0 or 1, in the type `dtype` names or the
input's); judge() holds a backend's draws to their probabilities (oracle/kernels/random_outputs.py)."""
from __future__ import annotations

import numpy as np

from opconform.oracle.kernels import random_outputs


def run(spec, inputs, attributes, policies):
    p = np.asarray(inputs[0])
    return ((np.asarray(p, dtype=np.float64) >= 0.5).astype(random_outputs.element_type(attributes, p)),)


def judge(spec, inputs, attributes, policies, outputs) -> str:
    return random_outputs.judge_binary(np.asarray(outputs["output"]), np.asarray(inputs[0], dtype=np.float64))
