"""Hook for a window operator: HannWindow's (a small scalar size)."""
from opconform.generator.hooks.onnx.hannwindow import inputs  # noqa: F401
