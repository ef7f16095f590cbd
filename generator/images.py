"""Encoded images for ImageDecoder: small pixel arrays written as the byte streams of the formats
the text lists (PNG, BMP, TIFF, WebP, PNM, JPEG 2000, JPEG), with Pillow, and streams no decoder
can read.

Lossless writers only (WebP in its lossless mode, JPEG 2000 with its reversible wavelet), except
JPEG, so that every format but JPEG gives back exactly the pixels drawn; JPEG is written at a
drawn quality and chroma subsampling."""
from __future__ import annotations

import io

import numpy as np

LOSSLESS = ("png", "bmp", "tiff", "webp", "pnm", "jpeg2000")
FORMATS = LOSSLESS + ("jpeg",)
# streams that hold no image: nothing at all, bytes of no listed format, a listed format's
# signature cut off before its header says the image's size (every decoder needs the size first)
UNDECODABLE = ("empty", "no_signature", "header_cut")
SIGNATURES = {"png": b"\x89PNG\r\n\x1a\n", "bmp": b"BM", "tiff": b"II*\x00", "webp": b"RIFF", "pnm": b"P6",
              "jpeg2000": b"\x00\x00\x00\x0cjP  \r\n\x87\n", "jpeg": b"\xff\xd8\xff"}
JPEG_SUBSAMPLING = {"4:4:4": 0, "4:2:2": 1, "4:2:0": 2}


def _pillow():
    try:
        from PIL import Image  # noqa: PLC0415 (only ImageDecoder's cases need it)
    except ImportError as e:
        raise ImportError("ImageDecoder's cases need Pillow: pip install pillow (a dependency of opconform)") from e
    return Image


def encode(pixels: np.ndarray, fmt: str, *, quality: int = 90, subsampling: str = "4:2:0") -> bytes:
    """pixels (H, W) grayscale or (H, W, 3) RGB, uint8, as the bytes of one `fmt` stream."""
    image = _pillow().fromarray(np.ascontiguousarray(pixels, dtype=np.uint8), "L" if pixels.ndim == 2 else "RGB")
    out = io.BytesIO()
    if fmt == "jpeg":
        image.save(out, "JPEG", quality=quality, subsampling=JPEG_SUBSAMPLING[subsampling])
    elif fmt == "webp":
        image.save(out, "WEBP", lossless=True, quality=100, exact=True)
    elif fmt == "tiff":
        image.save(out, "TIFF", compression="tiff_deflate")
    elif fmt == "pnm":  # PPM for RGB, PGM for grayscale
        image.save(out, "PPM")
    elif fmt == "jpeg2000":  # the reversible 5/3 wavelet, no quality layers: lossless
        image.save(out, "JPEG2000", irreversible=False)
    elif fmt in ("png", "bmp"):
        image.save(out, fmt.upper())
    else:
        raise ValueError(f"image format {fmt!r}: expected one of {', '.join(FORMATS)}")
    return out.getvalue()


def undecodable(kind: str, noise: bytes, fmt: str) -> bytes:
    """A stream of the UNDECODABLE kind: `noise` (arbitrary bytes) made into it."""
    if kind == "empty":
        return b""
    if kind == "no_signature":  # a leading 0 byte starts none of the listed formats' signatures
        return b"\x00" + noise
    if kind == "header_cut":  # the signature and at most two bytes more: no size, no pixels
        return SIGNATURES[fmt] + noise[:2]
    raise ValueError(f"undecodable stream {kind!r}: expected one of {', '.join(UNDECODABLE)}")
