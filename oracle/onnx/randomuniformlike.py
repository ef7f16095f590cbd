"""ONNX RandomUniformLike: RandomUniform with the input's shape, and its element type where `dtype`
is not given (random output, compare: judged; oracle/kernels/random_outputs.py)."""
from __future__ import annotations

import numpy as np

from opconform.oracle.kernels import random_outputs


def run(spec, inputs, attributes, policies):
    x = np.asarray(inputs[0])
    return (np.full(x.shape, attributes["low"]).astype(random_outputs.element_type(attributes, x)),)


def judge(spec, inputs, attributes, policies, outputs) -> str:
    return random_outputs.judge_uniform(np.asarray(outputs["output"]), attributes["low"], attributes["high"])
