"""Backends: adapters that run a case on a real implementation (onnx.reference, onnxruntime, OpenVINO, tract...)."""
