"""OpenVINO I420toRGB-8: oracle/openvino/yuv.py's conversion, I420 planes, RGB channel order."""
from opconform.oracle.openvino.yuv import run_i420_to_rgb as run  # noqa: F401
