"""ONNX RandomNormal: random output (compare: judged). run() gives the representative (every element
the mean, in the type `dtype` names, of the shape `shape` gives); judge() holds a backend's samples to
N(mean, scale^2) (oracle/kernels/random_outputs.py)."""
from __future__ import annotations

import numpy as np

from opconform.oracle.kernels import random_outputs


def run(spec, inputs, attributes, policies):
    dtype = random_outputs.element_type(attributes)
    return (np.full(tuple(int(d) for d in attributes["shape"]), attributes["mean"]).astype(dtype),)


def judge(spec, inputs, attributes, policies, outputs) -> str:
    return random_outputs.judge_normal(np.asarray(outputs["output"]), attributes["mean"], attributes["scale"])
