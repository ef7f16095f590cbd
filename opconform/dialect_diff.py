"""The data of an ONNX/OpenVINO dialect diff: the two spec versions side by side, and the groups of
drawn inputs on which their oracles disagree. Computed by oracle/openvino/dialect_diff.py,
rendered by reports/dialect_diff.py (which reads results and data, never the oracle)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from opconform.model import SpecVersion

__all__ = ["Row", "Disagreement", "DialectDiff"]


@dataclass(frozen=True)
class Row:
    """One aspect of the two versions: what ONNX says, what OpenVINO says, whether they differ."""

    section: str  # inputs, outputs, attributes, relations, policies, mapping
    name: str
    onnx: str
    openvino: str
    differs: bool


@dataclass(frozen=True)
class Disagreement:
    """A group of drawn cases on which the two oracles disagree alike, with its smallest case."""

    kind: str  # outputs-differ, onnx-refuses, onnx-undefined, openvino-refuses, openvino-undefined
    what: str  # the relation broken, or the output that differs
    count: int
    onnx_inputs: tuple[Any, ...]
    onnx_attributes: dict
    openvino_inputs: tuple[Any, ...]
    openvino_attributes: dict
    onnx_result: str  # one line: the outputs, or the relation
    openvino_result: str


@dataclass(frozen=True)
class DialectDiff:
    onnx: SpecVersion
    openvino: SpecVersion
    rows: tuple[Row, ...]
    disagreements: tuple[Disagreement, ...]
    drawn: int  # cases drawn on each side
    compared: int  # cases both specs could judge
    reverse: bool  # whether ONNX-valid cases could be spelt as OpenVINO ones
    seed: int = 0
    notes: tuple[str, ...] = field(default_factory=tuple)
