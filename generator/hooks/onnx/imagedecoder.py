"""Hook for onnx::ImageDecoder: its input is an encoded image (PNG, BMP, TIFF, WebP, JPEG) or a
stream that holds none, which no relation and no value range can draw: pixels are drawn as arrays
and written in the format by generator/images.py."""
from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

from opconform.generator import images, values
from opconform.generator.draft import Draft
from opconform.generator.families import default

# what a stream holds: an image in one of the formats (PNG first, the simplest to shrink to), or
# none (the text: "If it can't decode for any reason ... it will return an empty matrix")
STREAMS = images.FORMATS + tuple(f"undecodable:{k}" for k in images.UNDECODABLE)


def inputs(draw, d: Draft) -> None:
    if d.dtypes[0] != "uint8":  # a must-refuse draft of another element type: any array of it
        default.inputs(draw, d)
        return
    # every choice drawn whatever the others are, so that shrinking keeps later draws aligned
    stream = draw(st.sampled_from(STREAMS))
    mode = draw(st.sampled_from(["RGB", "L"]))
    h, w = draw(st.integers(1, 2 * d.profile.max_side)), draw(st.integers(1, 2 * d.profile.max_side))
    pixels = draw(values.arrays("uint8", (h, w, 3) if mode == "RGB" else (h, w)))
    quality = draw(st.sampled_from([90, 75, 100]))
    subsampling = draw(st.sampled_from(list(images.JPEG_SUBSAMPLING)))
    noise = draw(st.binary(min_size=0, max_size=16))
    fmt = draw(st.sampled_from(images.FORMATS))  # whose signature a cut-off header keeps
    if stream.startswith("undecodable:"):
        kind = stream.split(":", 1)[1]
        data = images.undecodable(kind, noise, fmt)
        d.notes.append(f"stream:{kind}" + (f":{fmt}" if kind == "header_cut" else ""))
    else:
        data = images.encode(pixels, stream, quality=quality, subsampling=subsampling)
        d.notes.append(f"stream:{stream}:{mode}" + (f":q{quality}:{subsampling}" if stream == "jpeg" else ""))
    d.inputs = [np.frombuffer(data, dtype=np.uint8).copy()]
