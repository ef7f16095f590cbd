"""OpenVINO's convolutions (Convolution-1, GroupConvolution-1, ConvolutionBackpropData-1,
GroupConvolutionBackpropData-1) run ONNX's Conv and ConvTranspose kernels through their mappings:
the grouped kernels are reshaped, the output_shape padding split is spelt as ONNX's auto_pad, and
the 3-D document examples, too large to run, have the extents the oracle's geometry gives."""
from __future__ import annotations

import numpy as np
import pytest

from opconform import oracle, specs
from opconform.oracle.kernels import conv


def _run(spec_id: str, inputs: list, attributes: dict) -> np.ndarray:
    spec = specs.load(spec_id)
    return np.asarray(oracle.evaluate(spec, inputs, attributes)[0])


def _direct_conv1d(x: np.ndarray, w: np.ndarray, stride: int, pad: tuple[int, int], dilation: int) -> np.ndarray:
    """The document's dot product of input patch and kernel, one output element at a time."""
    xp = np.pad(x, [(0, 0), (0, 0), pad])
    k = w.shape[2]
    out = (xp.shape[2] - (k - 1) * dilation - 1) // stride + 1
    y = np.zeros((x.shape[0], w.shape[0], out))
    for n in range(x.shape[0]):
        for m in range(w.shape[0]):
            for o in range(out):
                y[n, m, o] = sum(xp[n, c, o * stride + t * dilation] * w[m, c, t]
                                 for c in range(x.shape[1]) for t in range(k))
    return y


def test_convolution_is_the_documents_dot_product():
    rng = np.random.default_rng(0)
    x, w = rng.normal(size=(2, 3, 9)), rng.normal(size=(4, 3, 3))
    attrs = {"strides": [2], "pads_begin": [1], "pads_end": [2], "dilations": [2], "auto_pad": "explicit"}
    np.testing.assert_allclose(_run("openvino::Convolution-1", [x, w], attrs), _direct_conv1d(x, w, 2, (1, 2), 2), rtol=1e-12)


def test_group_convolution_convolves_each_group_with_its_filters():
    rng = np.random.default_rng(1)
    groups, c_in, c_out = 3, 2, 2
    x, w = rng.normal(size=(1, groups * c_in, 7)), rng.normal(size=(groups, c_out, c_in, 3))
    attrs = {"strides": [1], "pads_begin": [0], "pads_end": [0], "dilations": [1]}
    got = _run("openvino::GroupConvolution-1", [x, w], attrs)
    for g in range(groups):
        part = _direct_conv1d(x[:, g * c_in:(g + 1) * c_in], w[g], 1, (0, 0), 1)
        np.testing.assert_allclose(got[:, g * c_out:(g + 1) * c_out], part, rtol=1e-12)


def test_backprop_output_shape_puts_the_smaller_half_of_the_padding_first():
    """total_padding = 2 * (3 - 1) + 3 - 6 = 1: pads_begin = 1 // 2 = 0 unless same_upper, where
    pads_begin = 1 - 0 = 1 (the document's formulas; ONNX's ConvTranspose splits the other way)."""
    x = np.array([[[1.0, 2.0, 3.0]]])
    w = np.ones((1, 1, 3))
    full = [1, 1, 3, 2, 5, 3, 3]  # every input element spread over three taps at stride 2
    base = {"strides": [2], "pads_begin": [0], "pads_end": [0], "dilations": [1]}
    shape = np.array([6], dtype=np.int64)
    explicit = _run("openvino::ConvolutionBackpropData-1", [x, w, shape], dict(base, auto_pad="explicit"))
    upper = _run("openvino::ConvolutionBackpropData-1", [x, w, shape], dict(base, auto_pad="same_upper"))
    assert explicit.reshape(-1).tolist() == full[:6]
    assert upper.reshape(-1).tolist() == full[1:]


def test_group_backprop_is_backprop_per_group():
    rng = np.random.default_rng(2)
    groups, c_in, c_out = 2, 3, 2
    x, w = rng.normal(size=(1, groups * c_in, 4)), rng.normal(size=(groups, c_in, c_out, 2))
    attrs = {"strides": [2], "pads_begin": [1], "pads_end": [0], "dilations": [1], "output_padding": [1]}
    got = _run("openvino::GroupConvolutionBackpropData-1", [x, w], attrs)
    for g in range(groups):
        part = _run("openvino::ConvolutionBackpropData-1", [x[:, g * c_in:(g + 1) * c_in], w[g]], attrs)
        np.testing.assert_allclose(got[:, g * c_out:(g + 1) * c_out], part, rtol=1e-12)


@pytest.mark.parametrize("spatial, kernel, attrs, out", [
    # Convolution-1, 3D Convolution example
    ((320, 320, 320), (3, 3, 3), {"dilations": [2, 2, 2], "strides": [3, 3, 3], "pads": [0] * 6}, (106, 106, 106)),
    # GroupConvolution-1, 3D GroupConvolution example
    ((224, 224, 224), (5, 5, 5), {"dilations": [1, 1, 1], "strides": [1, 1, 1], "pads": [2] * 6}, (224, 224, 224)),
])
def test_large_3d_convolution_examples_have_the_documents_extents(spatial, kernel, attrs, out):
    assert conv.window(spatial, kernel, attrs).out == out


def test_large_3d_backprop_example_has_the_documents_extents():
    """GroupConvolutionBackpropData-1, 3D example: 2 * (224 - 1) + 3 - 1 - 1 = 447 per axis."""
    spec = specs.load("openvino::GroupConvolutionBackpropData-1")
    from opconform.oracle.openvino import mapped

    x = np.zeros((1, 20, 1, 1, 1), dtype=np.float32)  # the mapping reads the channels; the extents are the geometry's
    _, attrs = mapped.onnx_arguments(spec, [x, np.zeros((4, 5, 2, 3, 3, 3), np.float32)],
                                     spec.resolved_attributes({"dilations": [1, 1, 1], "pads_begin": [1, 1, 1],
                                                               "pads_end": [1, 1, 1], "strides": [2, 2, 2]}))
    assert attrs["group"] == 4 and attrs["pads"] == [1, 1, 1, 1, 1, 1]
    assert conv.transposed((224, 224, 224), (3, 3, 3), attrs).out == (447, 447, 447)


def _deformable(x, offsets, w, pad: bool, **attrs) -> np.ndarray:
    base = {"strides": [1, 1], "pads_begin": [0, 0], "pads_end": [0, 0], "dilations": [1, 1], "bilinear_interpolation_pad": pad}
    return _run("openvino::DeformableConvolution-8", [x, offsets, w, None], dict(base, **attrs))


def test_deformable_convolution_shifts_or_zero_pads_a_location_within_one_pixel_outside():
    """A 1x3 row [1, 2, 3], a 1x1 kernel of 1, x offsets -0.5 (left of the map), 0, 0.5 (right of it):
    bilinear_interpolation_pad false shifts both to the inner boundary (1 and 3), true interpolates
    with the zero padding (0.5 and 1.5)."""
    x = np.array([[[[1.0, 2.0, 3.0]]]], np.float32)
    offsets = np.zeros((1, 2, 1, 3), np.float32)
    offsets[0, 1, 0, 0], offsets[0, 1, 0, 2] = -0.5, 0.5
    w = np.ones((1, 1, 1, 1), np.float32)
    assert _deformable(x, offsets, w, False).reshape(-1).tolist() == [1.0, 2.0, 3.0]
    assert _deformable(x, offsets, w, True).reshape(-1).tolist() == [0.5, 2.0, 1.5]


def test_deformable_convolution_without_offsets_is_convolution():
    rng = np.random.default_rng(5)
    x, w = rng.normal(size=(1, 4, 6, 5)), rng.normal(size=(2, 2, 3, 2))
    attrs = {"strides": [2, 1], "pads_begin": [1, 0], "pads_end": [1, 1], "dilations": [1, 2], "group": 2}
    offsets = np.zeros((1, 2 * 3 * 2, 3, 4))
    got = _deformable(x, offsets, w, True, **attrs)
    conv_attrs = {k: v for k, v in attrs.items() if k != "group"}
    want = np.concatenate([_run("openvino::Convolution-1", [x[:, 2 * g:2 * g + 2], w[g:g + 1]], conv_attrs) for g in range(2)], axis=1)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
