"""ai.onnx.ml ZipMap: one map per row of X, the class labels as keys and the row's columns as
values."""
import numpy as np

from opconform import containers


def run(spec, inputs, attributes, policies):
    x = np.atleast_2d(inputs[0])
    strings = "classlabels_strings" in attributes
    labels = list(attributes["classlabels_strings"] if strings else attributes["classlabels_int64s"])
    key = "string" if strings else "int64"
    maps = tuple(containers.map_of(key, "float32", labels, row) for row in x)
    return (containers.SequenceValue(f"seq(map({key},tensor(float32)))", maps),)
