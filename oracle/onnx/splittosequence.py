"""ONNX SplitToSequence: the input cut along `axis` into a sequence. Without `split`, one slice
per index (the axis dropped unless keepdims); a scalar split, chunks of that size with a smaller
last one; a 1-D split, chunks of those sizes (keepdims is ignored whenever split is given)."""
import numpy as np

from opconform import containers
from opconform.oracle.kernels import layout, sequences


def run(spec, inputs, attributes, policies):
    x = inputs[0]
    split = inputs[1] if len(inputs) > 1 else None
    axis = int(attributes["axis"]) % x.ndim
    dim = x.shape[axis]
    if split is None:
        parts = [np.take(x, [k], axis=axis) for k in range(dim)]
        if not int(attributes["keepdims"]):
            parts = [np.squeeze(p, axis=axis) for p in parts]
    else:
        s = np.asarray(split).astype(np.int64)
        sizes = [int(v) for v in s.reshape(-1)] if s.ndim == 1 else _chunks(dim, int(s))
        # no sizes (an empty axis: ceil(0 / split) chunks, or an empty 1-D split) is no chunk:
        # numpy.split would answer the whole tensor
        parts = list(layout.split(x, axis, sizes)) if sizes else []
    return (sequences.of_tensors(containers.type_of(x), list(parts)),)


def _chunks(dim: int, size: int) -> list[int]:
    full, rest = divmod(dim, size)
    return [size] * full + ([rest] if rest else [])
