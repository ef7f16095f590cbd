"""Hook for onnx::Scatter: the ScatterElements hook (same inputs and relations, no reduction)."""
from opconform.generator.hooks.onnx.scatterelements import BREAK, dependent_attributes, inputs  # noqa: F401
