"""Hook for OpenVINO Constant-1: the content (`value`) drawn first, then the four IR attributes
that describe it: element_type and shape its own, size its byte count, offset anywhere in the
binary file. Drawn apart, shape and size would agree with the content by chance only. The
breakers: a size short of the tensor by 1 byte up to all of it; a negative dimension."""
from __future__ import annotations

from hypothesis import strategies as st

from opconform.generator import shapes, values
from opconform.generator.draft import Draft

# the document's element types opconform can hold (u1 has no NumPy form here: not drawn)
_TYPES = {"u8": "uint8", "u16": "uint16", "u32": "uint32", "u64": "uint64", "i8": "int8", "i16": "int16",
          "i32": "int32", "i64": "int64", "f16": "float16", "f32": "float32", "boolean": "bool", "bf16": "bfloat16"}


def attributes(draw, d: Draft) -> None:
    element_type = draw(st.sampled_from(sorted(_TYPES)))
    rank = draw(st.integers(0, 3))
    shape = draw(shapes.shapes(rank, d.profile))
    value = draw(values.arrays(_TYPES[element_type], shape))
    d.attributes = {"element_type": element_type, "shape": [int(s) for s in shape], "value": value,
                    "offset": draw(st.sampled_from([0, 1, 3, 8, 1000])), "size": int(value.nbytes)}


def break_content_covers_shape(draw, d: Draft) -> None:
    size = int(d.attributes["value"].nbytes)
    if size > 0:
        d.attributes["size"] = size - draw(st.integers(1, size))


def break_shape_nonnegative(draw, d: Draft) -> None:
    shape = list(d.attributes["shape"]) or [1]
    shape[draw(st.integers(0, len(shape) - 1))] = -draw(st.integers(1, 3))
    d.attributes["shape"] = shape


BREAK = {"content_covers_shape": break_content_covers_shape, "shape_nonnegative": break_shape_nonnegative}
