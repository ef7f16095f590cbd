"""OpenVINO StringTensorPack-15: each output string is symbols[begin:end] read as UTF-8, in the
shape of begins. A slice that is not valid UTF-8 is no string the text defines: the oracle-side
relation `slices_utf8` (undefined)."""
from __future__ import annotations

import numpy as np

from opconform.model import RelationBroken, SpecVersion


def run(spec: SpecVersion, inputs: list, attributes: dict, policies: dict) -> tuple[np.ndarray, ...]:
    begins, ends = np.asarray(inputs[0]).astype(np.int64), np.asarray(inputs[1]).astype(np.int64)
    raw = np.asarray(inputs[2], dtype=np.uint8).tobytes()
    out = np.empty(begins.shape, dtype=object)
    for at, (b, e) in enumerate(zip(begins.reshape(-1), ends.reshape(-1))):
        try:
            out.reshape(-1)[at] = raw[b:e].decode("utf-8")
        except UnicodeDecodeError as err:
            raise RelationBroken(spec.id, "slices_utf8", "undefined",
                                 f"symbols[{b}:{e}] is not UTF-8 ({err.reason}): the text reads the bytes as utf-8") from None
    return (out,)
