"""Issue 14 (no false alarms): the open choices of the reduction / pooling / normalization / loss
family. For each policy a small input where its options give different outputs: each of them
passes, and an output neither allows still fails. Integer overflow is undefined (any answer passes)
only where some order of the arithmetic leaves the type's range."""
import ml_dtypes
import numpy as np
import pytest

from opconform import oracle, specs
from opconform.model import Case, Outcome, RelationBroken, Verdict
from opconform.suites.verdicts import judge

from helpers_oracle import F32_MAX, INF, NAN, expect, verdict  # noqa: F401


def outputs_by(spec_id, inputs, attributes, policy):
    """{option: first output} over the alternatives, keyed by the option of `policy`."""
    _, e = expect(spec_id, inputs, attributes)
    assert e.kind == "outputs"
    out = {}
    for alt in e.alternatives:
        out.setdefault(alt.policies[policy], alt.outputs[0])
    return out


def passes_as(spec_id, inputs, attributes, got, policy, option):
    v, matched = verdict(spec_id, inputs, attributes, got)
    assert v is Verdict.PASS, (spec_id, got)
    assert option in matched[policy].split("|"), matched


def fails(spec_id, inputs, attributes, got):
    v, _ = verdict(spec_id, inputs, attributes, got)
    assert v is Verdict.MISMATCH, (spec_id, got, v)


# ------------------------------------------------------------------ intermediate_precision
def test_reduce_sum_float32_overflow_in_the_input_type():
    x, axes = np.array([3e38, 3e38, -3e38], np.float32), np.array([0], np.int64)
    by = outputs_by("onnx::ReduceSum-13", [x, axes], {"keepdims": 0}, "intermediate_precision")
    assert by["wide"] == np.float32(3e38) and by["input_type"] == np.float32(INF)
    passes_as("onnx::ReduceSum-13", [x, axes], {"keepdims": 0}, np.array(3e38, np.float32), "intermediate_precision", "wide")
    passes_as("onnx::ReduceSum-13", [x, axes], {"keepdims": 0}, np.array(INF, np.float32), "intermediate_precision", "input_type")
    fails("onnx::ReduceSum-13", [x, axes], {"keepdims": 0}, np.array(NAN, np.float32))


def test_reduce_sum_float16_across_an_outer_axis():
    # NumPy (and so onnx.reference) adds float16 rows one after the other in float16 here
    x = np.array([[60000, 1], [60000, 1], [-60000, 1]], np.float16)
    by = outputs_by("onnx::ReduceSum-13", [x, np.array([0], np.int64)], {"keepdims": 0}, "intermediate_precision")
    assert by["wide"][0] == np.float16(60000) and np.isposinf(by["input_type"][0])


def test_lp_normalization_underflow_gives_the_zero_norm_output():
    x = np.array([1e-30, 1e-30], np.float32)  # the squares underflow in float32: norm 0, output 0
    by = outputs_by("onnx::LpNormalization-22", [x], {}, "intermediate_precision")
    np.testing.assert_allclose(by["wide"], [0.70710677, 0.70710677], rtol=1e-6)
    assert not by["input_type"].any()
    passes_as("onnx::LpNormalization-22", [x], {}, np.array([0.70710677] * 2, np.float32), "intermediate_precision", "wide")
    passes_as("onnx::LpNormalization-22", [x], {}, np.zeros(2, np.float32), "intermediate_precision", "input_type")
    fails("onnx::LpNormalization-22", [x], {}, np.ones(2, np.float32))


def test_lp_normalization_overflow_gives_zero():
    x = np.array([F32_MAX, F32_MAX], np.float32)  # squares overflow: norm inf, output 0
    by = outputs_by("onnx::LpNormalization-1", [x], {}, "intermediate_precision")
    np.testing.assert_allclose(by["wide"], [0.70710677] * 2, rtol=1e-6)
    passes_as("onnx::LpNormalization-1", [x], {}, np.zeros(2, np.float32), "intermediate_precision", "input_type")
    fails("onnx::LpNormalization-1", [x], {}, np.ones(2, np.float32))


def test_global_average_pool_sum_overflow():
    x = np.array([[[3e38, 3e38, 3e37]]], np.float32)  # one sign: inf in every order (mixed signs: see below)
    by = outputs_by("onnx::GlobalAveragePool-22", [x], {}, "intermediate_precision")
    assert by["wide"].item() == pytest.approx(2.1e38, rel=1e-6) and np.isposinf(by["input_type"].item())
    passes_as("onnx::GlobalAveragePool-22", [x], {}, np.array([[[2.1e38]]], np.float32), "intermediate_precision", "wide")
    passes_as("onnx::GlobalAveragePool-22", [x], {}, np.array([[[INF]]], np.float32), "intermediate_precision", "input_type")
    fails("onnx::GlobalAveragePool-22", [x], {}, np.array([[[NAN]]], np.float32))


def test_global_lp_pool_square_overflow():
    x = np.array([[[1e20, 1e20]]], np.float32)
    by = outputs_by("onnx::GlobalLpPool-22", [x], {}, "intermediate_precision")
    assert by["wide"].item() == pytest.approx(1.4142135e20, rel=1e-6) and np.isposinf(by["input_type"].item())
    passes_as("onnx::GlobalLpPool-22", [x], {}, np.array([[[INF]]], np.float32), "intermediate_precision", "input_type")
    fails("onnx::GlobalLpPool-22", [x], {}, np.array([[[NAN]]], np.float32))


def test_instance_normalization_precision_and_evaluation_order():
    # the variance overflows in float32 (InvStdDev 0): normalize-first gives B, the text's order
    # scale * (x - mean) / sqrt(var) is -inf / inf = NaN, float64 gives finite values
    x = np.array([[[-3.0, -F32_MAX, 0.0]]], np.float32)
    ins = [x, np.array([-3.3895316e38], np.float32), np.array([-3.0], np.float32)]
    _, e = expect("onnx::InstanceNormalization-6", ins)
    got = {(a.policies["intermediate_precision"], a.policies["evaluation_order"]): a.outputs[0] for a in e.alternatives}
    assert np.all(np.isfinite(got[("wide", "normalize_first")][..., [0, 2]]))
    passes_as("onnx::InstanceNormalization-6", ins, {}, np.full((1, 1, 3), -3.0, np.float32), "evaluation_order", "normalize_first")
    passes_as("onnx::InstanceNormalization-6", ins, {}, np.full((1, 1, 3), NAN, np.float32), "evaluation_order", "as_written")
    fails("onnx::InstanceNormalization-6", ins, {}, np.full((1, 1, 3), 5.0, np.float32))


def test_layer_normalization_stash_accumulation():
    x = np.array([3e38, 3e38, 3e38], np.float32)  # a float32 sum of three is inf: Mean inf, D NaN
    ins = [x, np.ones(3, np.float32)]
    by = outputs_by("onnx::LayerNormalization-17", ins, {}, "intermediate_precision")
    assert not by["wide"].any() and np.isnan(by["stash_type"]).all()
    passes_as("onnx::LayerNormalization-17", ins, {}, np.zeros(3, np.float32), "intermediate_precision", "wide")
    passes_as("onnx::LayerNormalization-17", ins, {}, np.full(3, NAN, np.float32), "intermediate_precision", "stash_type")
    fails("onnx::LayerNormalization-17", ins, {}, np.ones(3, np.float32))


@pytest.mark.parametrize("spec_id", ["onnx::LayerNormalization-17", "onnx::GroupNormalization-21"])
def test_normalization_variance_text_or_function_body(spec_id):
    # X * X overflows in float32 while the mean does not: the function body's
    # ReduceMean(X * X) - Mean * Mean is inf - inf = NaN, the text's mean of (X - Mean)^2 is 0
    if spec_id.startswith("onnx::Layer"):
        ins, attrs = [np.full(3, 2e19, np.float32), np.ones(3, np.float32)], {}
    else:
        ins, attrs = [np.full((1, 2, 2), 2e19, np.float32), np.ones(2, np.float32), np.zeros(2, np.float32)], {"num_groups": 1}
    shape = ins[0].shape
    by = outputs_by(spec_id, ins, attrs, "variance")
    assert not by["deviations"].any() and np.isnan(by["function_body"]).all()
    passes_as(spec_id, ins, attrs, np.zeros(shape, np.float32), "variance", "deviations")
    passes_as(spec_id, ins, attrs, np.full(shape, NAN, np.float32), "variance", "function_body")
    fails(spec_id, ins, attrs, np.ones(shape, np.float32))


def test_mean_variance_normalization_in_the_input_type():
    x = np.array([[[[1e20], [-1e20]]]], np.float32)  # squares overflow in float32: std inf, output 0
    by = outputs_by("onnx::MeanVarianceNormalization-13", [x], {}, "intermediate_precision")
    np.testing.assert_allclose(by["wide"].ravel(), [1, -1], rtol=1e-6)
    assert not by["input_type"].any()
    passes_as("onnx::MeanVarianceNormalization-13", [x], {}, np.zeros_like(x), "intermediate_precision", "input_type")
    fails("onnx::MeanVarianceNormalization-13", [x], {}, np.full_like(x, 2.0))


def test_negative_log_likelihood_sum_overflow():
    ins = [np.array([[-3e38, 0.0], [-3e38, 0.0]], np.float32), np.array([0, 0], np.int64)]
    by = outputs_by("onnx::NegativeLogLikelihoodLoss-22", ins, {}, "intermediate_precision")
    assert by["wide"].item() == pytest.approx(3e38, rel=1e-6) and np.isposinf(by["input_type"].item())
    passes_as("onnx::NegativeLogLikelihoodLoss-22", ins, {}, np.array(3e38, np.float32), "intermediate_precision", "wide")
    passes_as("onnx::NegativeLogLikelihoodLoss-22", ins, {}, np.array(INF, np.float32), "intermediate_precision", "input_type")
    fails("onnx::NegativeLogLikelihoodLoss-22", ins, {}, np.array(NAN, np.float32))


def test_log_softmax_float16_sum_in_the_input_type():
    x = np.array([[4.3046875, 7.86328125, -3.103515625, -0.35107421875, 2.9296875, -3.146484375, -6.64453125, 3.45703125,
                   -4.54296875, -6.49609375],
                  [3.201171875, -3.587890625, 6.25, -6.44140625, 4.65234375, -1.5400390625, -0.59375, -4.54296875,
                   4.88671875, -0.755859375]], np.float16).T.copy()  # along axis 0: float16 sums row by row
    attrs = {"axis": 0}
    by = outputs_by("onnx::LogSoftmax-13", [x], attrs, "intermediate_precision")
    wide, narrow = by["wide"], by["input_type"]
    assert np.max(np.abs(wide.astype(np.float32) - narrow.astype(np.float32))) > 1e-3  # beyond float16's atol
    passes_as("onnx::LogSoftmax-13", [x], attrs, wide, "intermediate_precision", "wide")
    passes_as("onnx::LogSoftmax-13", [x], attrs, narrow, "intermediate_precision", "input_type")
    fails("onnx::LogSoftmax-13", [x], attrs, (wide - np.float16(1)).astype(np.float16))


def test_softmax_has_both_precisions():
    x = np.array([2.384765625, -5.40625, -0.9150390625, 1.7080078125, 5.38671875, 10.8515625], ml_dtypes.bfloat16)
    by = outputs_by("onnx::Softmax-13", [x], {}, "intermediate_precision")
    assert set(by) == {"wide", "input_type"}
    for option, y in by.items():
        passes_as("onnx::Softmax-13", [x], {}, y, "intermediate_precision", option)
    fails("onnx::Softmax-13", [x], {}, np.full(6, 0.5, ml_dtypes.bfloat16))


def test_cumsum_running_sum_stays_infinite_in_the_input_type():
    ins = [np.array([3e38, 3e38, -3e38], np.float32), np.array(0, np.int32)]
    by = outputs_by("onnx::CumSum-14", ins, {}, "intermediate_precision")
    assert by["wide"][2] == np.float32(3e38) and np.isposinf(by["input_type"][2])
    passes_as("onnx::CumSum-14", ins, {}, np.array([3e38, INF, 3e38], np.float32), "intermediate_precision", "wide")
    passes_as("onnx::CumSum-14", ins, {}, np.array([3e38, INF, INF], np.float32), "intermediate_precision", "input_type")
    fails("onnx::CumSum-14", ins, {}, np.array([3e38, INF, NAN], np.float32))


# ------------------------------------------------------------------ zero total weight
@pytest.mark.parametrize("spec_id", ["onnx::NegativeLogLikelihoodLoss-13", "onnx::SoftmaxCrossEntropyLoss-13"])
def test_mean_over_zero_total_weight(spec_id):
    ins = [np.array([[1.0, 2.0], [3.0, 4.0]], np.float32), np.array([0, 1], np.int64), np.zeros(2, np.float32)]
    by = outputs_by(spec_id, ins, {}, "zero_total_weight")
    assert np.isnan(by["divide"]) and by["zero"] == 0
    passes_as(spec_id, ins, {}, np.array(NAN, np.float32), "zero_total_weight", "divide")
    passes_as(spec_id, ins, {}, np.array(-0.0, np.float32), "zero_total_weight", "zero")
    fails(spec_id, ins, {}, np.array(1.0, np.float32))


# ------------------------------------------------------------------ NaN in max-like reductions
def test_reduce_max_nan_per_output_element():
    x = np.array([[7, NAN, 1], [NAN, 1, 2], [1, 2, NAN]], np.float32)
    ins, attrs = [x, np.array([1], np.int64)], {"keepdims": 0}
    by = outputs_by("onnx::ReduceMax-18", ins, attrs, "nan_handling")
    np.testing.assert_array_equal(by["propagate"], [NAN, NAN, NAN])
    np.testing.assert_array_equal(by["ignore"], [7, 2, 2])
    np.testing.assert_array_equal(by["scan_forward"], [7, NAN, 2])  # a loop from the first element
    np.testing.assert_array_equal(by["scan_backward"], [7, 2, NAN])
    for option, y in by.items():
        passes_as("onnx::ReduceMax-18", ins, attrs, y, "nan_handling", option)
    fails("onnx::ReduceMax-18", ins, attrs, np.array([1, 2, 2], np.float32))  # 1 is below 7: no reading


def test_reduce_min_nan_scan():
    x = np.array([[NAN, 3, 1], [3, NAN, 1]], np.float32)
    ins, attrs = [x, np.array([1], np.int64)], {"keepdims": 0}
    passes_as("onnx::ReduceMin-18", ins, attrs, np.array([NAN, 1], np.float32), "nan_handling", "scan_forward")
    fails("onnx::ReduceMin-18", ins, attrs, np.array([3, 1], np.float32))


def test_global_max_pool_nan_per_channel():
    x = np.array([[[NAN, 3, 1]], [[3, NAN, 1]], [[7, 1, NAN]]], np.float32)  # N=3, C=1, one spatial axis
    passes_as("onnx::GlobalMaxPool-22", [x], {}, np.array([NAN, 3, 7], np.float32).reshape(3, 1, 1), "nan", "scan_forward")
    passes_as("onnx::GlobalMaxPool-22", [x], {}, np.array([3, 3, 7], np.float32).reshape(3, 1, 1), "nan", "ignored")
    # the maximum of the values after the last NaN (onnxruntime, openvino): 1 is below 7
    fails("onnx::GlobalMaxPool-22", [x], {}, np.array([3, 1, 1], np.float32).reshape(3, 1, 1))


def test_global_max_pool_known_shared_bug_covers_nan_cases():
    from opconform.specs import known_bugs
    spec = specs.load("onnx::GlobalMaxPool-22")
    x = np.array([[[7, -INF, NAN, 0, 1.0009765625, 0]]], np.float16)
    assert known_bugs.covering(spec, [x], {}, ["onnxruntime", "openvino"]).id == "nan_restarts_the_maximum"
    assert known_bugs.covering(spec, [np.ones((1, 1, 2), np.float16)], {}, ["onnxruntime", "openvino"]) is None


def test_reduce_log_sum_exp_nan_is_required():
    # log(sum(exp(x))) with a NaN term is NaN in any order and precision: inf stays a failure
    x, attrs = np.array([1, NAN, INF], np.float32), {"keepdims": 0}
    _, e = expect("onnx::ReduceLogSumExp-13", [x], attrs)
    assert all(np.isnan(a.outputs[0]) for a in e.alternatives)
    fails("onnx::ReduceLogSumExp-13", [x], attrs, np.array(INF, np.float32))


@pytest.mark.parametrize("spec_id,last", [("onnx::ArgMax-13", 0), ("onnx::ArgMax-13", 1), ("onnx::ArgMin-13", 0)])
def test_arg_reductions_nan(spec_id, last):
    big = 3.0 if spec_id.endswith("Max-13") else -3.0
    x = np.array([[NAN, big, 1], [1, NAN, big]], np.float32)
    attrs = {"axis": 1, "keepdims": 0, "select_last_index": last}
    by = outputs_by(spec_id, [x], attrs, "nan")
    np.testing.assert_array_equal(by["nan_selected"], [0, 1])
    np.testing.assert_array_equal(by["nan_passed_over"], [1, 2])
    np.testing.assert_array_equal(by["scan_forward"], [0, 2])  # NaN first is kept, a later one passed over
    for option, y in by.items():
        passes_as(spec_id, [x], attrs, y, "nan", option)
    fails(spec_id, [x], attrs, np.array([2, 0], np.int64))  # indices of values beaten by another


def test_arg_max_scan_backward_keeps_a_last_nan():
    x = np.array([[3, 1, NAN], [NAN, 1, 3]], np.float32)
    attrs = {"axis": 1, "keepdims": 0, "select_last_index": 1}
    by = outputs_by("onnx::ArgMax-13", [x], attrs, "nan")
    np.testing.assert_array_equal(by["scan_backward"], [2, 2])


def test_hardmax_nan_scan():
    x = np.array([[NAN, 3, 1], [1, NAN, 3]], np.float32)
    passes_as("onnx::Hardmax-13", [x], {}, np.array([[1, 0, 0], [0, 0, 1]], np.float32), "nan", "scan_forward")
    fails("onnx::Hardmax-13", [x], {}, np.array([[0, 0, 1], [1, 0, 0]], np.float32))


# ------------------------------------------------------------------ integer overflow: undefined
@pytest.mark.parametrize("spec_id,x", [
    ("onnx::ReduceSum-13", np.array([2**31 - 1, 1], np.int32)),
    ("onnx::ReduceSum-13", np.array([2**31 - 1, 1, -5], np.int32)),  # the sum fits, an order does not
    ("onnx::ReduceSumSquare-13", np.array([46341], np.int32)),
    ("onnx::ReduceL1-13", np.array([-2**31], np.int32)),
    ("onnx::ReduceProd-13", np.array([2**16, 2**15], np.int32)),
    ("onnx::ReduceSumSquare-18", np.array([2**32], np.int64)),
    ("onnx::ReduceSum-13", np.array([2**64 - 4, 4], np.uint64)),
])
def test_integer_overflow_is_undefined(spec_id, x):
    _, e = expect(spec_id, [x], {"keepdims": 0})
    assert e.kind == "undefined" and e.relation == "integer_overflow"
    v, _ = verdict(spec_id, [x], {"keepdims": 0}, np.array(12345, x.dtype))
    assert v is Verdict.PASS
    with pytest.raises(RelationBroken, match="integer_overflow"):
        oracle.evaluate(spec_id, [x], {"keepdims": 0})


@pytest.mark.parametrize("spec_id,x,want", [
    ("onnx::ReduceSum-13", np.array([2**31 - 1, -5], np.int32), 2**31 - 6),
    ("onnx::ReduceSum-13", np.array([2**62, 2**62 - 1], np.int64), 2**63 - 1),  # at the bound, exactly
    ("onnx::ReduceProd-13", np.array([-2**31, 1], np.int32), -2**31),
    ("onnx::ReduceSumSquare-13", np.array([46340], np.int32), 46340**2),
])
def test_integer_results_in_range_are_checked(spec_id, x, want):
    _, e = expect(spec_id, [x], {"keepdims": 0})
    assert e.kind == "outputs" and int(e.alternatives[0].outputs[0]) == want
    fails(spec_id, [x], {"keepdims": 0}, np.array(want + 1 if want < 0 else want - 1, x.dtype))


def test_cumsum_integer_overflow_is_undefined():
    _, e = expect("onnx::CumSum-14", [np.array([2**31 - 1, 1, -5], np.int32), np.array(0, np.int32)])
    assert e.kind == "undefined" and e.relation == "integer_overflow"
    _, e = expect("onnx::CumSum-14", [np.array([2**31 - 1, -1, 1], np.int32), np.array(0, np.int32)])
    assert e.kind == "outputs"


def test_layer_normalization_stage_two_in_float64_or_in_t():
    # Normalized [-0.707, -0.707, 1.414] * 65504 overflows float16 at the last element; + B (-65504)
    # brings it back into range when computed wide
    ins = [np.array([-1, -1, 2], np.float16), np.full(3, 65504, np.float16), np.full(3, -65504, np.float16)]
    by = outputs_by("onnx::LayerNormalization-17", ins, {}, "intermediate_precision")
    assert np.isfinite(by["wide"][2]) and np.isposinf(by["stash_type"][2])
    passes_as("onnx::LayerNormalization-17", ins, {}, by["wide"], "intermediate_precision", "wide")
    passes_as("onnx::LayerNormalization-17", ins, {}, by["stash_type"], "intermediate_precision", "stash_type")
    fails("onnx::LayerNormalization-17", ins, {}, np.zeros(3, np.float16))


def test_reduce_log_sum_exp_of_integers_in_their_own_type():
    # shifted by the maximum in int32, exp(x - max) is 1 at the two 8s and 0 elsewhere: 8 + trunc(log 2)
    x = np.array([8, 8] + [7] * 9, np.int32)
    by = outputs_by("onnx::ReduceLogSumExp-13", [x], {"keepdims": 0}, "intermediate_precision")
    assert int(by["wide"]) == 9 and int(by["input_type"]) == 8
    passes_as("onnx::ReduceLogSumExp-13", [x], {"keepdims": 0}, np.array(8, np.int32), "intermediate_precision", "input_type")
    fails("onnx::ReduceLogSumExp-13", [x], {"keepdims": 0}, np.array(7, np.int32))


def test_global_max_pool_minus_infinity_known_shared_bug():
    from opconform.specs import known_bugs
    x = np.full((1, 1, 2, 1), -INF, np.float32)
    fails("onnx::GlobalMaxPool-22", [x], {}, np.full((1, 1, 1, 1), -F32_MAX, np.float32))
    bug = known_bugs.covering(specs.load("onnx::GlobalMaxPool-22"), [x], {}, ["onnxruntime", "openvino"])
    assert bug.id == "minus_infinity_becomes_lowest"


def test_reduce_min_and_max_nan_running_value_known_shared_bug():
    # onnxruntime 1.32 and openvino 2026.4 on float32 [5, NaN, -1, -2] and its negation
    x = np.array([5, NAN, -1, -2], np.float32)
    fails("onnx::ReduceMin-18", [x], {"keepdims": 0}, np.float32(-1))  # -2 is below it: the min under no reading
    passes_as("onnx::ReduceMin-18", [x], {"keepdims": 0}, np.float32(-2), "nan_handling", "ignore")
    fails("onnx::ReduceMax-18", [-x], {"keepdims": 0}, np.float32(1))
    for sid, data in (("onnx::ReduceMin-20", x), ("onnx::ReduceMax-13", -x)):
        bug = known_bugs_covering(sid, [data], {"keepdims": 0})
        assert bug is not None and bug.id.startswith("nan_breaks_the_running_")
    assert known_bugs_covering("onnx::ReduceMin-18", [np.array([5, 1], np.float32)], {"keepdims": 0}) is None


def known_bugs_covering(sid, inputs, attributes):
    from opconform.specs import known_bugs
    return known_bugs.covering(specs.load(sid), inputs, attributes, ["onnxruntime", "openvino"])


def test_instance_normalization_float16_means_summed_wide():
    """float16 channels (onnxruntime and onnx.reference agree on both). Channel 0 [-3, -65504, -0,
    -0, -464, 0]: summed in float16 its mean is -inf (every output NaN), summed wider (NumPy's
    float16 mean) -10995, every squared deviation overflows, and with scale -0 and B inf every
    output is inf. Channel 1 [-0, 65504, ~0, ~0, 1, 1] with scale and B inf: in float64 the
    variance is finite and 65504's output inf; with float16 squares it is NaN. Only the means
    summed wide with every other step in float16 give both. (With a negative term in channel 1
    its float16 sum would pass the range in some orders only: float_sum_order, undefined.)"""
    x = np.array([[-3, -65504, -0.0, -0.0, -464, 0], [-0.0, 65504, 6.1e-5, 4.07e-5, 1, 1]], np.float16).reshape(1, 2, 6)
    scale, bias = np.array([-0.0, INF], np.float16), np.array([INF, INF], np.float16)
    got = np.array([[INF] * 6, [NAN] * 6], np.float16).reshape(1, 2, 6)
    passes_as("onnx::InstanceNormalization-22", [x, scale, bias], {}, got, "intermediate_precision", "accumulate_wide")


def test_float_sum_past_the_range_in_some_orders_only_is_undefined():
    """GlobalAveragePool over float32 [3e38, 3e38, -3e38, 1]: summed left to right it is inf, with
    the negative term first it is 3e38; the text fixes no order, so nothing is expected. Terms of
    one sign past the range are inf in every order: still checked."""
    from opconform import oracle, specs

    spec = specs.load("onnx::GlobalAveragePool-22")
    mixed = np.array([3e38, 3e38, -3e38, 1], dtype=np.float32).reshape(1, 1, 4)
    e = oracle.expectation(spec, [mixed], {})
    assert e.kind == "undefined" and e.relation == "float_sum_order"
    one_sign = np.array([3e38, 3e38, 1, 2], dtype=np.float32).reshape(1, 1, 4)
    assert oracle.expectation(spec, [one_sign], {}).kind == "outputs"
    small = np.array([1, -2, 3, 4], dtype=np.float32).reshape(1, 1, 4)
    assert oracle.expectation(spec, [small], {}).kind == "outputs"


@pytest.mark.parametrize("spec_id,extra,attributes", [("onnx::MatMul-13", [], {}), ("onnx::Gemm-13", [None], {})])
def test_matrix_products_whose_sum_overflows_by_order_are_undefined(spec_id, extra, attributes):
    """-max * -11.9 + max * -11.9: each product past float32's range, of opposite signs. In float64
    the sum is 0; in float32 inf - inf is NaN, and an FMA gives inf (what onnxruntime, OpenVINO and
    onnx.reference all return). The text fixes neither order nor fusion: undefined."""
    a = np.array([[-F32_MAX, F32_MAX], [1, 2]], np.float32)
    b = np.array([[-11.9, 1], [-11.9, 1]], np.float32)
    e = oracle.expectation(specs.load(spec_id), [a, b] + extra, attributes)
    assert (e.kind, e.relation) == ("undefined", "float_sum_order")
    fine = oracle.expectation(specs.load(spec_id), [np.ones((2, 2), np.float32), b] + extra, attributes)
    assert fine.kind == "outputs"
