"""Generator hooks of the ai.onnx.ml operators (dialect onnx_ml)."""
