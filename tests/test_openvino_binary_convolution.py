"""OpenVINO BinaryConvolution-1 against the document's XNOR-popcount counted bit by bit (Output = 2P - B
per window, the padding filled with pad_value's bit), pad_value read as a real number against a
regular zero-padded convolution of the signed values, and the native builder's u1 packing read back
by OpenVINO's own Convert. A few drawn cases run on openvino-native."""
from __future__ import annotations

import itertools

import numpy as np
import pytest

from opconform import oracle, specs
from opconform.model import Verdict


def _attrs(**kw) -> dict:
    base = {"strides": [1, 1], "pads_begin": [0, 0], "pads_end": [0, 0], "dilations": [1, 1], "mode": "xnor-popcount", "pad_value": 0.0}
    return {**base, **kw}


def _evaluate(x, w, attributes, policies=None):
    spec = specs.load("openvino::BinaryConvolution-1")
    (y,) = oracle.evaluate(spec, [x, w], spec.resolved_attributes(attributes), policies=policies)
    return y


def _popcount(x, w, pads, pad_bit, strides, dilations):
    """The document's three steps per output element, on bits."""
    (pt, pl), (pb, pr) = pads
    xp = np.pad(x, ((0, 0), (0, 0), (pt, pb), (pl, pr)), constant_values=pad_bit).astype(int)
    n, c, h, wd = xp.shape
    o, _, kh, kw = w.shape
    (sy, sx), (dy, dx) = strides, dilations
    oh, ow = (h - (kh - 1) * dy - 1) // sy + 1, (wd - (kw - 1) * dx - 1) // sx + 1
    out = np.zeros((n, o, oh, ow))
    for b, k, i, j in itertools.product(range(n), range(o), range(oh), range(ow)):
        patch = xp[b, :, i * sy: i * sy + (kh - 1) * dy + 1: dy, j * sx: j * sx + (kw - 1) * dx + 1: dx]
        xnor = patch == w[k]
        out[b, k, i, j] = 2 * xnor.sum() - xnor.size
    return out


@pytest.mark.parametrize("seed", range(4))
def test_xnor_popcount_bit_by_bit(seed):
    rng = np.random.default_rng(seed)
    x = rng.integers(0, 2, (2, 3, 6, 5)).astype(np.float32)
    w = rng.integers(0, 2, (4, 3, 3, 2)).astype(np.uint8)
    pad_value = float(seed % 2)
    strides, dilations = [1 + seed % 2, 1], [1, 1 + seed // 2]
    got = _evaluate(x, w, _attrs(pads_begin=[1, 2], pads_end=[2, 1], pad_value=pad_value, strides=strides, dilations=dilations))
    want = _popcount(x, w, ((1, 2), (2, 1)), pad_value, strides, dilations)
    assert np.array_equal(got, want)


def test_pad_value_read_as_a_real_number():
    rng = np.random.default_rng(7)
    x = rng.integers(0, 2, (1, 2, 4, 4)).astype(np.float64)
    w = rng.integers(0, 2, (2, 2, 3, 3)).astype(np.uint8)
    got = _evaluate(x, w, _attrs(pads_begin=[1, 1], pads_end=[1, 1]), {"pad_reading": "real"})
    spec = specs.load("openvino::Convolution-1")
    (zero_padded,) = oracle.evaluate(spec, [2 * x - 1, 2 * w.astype(np.float64) - 1],
                                     spec.resolved_attributes({"strides": [1, 1], "pads_begin": [1, 1], "pads_end": [1, 1], "dilations": [1, 1]}))
    assert np.array_equal(got, zero_padded)
    bit = _evaluate(x, w, _attrs(pads_begin=[1, 1], pads_end=[1, 1]), {"pad_reading": "bit"})
    assert not np.array_equal(bit, got)  # a padded position is -1, not 0, under the bit reading


@pytest.mark.backend
def test_u1_packing_reads_back_through_openvinos_convert():
    ov = pytest.importorskip("openvino")
    from openvino import opset1

    from opconform.generator.openvino_binary_adapters import u1_constant

    bits = np.random.default_rng(1).integers(0, 2, (3, 2, 1, 5)).astype(np.uint8)  # 30 bits: a partial last byte
    model = ov.Model([opset1.convert(u1_constant(bits), "u8").output(0)], [])
    compiled = ov.Core().compile_model(model, "CPU")
    assert np.array_equal(compiled({})[compiled.output(0)], bits)


@pytest.mark.backend
def test_generated_cases_run_on_openvino():
    """Drawn cases run to a verdict. OpenVINO's CPU plugin reads u1 weights with the bits of each byte
    reversed against OpenVINO's own u1 layout (a known failure, reported in the ci run), so only
    the absence of harness errors and a pass among the cases is asserted."""
    pytest.importorskip("openvino")
    from opconform.backends import get
    from opconform.generator import sampling
    from opconform.suites import verdicts

    spec = specs.load("openvino::BinaryConvolution-1")
    backend = get("openvino-native")
    cases = list(sampling.generate(spec, 8, 11, kind="valid", expect=oracle.expectation))
    got = [verdicts.judge(spec, case, backend.execute(spec, case))[0] for case in cases]
    assert got and Verdict.PASS in got and Verdict.HARNESS_ERROR not in got, got
