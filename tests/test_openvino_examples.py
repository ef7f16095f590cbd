"""Every IR <layer> example of the OpenVINO documents, re-encoded in the spec files (`layers`), is
reproduced by the oracle: its output element types and shapes (the worked values are `examples`,
which tests/test_oracle_examples.py checks for every spec)."""
from __future__ import annotations

import numpy as np
import pytest

from helpers_library import loadable_specs
from opconform import specs
from opconform.model import Layer, SpecError
from opconform.oracle.openvino.layers import check_layer, layer_inputs

VERSIONS = [v for s in loadable_specs("openvino") for v in s.versions]


@pytest.mark.parametrize("spec, layer", [(v, layer) for v in VERSIONS for layer in v.layers],
                         ids=lambda x: getattr(x, "id", getattr(x, "name", "")))
def test_layer_reproduced(spec, layer):
    result = check_layer(spec, layer)
    assert result.passed, result.message


def test_most_versions_carry_their_document_examples():
    with_examples = [v for v in VERSIONS if v.layers or v.examples]
    assert len(with_examples) >= 0.9 * len(VERSIONS), sorted({v.id for v in VERSIONS} - {v.id for v in with_examples})


def test_a_layer_that_does_not_fit_fails():
    spec = specs.load("openvino::Add-1")
    layer = spec.layers[1]  # [8,1,6,1] + [7,1,5] -> [8,7,6,5]
    wrong = Layer(layer.name, layer.inputs, (("float32", (8, 7, 6, 4)),), layer.attributes)
    assert not check_layer(spec, wrong).passed
    refused = Layer(layer.name, layer.inputs, (), {"auto_broadcast": "none"}, expect_error="shapes_equal_without_broadcast")
    assert check_layer(spec, refused).passed


def test_layer_values_default_to_fill():
    layer = specs.load("openvino::ReduceSum-1").layers[3]
    data, axes = layer_inputs(layer)
    assert np.all(data == layer.fill) and axes.tolist() == [-2]  # the axes the XML comment gives


def test_a_layer_naming_an_unknown_attribute_is_refused(tmp_path):
    src = (specs.SPEC_ROOT / "openvino" / "Abs.yaml").read_text()
    bad = tmp_path / "openvino" / "Abs.yaml"
    bad.parent.mkdir()
    bad.write_text(src.replace("  - name: layer_1\n", "  - name: layer_1\n    attributes: {alpha: 1}\n", 1))
    with pytest.raises(SpecError, match=r"layers\[0\] \(layer_1\): field attributes.alpha"):
        specs.load_file(bad)
