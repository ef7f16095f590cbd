"""Oracle modules of the ai.onnx.preview.training operators (dialect onnx_training, specs/dialects.py)."""
