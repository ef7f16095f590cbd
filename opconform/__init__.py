"""opconform: executable operator specifications for ONNX and OpenVINO.

Stages, each importing only earlier ones and the core model (opconform.model):
specs -> generator -> oracle -> backends -> suites (runner) -> reports.
"""
__version__ = "0.1.0"
