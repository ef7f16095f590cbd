"""Oracle modules of the ai.onnx.ml operators (dialect onnx_ml, specs/dialects.py)."""
