"""OpenVINO StridedSlice-1: NumPy's basic indexing built from begin, end, stride and the masks
(the document's stated equivalents, e.g. array[1:, :, ::-1]): a slice per step, None for a masked
bound, a bare index for shrink_axis_mask, np.newaxis for new_axis_mask, Ellipsis for
ellipsis_mask; masks shorter than begin padded with zeros, longer ones cut. A shrunk index outside
its dimension gives no element: undefined."""
from __future__ import annotations

import numpy as np

from opconform.model import RelationBroken, SpecVersion


def _mask(attributes: dict, name: str, m: int) -> list[bool]:
    bits = [int(v) != 0 for v in (attributes.get(name) or [])][:m]
    return bits + [False] * (m - len(bits))


def index_of(inputs: list, attributes: dict) -> tuple:
    begin, end = ([int(v) for v in np.asarray(t).reshape(-1)] for t in inputs[1:3])
    m = len(begin)
    stride = [1] * m if len(inputs) < 4 or inputs[3] is None else [int(v) for v in np.asarray(inputs[3]).reshape(-1)]
    bm, em, nm, sm, el = (_mask(attributes, k, m) for k in
                          ("begin_mask", "end_mask", "new_axis_mask", "shrink_axis_mask", "ellipsis_mask"))
    index = []
    for i in range(m):
        if el[i]:
            index.append(Ellipsis)
        elif nm[i]:
            index.append(np.newaxis)
        elif sm[i]:
            index.append(begin[i])
        else:
            index.append(slice(None if bm[i] else begin[i], None if em[i] else end[i], stride[i]))
    return tuple(index)


def run(spec: SpecVersion, inputs: list, attributes: dict, policies: dict) -> tuple[np.ndarray, ...]:
    data = np.asarray(inputs[0])
    try:
        return (np.array(data[index_of(inputs, attributes)], copy=True),)
    except IndexError as e:
        raise RelationBroken(spec.id, "shrink_index_in_range", "undefined",
                             f"StridedSlice: a shrink_axis_mask index outside its dimension ({e})") from None
