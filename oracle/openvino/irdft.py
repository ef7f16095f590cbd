"""OpenVINO IRDFT: numpy.fft through oracle/openvino/fourier.py (the axes, signal sizes and one-sided
halves as the document defines them)."""
from __future__ import annotations

from opconform.model import SpecVersion
from opconform.oracle.openvino import fourier


def run(spec: SpecVersion, inputs: list, attributes: dict, policies: dict) -> tuple:
    signal_size = inputs[2] if len(inputs) > 2 else None
    return (fourier.transform("IRDFT", inputs[0], inputs[1], signal_size),)
