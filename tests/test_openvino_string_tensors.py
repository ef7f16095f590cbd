"""OpenVINO StringTensorUnpack-15 and StringTensorPack-15: packing what unpacking gives returns the
strings (any shape, empty and multi-byte strings included); begins and ends count UTF-8 bytes; a
slice that is not UTF-8 is undefined."""
from __future__ import annotations

import numpy as np
import pytest

from opconform import oracle, specs
from opconform.model import RelationBroken


@pytest.mark.parametrize("strings", [["Intel", "OpenVINO"], [["", "ä€"], ["😀x", " "]], [[["a"]]], []])
def test_pack_inverts_unpack(strings):
    data = np.array(strings, dtype=object)
    begins, ends, symbols = oracle.evaluate(specs.load("openvino::StringTensorUnpack-15"), [data], {})
    assert begins.shape == data.shape and symbols.size == sum(len(str(s).encode()) for s in data.reshape(-1))
    (back,) = oracle.evaluate(specs.load("openvino::StringTensorPack-15"), [begins, ends, symbols], {})
    assert back.shape == data.shape and back.reshape(-1).tolist() == data.reshape(-1).tolist()


def test_a_slice_cutting_a_character_is_undefined():
    symbols = np.frombuffer("é".encode(), dtype=np.uint8).copy()  # two bytes
    with pytest.raises(RelationBroken, match="slices_utf8"):
        oracle.evaluate(specs.load("openvino::StringTensorPack-15"), [np.array([0]), np.array([1]), symbols], {})
