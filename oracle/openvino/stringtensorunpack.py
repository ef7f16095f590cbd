"""OpenVINO StringTensorUnpack-15: every string's UTF-8 bytes, concatenated in row-major order
(symbols), and where each one begins and ends there ([begin, end), int32). ONNX has no such
operator: the oracle is its own."""
from __future__ import annotations

import numpy as np

from opconform.model import SpecVersion


def run(spec: SpecVersion, inputs: list, attributes: dict, policies: dict) -> tuple[np.ndarray, ...]:
    data = np.asarray(inputs[0], dtype=object)
    encoded = [str(s).encode("utf-8") for s in data.reshape(-1)]
    ends = np.cumsum([len(b) for b in encoded], dtype=np.int64)
    begins = ends - np.array([len(b) for b in encoded], dtype=np.int64)
    symbols = np.frombuffer(b"".join(encoded), dtype=np.uint8).copy()
    return begins.reshape(data.shape).astype(np.int32), ends.reshape(data.shape).astype(np.int32), symbols
