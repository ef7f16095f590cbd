"""Generator hooks of the ai.onnx.preview.training operators (dialect onnx_training): none; the package lets hook lookup find none."""
