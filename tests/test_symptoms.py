"""The symptom classifier (opconform/symptoms.py) on hand-made got/expected pairs: one pair per kind
of difference, each built the way the bug it stands for would produce it, so that a classifier
that named it otherwise fails here."""
import ml_dtypes
import numpy as np
import pytest

from opconform import symptoms
from opconform.compare import DEFAULT, Rules
from opconform.model import Tolerance

F64_THIRDS = np.array([1 / 3, 2 / 3, -7 / 3, 1e300, -1e300, 5e-324], dtype=np.float64)


def _as_float32(x: np.ndarray) -> np.ndarray:
    """float64 values as a backend computing in float32 returns them (saturating, as OpenVINO does)."""
    big = float(np.finfo(np.float32).max)
    return np.clip(x, -big, big).astype(np.float32).astype(np.float64)


PAIRS = {
    # same shape and type, other values
    "order": (np.array([3.0, 1.0, 2.0], np.float32), np.array([1.0, 2.0, 3.0], np.float32)),
    "order (rows of a matrix)": (np.array([[4, 5], [1, 2]], np.int64), np.array([[1, 2], [4, 5]], np.int64)),
    "nan": (np.array([0.0, 1.0], np.float32), np.array([np.nan, 1.0], np.float32)),
    "nan (a number came back NaN)": (np.array([np.nan, 1.0, 3.0]), np.array([2.0, 1.0, 3.0])),
    "precision(float32)": (_as_float32(F64_THIRDS), F64_THIRDS),
    "precision(bfloat16)": (np.array([1.0, 1 / 3], np.float32).astype(ml_dtypes.bfloat16).astype(np.float32),
                            np.array([1.0, 1 / 3], np.float32)),
    "precision": (np.array([1.0, np.float16(2.0) + np.float16(0.001953125)], np.float16), np.array([1.0, 2.0], np.float16)),
    "overflow(32-bit)": (np.array([2**31, -(2**31) - 1, 9007199254740993, 5], np.int64).astype(np.int32).astype(np.int64),
                         np.array([2**31, -(2**31) - 1, 9007199254740993, 5], np.int64)),
    "overflow(32-bit) unsigned": (np.array([2**32 + 1, 7], np.uint64).astype(np.uint32).astype(np.uint64),
                                  np.array([2**32 + 1, 7], np.uint64)),
    "overflow(8-bit)": (np.array([300, -200, 1], np.int32).astype(np.int8).astype(np.int32), np.array([300, -200, 1], np.int32)),
    "overflow (saturated at int32)": (np.array([2**31 - 1, 1], np.int64), np.array([2**40, 1], np.int64)),
    "overflow (float to infinity)": (np.array([np.inf, 1.0], np.float16), np.array([60000.0, 1.0], np.float16)),
    "overflow (float32 to infinity, not a float16 rounding)": (np.array([np.inf, 1.0], np.float32),
                                                              np.array([3e38, 1.0], np.float32)),
    "uninitialised (indices)": (np.array([0, -715325440, 2], np.int64), np.array([0, 1, 2], np.int64)),
    "uninitialised (floats)": (np.array([1.0, 4.2e35], np.float32), np.array([1.0, 2.0], np.float32)),
    "uninitialised (denormal garbage)": (np.array([1.0, 1.4e-43], np.float32), np.array([1.0, 2.0], np.float32)),
    "zeros": (np.array([3, 0, 0], np.int32), np.array([3, 4, -1], np.int32)),
    "values": (np.array([1, 5, 3], np.int32), np.array([1, 2, 3], np.int32)),
    "values (floats)": (np.array([1.0, 2.5], np.float32), np.array([1.0, 7.0], np.float32)),
    "values (strings)": (np.array(["a", "c"], object), np.array(["a", "b"], object)),
    # shapes
    "rank": (np.zeros((2,), np.float32), np.zeros((1, 2), np.float32)),
    "shape-zeros": (np.zeros((0, 0), np.int16), np.zeros((2, 5), np.int16)),
    # OpenVINO's Unique on an input empty along one axis answers a different wrong shape run to run
    # ([1, 1, 3] where [0, 1, 2] is expected, then another): one kind, or no shrink reproduces it
    "shape-empty": (np.zeros((1, 1, 3), np.float32), np.zeros((0, 1, 2), np.float32)),
    "shape-empty (all zeros)": (np.zeros((0, 0, 0), np.float32), np.zeros((0, 1, 2), np.float32)),
    "shape-empty (one longer)": (np.zeros((1, 1), np.float32), np.zeros((0, 1), np.float32)),
    "count-more": (np.zeros((3,), np.float32), np.zeros((2,), np.float32)),
    "count-fewer": (np.zeros((4, 2), np.int8), np.zeros((6, 2), np.int8)),
    "shape-permuted": (np.zeros((3, 2), np.float32), np.zeros((2, 3), np.float32)),
    "shape-dims": (np.zeros((2, 3), np.float32), np.zeros((3, 4), np.float32)),
    "element-type": (np.zeros((2,), np.float64), np.zeros((2,), np.float32)),
}


@pytest.mark.parametrize("name", list(PAIRS))
def test_each_kind_of_difference_is_named(name):
    got, expected = PAIRS[name]
    assert symptoms.kind(got, expected) == name.split(" ")[0]


def test_an_unwritten_buffer_reads_as_zeros_or_garbage_and_both_look_alike():
    """Whether unwritten memory holds zeros or garbage depends on the allocator: OpenVINO's Unique
    indices (sorted=0) came back as zeros on one run of a case and as garbage on the next."""
    a = "indices: zeros | type:T=int, attr:sorted=0"
    b = "indices: uninitialised | type:T=int, attr:sorted=0"
    assert symptoms.alike(a, b) and symptoms.alike(b, a) and symptoms.alike(a, a)
    assert not symptoms.alike(a, "indices: order | type:T=int, attr:sorted=0")
    assert not symptoms.alike(a, "indices: zeros | type:T=uint, attr:sorted=0")
    assert not symptoms.alike(a, "Y: zeros | type:T=int, attr:sorted=0")


def test_signed_zero_only_where_the_spec_tells_the_signs_apart():
    got, expected = np.array([-0.0, 1.0], np.float32), np.array([0.0, 1.0], np.float32)
    assert symptoms.kind(got, expected, Rules(signed_zero="distinct")) == "signed-zero"
    assert symptoms.kind(got, expected, DEFAULT) is None


def test_a_match_has_no_kind_nan_and_tolerance_included():
    assert symptoms.kind(np.array([np.nan, 1.0]), np.array([np.nan, 1.0])) is None
    loose = Rules(Tolerance(rtol=1e-3))
    assert symptoms.kind(np.array([1.0005]), np.array([1.0]), loose) is None
    assert symptoms.kind(np.array([1.0005]), np.array([1.0])) == "precision"


def test_nans_moved_to_other_places_are_not_nan_handling():
    # as many NaNs as expected, elsewhere (rows of Unique over an axis in another order): the values
    # differ, NaN handling does not; one NaN more or fewer is NaN handling
    assert symptoms.kind(np.array([np.nan, 1.0, 5.0]), np.array([1.0, np.nan, 2.0])) == "values"
    assert symptoms.kind(np.array([np.nan, np.nan, 5.0]), np.array([1.0, np.nan, 5.0])) == "nan"
    assert symptoms.kind(np.array([0.0, 1.0, 5.0]), np.array([1.0, np.nan, 5.0])) == "nan"


def test_flushed_subnormals_read_as_precision_not_zeros():
    got, expected = np.array([0.0, 0.0]), np.array([5e-324, -2.2250738585072014e-308])
    assert symptoms.kind(got, expected).startswith("precision")


def test_the_first_differing_output_against_the_closest_alternative():
    y, idx = np.array([1.0, 2.0], np.float32), np.array([0, 1], np.int64)
    alternatives = [(np.array([9.0, 9.0], np.float32), np.array([5, 6], np.int64)), (np.array([2.0, 1.0], np.float32), idx)]
    got = [y, idx]
    found = symptoms.output_kinds(got, alternatives, ["Y", "indices"], lambda j: DEFAULT)
    assert found == (("Y", "order"),)  # the second alternative: one output differs, by order; the first: both
    assert symptoms.output_kinds([y, None], alternatives, ["Y", "indices"], lambda j: DEFAULT)[-1] == ("indices", "missing")
    assert symptoms.output_kinds([y, idx], [(y, idx)], ["Y", "indices"], lambda j: DEFAULT) == ()
    # as the verdict does: a wrong value beats a wrong shape, however many outputs differ
    shapes = [(np.zeros(3, np.float32), idx), (np.array([1.0, 5.0], np.float32), np.array([3, 3], np.int64))]
    assert symptoms.output_kinds(got, shapes, ["Y", "indices"], lambda j: DEFAULT)[0] == ("Y", "values")
    assert symptoms.output_kinds([y, np.array([7, 7])], [(y, idx)], ["Y", ""], lambda j: DEFAULT) == ()  # not asked


@pytest.mark.parametrize("message, kind", [
    ("TypeError: Issues with types [<class 'numpy.ndarray'>] and attributes ['axis'] (operator 'Unique').", "refused-type"),
    ("RuntimeTypeError: Input type mismatch: float64 != float32 (operator ''Add'', shapes (1,), ()).", "refused-type"),
    ("ValueError: index can't contain negative values", "refused"),
    ("", "refused"),
])
def test_refusals_that_name_a_type(message, kind):
    assert symptoms.refusal_kind(message) == kind


def test_keys_read_back_as_words_and_type_refusals_are_told_apart():
    s = symptoms.Symptom((("Y", "precision(float32)"),), (("type:T", "float64"), ("attr:sorted", "1")))
    assert s.key == "Y: precision(float32) | type:T=float64, attr:sorted=1"
    assert symptoms.describe_key(s.key) == "Y: values rounded as if computed in float32"
    refusal = symptoms.Symptom((("", "refused-type"),), (("types", "float16"),))
    assert symptoms.is_type_refusal(refusal.key) and not symptoms.is_type_refusal(s.key)
    assert not symptoms.is_type_refusal(symptoms.Symptom((("", "refused"),)).key)
    invalid = symptoms.Symptom((("", "accepted-invalid"),), (("types", "int64"),), "indices_in_bounds")
    assert invalid.key == "accepted-invalid | relation indices_in_bounds | types=int64"


@pytest.mark.parametrize("dtype", [ml_dtypes.int4, ml_dtypes.uint4, ml_dtypes.int2, ml_dtypes.uint2])
def test_narrow_integer_types_get_a_symptom(dtype):
    """onnx::Cast to int4/int2 on onnx.reference: NumPy's iinfo refuses these void-kind dtypes, which
    made every such mismatch a harness-error of the ci run."""
    expected = np.array([1, 0, 1], dtype)
    assert symptoms.kind(np.array([1, 1, 1], dtype), expected) == "values"
    assert symptoms.kind(np.array([1, 0, 0], dtype), expected) == "zeros"
