"""ai.onnx.ml FeatureVectorizer-1: the inputs (1-D as [1, C]) concatenated along the second
dimension, as float32; sizes other than inputdimensions, or different row counts, are undefined."""
from __future__ import annotations

import numpy as np

from opconform.model import RelationBroken
from opconform.oracle.kernels import ml


@ml.quiet
def run(spec, inputs, attributes, policies):
    xs = [np.asarray(x) for x in inputs]
    xs = [x.reshape(1, -1) if x.ndim == 1 else x for x in xs]
    if any(x.shape[1] != int(n) for x, n in zip(xs, attributes["inputdimensions"])):
        raise RelationBroken(spec.id, "input_sizes", "undefined", "an input's size differs from inputdimensions")
    if len({x.shape[0] for x in xs}) > 1:
        raise RelationBroken(spec.id, "same_rows", "undefined", "inputs of different row counts")
    return (np.concatenate([x.astype(np.float64) for x in xs], axis=1).astype(np.float32),)
