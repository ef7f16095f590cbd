"""The windows of OpenVINO's MaxPool-14 and AvgPool-16 (the documents' "Pooling Operators shape
inference rules"), as oracle/kernels/conv.py Windows, so that the pool kernels of ONNX's MaxPool
and AveragePool (oracle/kernels/pool.py) compute over them.

explicit: out = floor or ceil((in + pads_begin + pads_end - extent) / stride) + 1, extent = (kernel -
1) * dilation + 1; ceil_torch drops a last window that starts in the end padding (ceil keeps it).
valid: the same without padding (the document's Example 6 rounds it too: a last window reaching
past the input is cut there). same_upper / same_lower: out = ceil(in / stride) (the erratum
`same_output_extent`: the rules' H_out = H holds for stride 1 only), the padding that gives it
split evenly, the odd one at the end (upper) or the beginning (lower)."""
from __future__ import annotations

from typing import Mapping, Sequence

from opconform.oracle.kernels.conv import Window, ints_or


def window(spatial: Sequence[int], attributes: Mapping) -> Window:
    n = len(spatial)
    kernel = tuple(int(k) for k in attributes["kernel"])
    strides = ints_or(attributes.get("strides"), n, 1)
    dilations = ints_or(attributes.get("dilations"), n, 1)
    extents = [(k - 1) * d + 1 for k, d in zip(kernel, dilations)]
    auto_pad = attributes.get("auto_pad") or "explicit"
    if auto_pad in ("same_upper", "same_lower"):
        out = tuple(-(-i // s) for i, s in zip(spatial, strides))
        total = [max(0, (o - 1) * s + e - i) for o, s, e, i in zip(out, strides, extents, spatial)]
        small, big = [t // 2 for t in total], [t - t // 2 for t in total]
        begin, end = (small, big) if auto_pad == "same_upper" else (big, small)
        return Window(kernel, strides, dilations, tuple(begin), tuple(end), out)
    if auto_pad == "valid":
        begin, end = (0,) * n, (0,) * n
    else:
        begin, end = ints_or(attributes.get("pads_begin"), n, 0), ints_or(attributes.get("pads_end"), n, 0)
    rounding = attributes.get("rounding_type", "floor")
    out = []
    for i, s, e, b, a in zip(spatial, strides, extents, begin, end):
        room = i + b + a - e
        o = room // s + 1 if rounding == "floor" else -(-room // s) + 1
        if rounding == "ceil_torch" and o > 0 and (o - 1) * s >= i + b:
            o -= 1  # the last window would start in the end padding
        out.append(max(o, 0))
    return Window(kernel, strides, dilations, tuple(begin), tuple(end), tuple(out))
