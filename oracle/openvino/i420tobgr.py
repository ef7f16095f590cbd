"""OpenVINO I420toBGR-8: oracle/openvino/yuv.py's conversion, I420 planes, BGR channel order."""
from opconform.oracle.openvino.yuv import run_i420_to_bgr as run  # noqa: F401
