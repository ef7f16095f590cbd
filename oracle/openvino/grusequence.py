"""OpenVINO GRUSequence-5: the recurrence over each row's sequence (oracle/openvino/recurrent_sequence.py)."""
from __future__ import annotations

from opconform.oracle.openvino.recurrent_sequence import run_sequence


def run(spec, inputs, attributes, policies):
    return run_sequence("GRU", inputs, attributes, policies)
