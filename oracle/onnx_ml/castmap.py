"""ai.onnx.ml CastMap: a map's values as a tensor, in ascending key order (dense) or each at the
position its key names among max_map (sparse, zero elsewhere), converted to cast_to's type; the
shape [1, N] or [N] as the policy output_shape says (the text gives none)."""
import numpy as np

from opconform.oracle import strings

_TYPES = {"TO_FLOAT": np.float32, "TO_INT64": np.int64, "TO_STRING": object}


def run(spec, inputs, attributes, policies):
    x = inputs[0]
    to = _TYPES[attributes["cast_to"]]
    order = np.argsort(x.keys, kind="stable")
    keys, vals = x.keys[order], _converted(x.values[order], to)
    if attributes["map_form"] == "SPARSE":
        out = np.zeros(int(attributes["max_map"]), dtype=to) if to is not object else np.full(int(attributes["max_map"]), "", dtype=object)
        out[keys] = vals
    else:
        out = vals
    return (out.reshape(1, -1) if policies["output_shape"] == "row" else out,)


def _converted(v: np.ndarray, to) -> np.ndarray:
    if v.dtype == object and to is np.float32:
        return np.array([strings.read_number(s) for s in v], dtype=np.float64).astype(np.float32)
    if v.dtype == object and to is np.int64:
        return np.array([int(s) for s in v], dtype=np.int64)
    if to is object:
        return np.array([str(s) for s in v], dtype=object)
    return v.astype(to)
