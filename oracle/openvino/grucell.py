"""OpenVINO GRUCell: one step of the recurrence (oracle/openvino/recurrent_cell.py)."""
from __future__ import annotations

from opconform.oracle.openvino.recurrent_cell import step


def run(spec, inputs, attributes, policies):
    return step("GRU", inputs, attributes)
