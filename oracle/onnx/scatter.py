"""ONNX Scatter (deprecated): ScatterElements under its old name, without a reduction."""
from opconform.oracle.onnx.scatterelements import run  # noqa: F401
