"""ONNX Upsample (7, 9, 10): Resize-10 under another name (oracle/onnx/resize.py)."""
from opconform.oracle.onnx.resize import policies_in_play, run

__all__ = ["policies_in_play", "run"]
