"""Hook for onnx::Where: condition, X and Y of multidirectionally broadcastable shapes (the
broadcasting family's steps; Where's family is indexing)."""
from opconform.generator.families.broadcasting import BREAK, inputs  # noqa: F401
