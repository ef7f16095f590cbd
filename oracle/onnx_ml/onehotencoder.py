"""ai.onnx.ml OneHotEncoder-1: a one at the position of each element's category (numbers cast to
integers by truncation first), a row of zeros for an element outside the categories when zeros
is true, else the case must be refused (category_found)."""
from __future__ import annotations

import numpy as np

from opconform.model import RelationBroken


def run(spec, inputs, attributes, policies):
    x = np.asarray(inputs[0])
    if attributes.get("cats_strings"):
        cats = np.asarray(list(attributes["cats_strings"]), dtype=object)
        keys = x.astype(object)
    else:
        cats = np.asarray(attributes["cats_int64s"], dtype=np.int64)
        keys = np.trunc(x).astype(np.int64) if x.dtype.kind == "f" else x.astype(np.int64)
    y = (keys[..., None] == cats).astype(np.float32)
    if not attributes["zeros"] and x.size and not y.any(axis=-1).all():
        raise RelationBroken(spec.id, "category_found", "error", "a value outside the categories with zeros = 0")
    return (y,)
