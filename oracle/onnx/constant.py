"""ONNX Constant: the one value attribute given, as a tensor: value as it is, value_float /
value_int / value_string as 0-D float32 / int64 / string tensors, value_floats / value_ints /
value_strings as 1-D ones."""
import numpy as np

# attribute -> (element type, rank): the value_* attributes' output tensors
_LISTED = {"value_float": (np.float32, 0), "value_int": (np.int64, 0), "value_string": (object, 0),
           "value_floats": (np.float32, 1), "value_ints": (np.int64, 1), "value_strings": (object, 1)}


def run(spec, inputs, attributes, policies):
    if attributes.get("value") is not None:
        return (np.array(attributes["value"], copy=True),)
    name = next(n for n in _LISTED if attributes.get(n) is not None)
    dtype, rank = _LISTED[name]
    out = np.empty(len(attributes[name]), dtype=object) if dtype is object and rank else None
    if out is not None:
        out[:] = list(attributes[name])
        return (out,)
    return (np.asarray(attributes[name], dtype=dtype).reshape((-1,) * rank),)
