"""ONNX CenterCropPad: per axis named, a centred window of the target size (the start rounded
down) or zeros around the data (the odd one after it); one Pad with the window's pads, which are
negative where the axis is cropped."""
import numpy as np

from opconform.oracle.kernels import layout


def run(spec, inputs, attributes, policies):
    data, shape = inputs[0], np.asarray(inputs[1], dtype=np.int64).reshape(-1)
    axes = attributes.get("axes")
    axes = np.arange(data.ndim) if axes is None else layout.normalize_axes(axes, data.ndim)
    diff = shape - np.asarray(data.shape, dtype=np.int64)[axes]
    # padding: floor(diff / 2) before; cropping: the window starts at floor(-diff / 2)
    before = np.where(diff >= 0, diff // 2, -((-diff) // 2))
    pads = np.concatenate([before, diff - before])
    return (layout.pad(data, pads, axes, "constant", layout.pad_default(data.dtype)),)
