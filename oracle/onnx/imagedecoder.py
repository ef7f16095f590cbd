"""ONNX ImageDecoder-20: the stream decoded by Pillow, which reads only the formats the text lists
(BMP, JPEG, JPEG 2000, TIFF, PNG, WebP, PNM), as (Height, Width, Channels): RGB, its channels
reversed (BGR), or one luma channel (Grayscale; a grayscale image's own channel, repeated three
times for RGB and BGR). A stream Pillow cannot decode is the text's empty matrix (policy
undecodable: empty_image, (0, 0, channels)) or refused (refuse: the oracle-side relation
stream_decodable).

judge(): the image's values within the spec's tolerance per format (its version notes): exact for
the lossless formats, 1 level from the exact BT.601 luma for Grayscale of a color image, 2 for JPEG
(3 for its Grayscale of a color image: a decoder may output the Y channel)."""
from __future__ import annotations

import io

import numpy as np

from opconform.model import RelationBroken

LISTED = ("BMP", "JPEG", "JPEG2000", "TIFF", "PNG", "WEBP", "PPM")  # Pillow's names of the text's formats
# tolerance in 8-bit levels: (lossy format, Grayscale asked of a color image) -> levels
TOLERANCE = {(False, False): 0, (False, True): 1, (True, False): 2, (True, True): 3}
LUMA = np.array([0.299, 0.587, 0.114])  # ITU-R BT.601, the luma every implementation computes


def _decoded(stream: np.ndarray):
    """Pillow's image of the stream, loaded, or None when it holds no image of a listed format."""
    from PIL import Image, UnidentifiedImageError  # noqa: PLC0415 (only this operator needs Pillow)

    try:
        image = Image.open(io.BytesIO(np.ascontiguousarray(stream, dtype=np.uint8).tobytes()), formats=LISTED)
        image.load()
    except (UnidentifiedImageError, OSError, ValueError, SyntaxError):  # Pillow's ways of saying "not decodable"
        return None
    return image


def _color(image) -> bool:
    return image.mode not in ("1", "L", "I", "I;16", "F")


def run(spec, inputs, attributes, policies):
    stream = np.asarray(inputs[0])
    fmt = attributes.get("pixel_format", "RGB")
    image = _decoded(stream)
    if image is None:
        if policies.get("undecodable", "empty_image") == "refuse":
            raise RelationBroken(spec.id, "stream_decodable", "error", "the stream holds no image of a listed format")
        return (np.zeros((0, 0, 1 if fmt == "Grayscale" else 3), np.uint8),)
    if fmt == "Grayscale":
        return (np.asarray(image.convert("L"), dtype=np.uint8)[:, :, None],)
    rgb = np.asarray(image.convert("RGB"), dtype=np.uint8)
    return (rgb[:, :, ::-1].copy() if fmt == "BGR" else rgb,)


def judge(spec, inputs, attributes, policies, outputs) -> str:
    got = outputs.get("image")
    if got is None:
        return ""
    (expected,) = run(spec, inputs, attributes, policies)
    got = np.asarray(got)
    if got.shape != expected.shape:
        return f"image: got shape {list(got.shape)}, expected {list(expected.shape)}"
    if not expected.size:
        return ""
    image = _decoded(np.asarray(inputs[0]))
    lossy = image.format == "JPEG"
    to_luma = attributes.get("pixel_format", "RGB") == "Grayscale" and _color(image)
    want = expected.astype(np.float64)
    if to_luma:  # the exact luma of the decoded colors, which a decoder may round or truncate
        want = (np.asarray(image.convert("RGB"), dtype=np.float64) @ LUMA)[:, :, None]
    levels = TOLERANCE[(lossy, to_luma)]
    off = np.abs(got.astype(np.float64) - want)
    if np.all(off <= levels + 1e-9):
        return ""
    at = tuple(int(i) for i in np.argwhere(off > levels + 1e-9)[0])
    return (f"image at {list(at)}: got {int(got[at])}, expected {want[at]:g} within {levels} level(s) "
            f"({image.format}{', luma' if to_luma else ''}; {int(np.sum(off > levels + 1e-9))} of {off.size} elements differ)")
