"""OpenVINO NV12toBGR-8: oracle/openvino/yuv.py's conversion, NV12 planes, BGR channel order."""
from opconform.oracle.openvino.yuv import run_nv12_to_bgr as run  # noqa: F401
