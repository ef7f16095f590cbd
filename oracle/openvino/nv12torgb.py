"""OpenVINO NV12toRGB-8: oracle/openvino/yuv.py's conversion, NV12 planes, RGB channel order."""
from opconform.oracle.openvino.yuv import run_nv12_to_rgb as run  # noqa: F401
