"""StringConcat: X's text followed by Y's, element-wise with multidirectional broadcasting (Python
string addition over object arrays; a 0-d result stays an array)."""
from __future__ import annotations

import numpy as np


def run(spec, inputs, attributes, policies):
    x, y = (np.asarray(a, dtype=object) for a in inputs)
    return (np.asarray(np.add(x, y), dtype=object),)
