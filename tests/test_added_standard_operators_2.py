"""Standard ONNX operators added with one spec file and one oracle module each, no generator hook
(issue 15 items 2, 3 and 9): CenterCropPad, Constant, StringNormalizer, TfIdfVectorizer and
Dropout. Their valid draws are rarely rejected, every error relation gets must-refuse cases that
break it first, the generic generator forms they brought (an ints attribute repaired and kept
distinct as a list, exactly one of several attributes given, a tensor attribute of any shape, no
empty list attribute in an ONNX node) hold and break what they say, and the oracles' subtle points
answer as the text does."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from helpers_generator import assert_drawn_without_a_hook, assert_must_refuse_drafts, draft_of
from opconform import oracle, specs
from opconform.generator import list_relations, onnx_model, solver, strategies, tensor_attributes, value_repair
from opconform.generator.families import default

ADDED = ["onnx::CenterCropPad-18", "onnx::Constant-1", "onnx::Constant-9", "onnx::Constant-11", "onnx::Constant-12",
         "onnx::Constant-25", "onnx::StringNormalizer-10", "onnx::Dropout-1", "onnx::Dropout-7", "onnx::Dropout-10",
         "onnx::Dropout-12", "onnx::Dropout-22"]


@pytest.mark.parametrize("sid", ADDED)
@pytest.mark.parametrize("t", [0, 2])
def test_added_operators_draw_without_a_hook_and_rarely_reject(sid, t):
    assert_drawn_without_a_hook(sid, t)


@pytest.mark.parametrize("sid", ADDED)
def test_every_error_relation_of_the_added_operators_gets_must_refuse_cases(sid):
    spec = specs.load(sid)
    relations = strategies.error_relations(spec)
    assert relations
    for relation in relations:
        assert_must_refuse_drafts(spec, relation, tries=10, at_least=3)


# ------------------------------------------------------------------ generic forms
@settings(max_examples=25, deadline=None, database=None)
@given(st.data())
def test_an_ints_attribute_is_repaired_in_range_and_distinct_and_its_length_followed(data):
    """CenterCropPad's axes: out of [-r, r-1] and repeated; value repair puts each in range, makes
    them distinct (dropping some), and the shape fix reading their count runs again."""
    spec = specs.load("onnx::CenterCropPad-18")
    axes = data.draw(st.lists(st.integers(-9, 9), min_size=1, max_size=5))
    d = draft_of(spec, [np.zeros((2, 3, 1), np.float32), np.array([1, 2, 3, 4, 5][:len(axes)], np.int64)], {"axes": axes})
    solver.compile_plan(spec).apply(data.draw, d)
    value_repair.repair(data.draw, d, value_repair.terms(spec))
    got = d.attributes.get("axes")
    assert got is None or (all(-3 <= a < 3 for a in got) and len({a % 3 for a in got}) == len(got))
    assert specs.first_broken(spec, d.inputs, d.attributes) is None


def test_the_exactly_one_form_is_read_over_attributes():
    forms = {(f.relation, f.form) for f in solver.compile_plan(specs.load("onnx::Constant-12")).fixes}
    assert ("exactly_one_value", "exactly-one") in forms
    assert ("exactly_one_value", "exactly-one") in {(f.relation, f.form) for f in solver.compile_plan(specs.load("onnx::Constant-11")).fixes}


@settings(max_examples=25, deadline=None, database=None)
@given(st.data(), st.sets(st.sampled_from(["value_float", "value_ints", "value_string", "value_floats", "value_int"])))
def test_the_exactly_one_fix_keeps_one_attribute_and_the_breaker_gives_none_or_two(data, given_names):
    spec = specs.load("onnx::Constant-12")
    start = {"value_float": 1.5, "value_ints": [1, 2], "value_string": "a", "value_floats": [0.5], "value_int": 3}
    d = draft_of(spec, [], {n: start[n] for n in given_names})
    solver.compile_plan(spec).apply(data.draw, d)
    assert len(d.attributes) == 1
    kept = next(iter(d.attributes))
    assert kept not in given_names or d.attributes[kept] == start[kept]  # a given one keeps its value
    assert specs.first_broken(spec, d.inputs, d.attributes) is None
    solver.breakers(spec)["exactly_one_value"](data.draw, d)
    assert len(d.attributes) in (0, 2)
    assert specs.first_broken(spec, d.inputs, d.attributes).id == "exactly_one_value"


@settings(max_examples=30, deadline=None, database=None)
@given(st.data())
def test_a_tensor_attribute_without_a_shape_is_drawn_at_many_shapes_and_broken_by_type(data):
    spec = specs.load("onnx::Constant-9")
    a = spec.attribute("value")
    assert a.tensor_shape is None
    value = data.draw(default.attribute_value(a))
    assert value.ndim <= 3
    assert specs.first_broken(spec, [], {"value": value}) is None
    d = draft_of(spec, [], {"value": value})
    tensor_attributes.breakers(spec)["value_type"](data.draw, d)
    assert specs.first_broken(spec, [], d.attributes).id == "value_type"


@settings(max_examples=40, deadline=None, database=None)
@given(st.data())
def test_no_empty_list_attribute_is_drawn_for_an_onnx_node(data):
    """onnx.helper cannot type an empty list: every drawn case builds a model."""
    for sid in ("onnx::CenterCropPad-18", "onnx::Constant-13", "onnx::StringNormalizer-10"):
        spec = specs.load(sid)
        case = data.draw(strategies.cases(spec, kind="valid", profile="ci"))
        assert all(v != [] for v in case.attributes.values() if isinstance(v, list))
        assert "sparse_value" not in case.attributes  # declared (onnx.defs has it), never drawn
        onnx_model.build(spec, case)


# ------------------------------------------------------------------ oracles
def test_centercroppad_starts_the_window_rounded_down_and_pads_the_odd_one_after():
    spec = specs.load("onnx::CenterCropPad-18")
    x = np.arange(5, dtype=np.int64)
    assert oracle.evaluate(spec, [x, np.array([2], np.int64)])[0].tolist() == [1, 2]  # (5 - 2) // 2 = 1
    assert oracle.evaluate(spec, [x, np.array([8], np.int64)])[0].tolist() == [0, 0, 1, 2, 3, 4, 0, 0]  # 1 before, 2 after
    strings = oracle.evaluate(spec, [np.array([["a", "b"]], dtype=object), np.array([3], np.int32)], {"axes": [-1]})[0]
    assert strings.tolist() == [["a", "b", ""]]  # zero padding of a string tensor: the empty string


@pytest.mark.parametrize("name,value,dtype,shape", [
    ("value_float", 2.5, np.float32, ()), ("value_int", -7, np.int64, ()), ("value_string", "日本", object, ()),
    ("value_floats", [0.5, 1.0], np.float32, (2,)), ("value_ints", [3], np.int64, (1,)),
    ("value_strings", ["a", ""], object, (2,))])
def test_constant_value_attributes_give_their_typed_tensors(name, value, dtype, shape):
    y = oracle.evaluate(specs.load("onnx::Constant-13"), [], {name: value})[0]
    assert y.dtype == dtype and y.shape == shape
    assert y.reshape(-1).tolist() == (list(value) if isinstance(value, list) else [value])


def test_constant_needs_exactly_one_value_attribute():
    spec = specs.load("onnx::Constant-13")
    assert oracle.expectation(spec, [], {}).relation == "exactly_one_value"
    both = oracle.expectation(spec, [], {"value_int": 1, "value_float": 1.0})
    assert (both.kind, both.relation) == ("error", "exactly_one_value")
    assert oracle.expectation(specs.load("onnx::Constant-1"), [], {"value": np.array([1], np.int32)}).relation == "value_type"


def test_stringnormalizer_case_mapping_and_caseless_compare_are_open():
    spec = specs.load("onnx::StringNormalizer-10")
    exp = oracle.expectation(spec, [np.array(["straße", "Kelvin"], dtype=object)], {"case_change_action": "UPPER"})
    assert {tuple(a.outputs[0].tolist()) for a in exp.alternatives} == {("STRASSE", "KELVIN"), ("STRAßE", "KELVIN")}
    # the Kelvin sign uppercases to itself and lowercases to k: the stop word "k" matches it when
    # both sides are lowercased, not when both are uppercased
    kelvin = oracle.expectation(spec, [np.array(["\u212a", "x"], dtype=object)], {"stopwords": ["k"]})
    assert {tuple(a.outputs[0].tolist()) for a in kelvin.alternatives} == {("x",), ("\u212a", "x")}


def test_stringnormalizer_gives_one_empty_string_when_every_element_is_a_stop_word():
    spec = specs.load("onnx::StringNormalizer-10")
    y = oracle.evaluate(spec, [np.array([["A", "a"]], dtype=object)], {"stopwords": ["a"]})[0]
    assert y.shape == (1, 1) and y.tolist() == [[""]]
    kept = oracle.evaluate(spec, [np.array(["A", "a"], dtype=object)], {"stopwords": ["a"], "is_case_sensitive": 1})[0]
    assert kept.tolist() == ["A"]


# ------------------------------------------------------------------ Dropout: random outputs judged
def _training(x, ratio=0.5):
    return [x, np.array(ratio, np.float32), np.array(True)]


def _judge(inputs, outputs, sid="onnx::Dropout-13", policies=None):
    return oracle.judge(specs.load(sid), inputs, {}, policies, outputs)


def test_dropout_training_output_is_mask_times_data_over_one_minus_ratio():
    rng = np.random.default_rng(0)
    x = rng.uniform(1, 2, 4000).astype(np.float32)
    mask = rng.random(4000) < 0.75
    y = np.where(mask, x / np.float32(0.75), 0).astype(np.float32)
    assert _judge(_training(x, 0.25), {"output": y, "mask": mask}) == ""
    assert _judge(_training(x, 0.25), {"output": y}) == ""  # the mask read back from the output
    wrong = y.copy()
    wrong[mask.argmax()] = x[mask.argmax()]  # kept but not scaled
    assert "mask * data / (1 - ratio)" in _judge(_training(x, 0.25), {"output": wrong, "mask": mask})
    assert "mask * data / (1 - ratio)" in _judge(_training(x, 0.25), {"output": y, "mask": ~mask})


def test_dropout_kept_share_is_judged_by_a_two_sided_binomial_test():
    x = np.ones(4000, np.float32)
    half = np.arange(4000) % 2 == 0  # 2000 kept: what ratio 0.5 gives on average
    assert _judge(_training(x, 0.5), {"mask": half, "output": np.where(half, 2.0, 0.0).astype(np.float32)}) == ""
    # the same 2000 of 4000 under ratio 0.25 (3000 expected): far beyond a 1e-6 false alarm
    why = _judge(_training(x, 0.25), {"mask": half, "output": np.where(half, np.float32(1 / 0.75), 0).astype(np.float32)})
    assert "too few" in why and "binomial" in why
    every = np.ones(4000, bool)
    assert "too many" in _judge(_training(x, 0.5), {"mask": every, "output": np.full(4000, 2.0, np.float32)})


def test_dropout_binomial_false_alarm_rate_is_at_most_its_alpha():
    """Masks drawn with the stated keep probability: none of 2000 is rejected (at 1e-6 per case the
    chance that one is would be 0.2%)."""
    from opconform.oracle.onnx import dropout

    rng = np.random.default_rng(1)
    for n, p in ((10, 0.5), (100, 0.125), (1000, 0.875), (50, 0.3)):
        ks = rng.binomial(n, p, 500)
        assert all(dropout._binomial(int(k), n, p) == "" for k in ks)
    assert dropout._binomial(0, 60, 0.5) and dropout._binomial(60, 60, 0.5)  # 2**-60: rejected


def test_dropout_inference_is_a_copy_and_keeps_every_element():
    x = np.array([1.0, -0.0, np.nan, np.inf], np.float32)
    inference = [x, np.array(0.5, np.float32), np.array(False)]
    assert _judge(inference, {"output": x.copy(), "mask": np.ones(4, bool)}) == ""
    assert "every one kept" in _judge(inference, {"output": x.copy(), "mask": np.array([True, False, True, True])})
    assert _judge(inference, {"output": np.array([1.0, 0.0, np.nan, np.inf], np.float32)})  # -0.0 is copied
    # before version 12 the text says nothing of the mask of a copy (onnxruntime's is all false)
    assert _judge([x], {"output": x.copy(), "mask": np.zeros(4, bool)}, "onnx::Dropout-10", {"mode": "inference"}) == ""


def test_dropout_verdicts_judge_random_outputs_and_compare_their_shapes():
    from opconform.model import Case, Outcome, Verdict
    from opconform.suites import verdicts

    spec = specs.load("onnx::Dropout-13")
    x = np.ones((20, 20), np.float32)
    inputs = _training(x, 0.5)
    case = Case(spec.id, {}, tuple(inputs), (True, True), oracle.expectation(spec, inputs, {}))
    mask = np.arange(400).reshape(20, 20) % 2 == 0
    y = np.where(mask, 2.0, 0.0).astype(np.float32)
    assert verdicts.judge(spec, case, Outcome("ok", [y, mask]))[0] is Verdict.PASS
    assert verdicts.judge(spec, case, Outcome("ok", [y, ~mask]))[0] is Verdict.MISMATCH
    assert verdicts.judge(spec, case, Outcome("ok", [y.reshape(-1), mask]))[0] is Verdict.WRONG_SHAPE
    assert verdicts.judge(spec, case, Outcome("ok", [y.astype(np.float64), mask]))[0] is Verdict.WRONG_DTYPE


# ------------------------------------------------------------------ TfIdfVectorizer
def test_tfidfvectorizer_draws_without_a_hook_but_rejects_pools_of_no_ngram():
    """Not yet at 10%: a short pool split into many segments often holds no whole n-gram
    (pool_holds_an_ngram: an empty ngram_indexes cannot be written in a node), about 40% of the
    valid drafts; no other relation rejects."""
    for t in (0, 2):
        assert_drawn_without_a_hook("onnx::TfIdfVectorizer-9", t, cap=0.6)


def test_every_error_relation_of_tfidfvectorizer_gets_must_refuse_cases():
    spec = specs.load("onnx::TfIdfVectorizer-9")
    for relation in strategies.error_relations(spec):
        assert_must_refuse_drafts(spec, relation, tries=30, at_least=3)  # 40% of the valid drafts it starts from are rejected


@settings(max_examples=25, deadline=None, database=None)
@given(st.data())
def test_the_sorted_list_form_sorts_after_repair_and_its_breaker_swaps(data):
    spec = specs.load("onnx::TfIdfVectorizer-9")
    counts = data.draw(st.lists(st.integers(-3, 9), min_size=1, max_size=4))
    attrs = {"mode": "TF", "min_gram_length": 1, "max_gram_length": 2, "max_skip_count": 0, "ngram_counts": counts,
             "ngram_indexes": [0], "pool_int64s": [1, 2, 3, 4, 5, 6]}
    d = draft_of(spec, [np.array([1, 2], np.int64)], attrs)
    value_repair.repair(data.draw, d, value_repair.terms(spec))
    got = d.attributes["ngram_counts"]
    assert got == sorted(got) and all(0 <= c <= 6 for c in got)
    if specs.first_broken(spec, d.inputs, d.attributes) is None and len(set(got)) > 1:
        list_relations.breakers(spec, lambda env, name, strict: np.array([], np.int64))["ngram_counts_ascending"](data.draw, d)
        assert specs.first_broken(spec, d.inputs, d.attributes).id == "ngram_counts_ascending"


@settings(max_examples=15, deadline=None, database=None)
@given(st.data())
def test_a_floats_list_takes_its_length_from_another_list(data):
    """weights: one per ngram_indexes (the length form on a floats attribute draws floats)."""
    spec = specs.load("onnx::TfIdfVectorizer-9")
    attrs = {"mode": "TFIDF", "min_gram_length": 1, "max_gram_length": 1, "max_skip_count": 0, "ngram_counts": [0],
             "ngram_indexes": [0, 1, 2], "pool_int64s": [1, 2, 3], "weights": [0.5]}
    d = draft_of(spec, [np.array([1, 2], np.int64)], attrs)
    value_repair.repair(data.draw, d, value_repair.terms(spec))
    weights = d.attributes["weights"]
    assert len(weights) == 3 and all(isinstance(w, float) for w in weights) and weights[0] == 0.5


@settings(max_examples=15, deadline=None, database=None)
@given(st.data(), st.booleans())
def test_the_exactly_one_fix_picks_the_pool_that_fits_the_input_type(data, strings):
    spec = specs.load("onnx::TfIdfVectorizer-9")
    x = np.array(["a"], dtype=object) if strings else np.array([1], np.int32)
    d = draft_of(spec, [x], {"pool_strings": ["a"], "pool_int64s": [1]})
    solver.compile_plan(spec).apply(data.draw, d)
    assert [k for k in ("pool_strings", "pool_int64s") if k in d.attributes] == (["pool_strings"] if strings else ["pool_int64s"])


def _tfidf(x, **attrs):
    base = {"mode": "TF", "min_gram_length": 1, "max_gram_length": 1, "max_skip_count": 0}
    return oracle.expectation(specs.load("onnx::TfIdfVectorizer-9"), [x], {**base, **attrs})


def test_tfidfvectorizer_counts_skip_grams_for_every_distance_and_unigrams_once():
    x = np.array([1, 1, 1, 2], np.int64)
    exp = _tfidf(x, min_gram_length=1, max_gram_length=2, max_skip_count=1, ngram_counts=[0, 1],
                 ngram_indexes=[0, 1], pool_int64s=[1, 1, 1])
    # 1-gram [1]: 3 (not once per skip); 2-gram [1, 1]: distance 1 at 0 and 1, distance 2 at 0
    assert exp.alternatives[0].outputs[0].tolist() == [3.0, 3.0]


def test_tfidfvectorizer_duplicate_ngrams_and_weight_order_are_open():
    x = np.array(["a", "b", "a"], dtype=object)
    dup = _tfidf(x, ngram_counts=[0], ngram_indexes=[0, 1], pool_strings=["a", "a"])
    assert {tuple(a.outputs[0].tolist()) for a in dup.alternatives} == {(0.0, 2.0), (2.0, 2.0)}
    swapped = _tfidf(x, mode="TFIDF", ngram_counts=[0], ngram_indexes=[1, 0], pool_strings=["a", "b"], weights=[10.0, 100.0])
    # pool order: a (2 times, weight 10) at coordinate 1; output order: coordinate 1 weighs 100
    assert {tuple(a.outputs[0].tolist()) for a in swapped.alternatives} == {(100.0, 20.0), (10.0, 200.0)}


def test_dropout_scale_may_be_computed_in_the_ratio_type():
    """A float16 ratio of 0.625: 1 / (1 - ratio) is 2.6666666666666665 in float64, 2.666015625 in
    float16 (onnx.reference); a float64 data element kept is data times either, not a third value."""
    x = np.full(2000, 1e30, np.float64)
    ratio = np.array(0.625, np.float16)
    mask = np.arange(2000) % 8 < 3  # 750 kept of 2000: keep probability 0.375
    inputs = [x, ratio, np.array(True)]
    for policy, scale in (("wide", 1 / 0.375), ("ratio_type", float(np.float16(1) / (np.float16(1) - ratio)))):
        y = np.where(mask, x * scale, 0.0)
        assert _judge(inputs, {"output": y, "mask": mask}, policies={"scale_precision": policy}) == ""
        other = "wide" if policy == "ratio_type" else "ratio_type"
        assert _judge(inputs, {"output": y, "mask": mask}, policies={"scale_precision": other})
    third = np.where(mask, x * 2.7, 0.0)
    assert all(_judge(inputs, {"output": third, "mask": mask}, policies={"scale_precision": p}) for p in ("wide", "ratio_type"))
