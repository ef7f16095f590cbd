"""Hook for OpenVINO GatherND-5/8: the onnx GatherND hook (hooks/onnx/gathernd.py) applies as is;
it reads the dialect for the differences (indices in [0, s-1], indices.shape[-1] may be 0)."""
from opconform.generator.hooks.onnx.gathernd import BREAK, dependent_attributes, inputs

__all__ = ["BREAK", "dependent_attributes", "inputs"]
