"""OpenVINO ConvertPromoteTypes-14: the common type does not depend on the order of the inputs (the
document's note), every example pair of the document promotes as it says, and promote_unsafe
false refuses exactly the promotions the document calls unsafe."""
from __future__ import annotations

import itertools

import pytest

from opconform.oracle.openvino.convertpromotetypes import common_type

TYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
         "float8e4m3fn", "float8e5m2", "float16", "bfloat16", "float32", "float64"]


@pytest.mark.parametrize("a, b", list(itertools.combinations_with_replacement(TYPES, 2)))
def test_promotion_does_not_depend_on_input_order(a, b):
    assert common_type(a, b, False, False, {}) == common_type(b, a, False, False, {})


@pytest.mark.parametrize("a, b, want, unsafe", [
    ("int8", "float32", "float32", False), ("int32", "uint8", "int32", False), ("float16", "int64", "float16", True),
    ("float64", "uint64", "float64", True), ("int8", "uint8", "int16", True), ("float16", "bfloat16", "float32", True),
    ("float8e4m3fn", "float8e5m2", "float16", True), ("uint64", "int8", "float32", True), ("int16", "uint32", "int64", True),
    ("float16", "float32", "float32", False), ("bool", "uint8", "uint8", False)])
def test_the_documents_pairs(a, b, want, unsafe):
    got, why = common_type(a, b, False, False, {})
    assert got == want and bool(why) == unsafe


def test_pytorch_scalar_promotion_takes_the_tensors_type():
    assert common_type("int64", "uint8", True, False, {"pytorch_scalar_promotion": True})[0] == "uint8"
    assert common_type("float16", "int8", True, False, {"pytorch_scalar_promotion": True}) == ("float16", "")


@pytest.mark.parametrize("pytorch", [False, True])
@pytest.mark.parametrize("ranks", [(1, 1), (0, 1), (1, 0)])
def test_the_spec_relation_refuses_what_the_rules_call_unsafe(pytorch, ranks):
    """unsafe_promotion in the relation language (so valid draws avoid it) says what the oracle's rules say."""
    import numpy as np

    from opconform import dtypes, specs
    from opconform.specs.relations import first_broken

    spec = specs.load("openvino::ConvertPromoteTypes-14")
    attributes = {"promote_unsafe": False, "pytorch_scalar_promotion": pytorch, "u64_integer_promotion_target": "f32"}
    for a, b in itertools.product(TYPES, repeat=2):
        x, y = (np.zeros((2,) * r, dtype=dtypes.numpy_dtype(t)) for t, r in zip((a, b), ranks))
        broken = first_broken(spec, [x, y], attributes)
        _, why = common_type(a, b, ranks[0] == 0, ranks[1] == 0, attributes)
        assert (broken is not None and broken.id == "unsafe_promotion") == bool(why), (a, b, why, broken)
