"""OpenVINO CTCGreedyDecoderSeqLen-6: greedy decoding (oracle/openvino/ctc_greedy.py) of data
[N, T, C] over each row's sequence_length steps, the blank blank_index (default C - 1)."""
from __future__ import annotations

import numpy as np

from opconform.model import SpecVersion
from opconform.oracle.openvino.ctc_greedy import decode

_TYPES = {"i64": np.int64, "i32": np.int32}


def run(spec: SpecVersion, inputs: list, attributes: dict, policies: dict) -> tuple[np.ndarray, ...]:
    data, lengths = np.asarray(inputs[0]), np.asarray(inputs[1]).astype(np.int64)
    given = inputs[2] if len(inputs) > 2 else None
    blank = data.shape[2] - 1 if given is None else int(np.asarray(given).reshape(-1)[0])
    classes, counts = decode(data, lengths, blank, bool(attributes.get("merge_repeated", True)), policies["ties"])
    return (classes.astype(_TYPES[attributes.get("classes_index_type", "i32")]),
            counts.astype(_TYPES[attributes.get("sequence_length_type", "i32")]))
