"""ONNX RandomNormalLike: RandomNormal with the input's shape, and its element type where `dtype` is
not given (random output, compare: judged; oracle/kernels/random_outputs.py)."""
from __future__ import annotations

import numpy as np

from opconform.oracle.kernels import random_outputs


def run(spec, inputs, attributes, policies):
    x = np.asarray(inputs[0])
    return (np.full(x.shape, attributes["mean"]).astype(random_outputs.element_type(attributes, x)),)


def judge(spec, inputs, attributes, policies, outputs) -> str:
    return random_outputs.judge_normal(np.asarray(outputs["output"]), attributes["mean"], attributes["scale"])
