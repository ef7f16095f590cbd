"""ONNX RegexFullMatch: whether each string matches the RE2 pattern as a whole. The spec draws only
patterns whose meaning RE2 and Python's re share once re.ASCII makes \\w, \\W, \\d and \\b ASCII, as
RE2's are (specs/onnx/RegexFullMatch.yaml)."""
from __future__ import annotations

import re

import numpy as np


def run(spec, inputs, attributes, policies):
    x = np.asarray(inputs[0], dtype=object)
    regex = re.compile(attributes["pattern"], re.ASCII)
    flat = [regex.fullmatch(s) is not None for s in x.reshape(-1)]
    return (np.array(flat, dtype=bool).reshape(x.shape),)
