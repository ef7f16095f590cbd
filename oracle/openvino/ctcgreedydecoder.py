"""OpenVINO CTCGreedyDecoder-1: greedy decoding (oracle/openvino/ctc_greedy.py) of data [T, N, C],
each sequence's length the count of ones leading its column of sequence_mask, the blank the last
class (erratum blank_index_undefined); classes as T_F of shape [N, T, 1, 1]."""
from __future__ import annotations

import numpy as np

from opconform.model import SpecVersion
from opconform.oracle.openvino.ctc_greedy import decode


def run(spec: SpecVersion, inputs: list, attributes: dict, policies: dict) -> tuple[np.ndarray, ...]:
    data, mask = np.asarray(inputs[0]), np.asarray(inputs[1])
    logits = np.swapaxes(data, 0, 1)  # [N, T, C]
    lengths = np.sum(np.asarray(mask, dtype=np.float64) != 0, axis=0).astype(np.int64)  # a prefix of ones (relation)
    classes, _ = decode(logits, lengths, data.shape[2] - 1, bool(attributes.get("ctc_merge_repeated", True)), policies["ties"])
    return (classes.reshape(classes.shape + (1, 1)).astype(data.dtype),)
