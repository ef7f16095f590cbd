"""The relation solver: shape relations of the invertible forms become fixes, ordered so that an
input is set before the inputs read from it; the operators whose hooks it replaced draw valid
cases without rejections; its breakers break exactly their relation."""
from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from opconform import specs
from helpers_generator import assert_must_refuse_drafts, draft_of
from opconform.generator import hooks, sampling, solver, strategies


def _forms(sid: str) -> list[tuple[str, str, str]]:
    return [(f.relation, f.form, f.target) for f in solver.compile_plan(specs.load(sid)).fixes]


def test_forms_are_read_from_the_relations():
    assert _forms("onnx::InstanceNormalization-22") == [
        ("instance_not_empty", "nonempty", "input"), ("scale_per_channel", "shape", "scale"),
        ("bias_per_channel", "shape", "B")]
    assert ("depth_divisible", "multiple", "input") in _forms("onnx::DepthToSpace-13")
    assert ("square_matrices", "dim", "X") in _forms("onnx::Det-22")
    assert ("slope_unidirectional", "unidirectional", "slope") in _forms("onnx::PRelu-16")
    # MatMul's stacks: broadcastable(shape(A)[:-2], shape(B)[:-2]) fits B's leading dimensions only
    assert ("batch_broadcastable", "broadcast", "B") in _forms("onnx::MatMul-13")
    # three shapes: X fitted to condition, then Y to the broadcast of both
    assert _forms("onnx::Where-16") == [("broadcastable", "broadcast", "X"), ("broadcastable", "broadcast", "Y")]


def test_forms_of_the_matrix_normalization_and_gather_relations():
    # Gemm: K under transA (a dimension chosen by an attribute), C to the tuple (M, N), integral
    # alpha and beta for integer tensors (attribute fixes, first)
    assert _forms("onnx::Gemm-13") == [
        ("integer_scalars_integral", "integral", "alpha"), ("integer_scalars_integral", "integral", "beta"),
        ("inner_dimensions_match", "dim", "A"), ("c_unidirectional_broadcastable", "unidirectional", "C")]
    # LayerNormalization: broadcast_shape(shape(Scale), shape(X)) == shape(X) fits Scale; the
    # broadcastable(...) beside it is implied, so X is never fitted to Scale or B
    # (and stash_type in (1, ...): the attribute set to one of the listed values)
    assert _forms("onnx::LayerNormalization-17") == [
        ("stash_type_allowed", "one-of", "stash_type"), ("normalized_part_not_empty", "nonempty", "X"), ("scale_unidirectional_broadcastable", "unidirectional", "Scale"),
        ("bias_unidirectional_broadcastable", "unidirectional", "B")]
    # disjunctions: one of the zero point's shapes; indices no larger than data, under guards
    assert ("a_zero_point_shape", "any", "a_zero_point") in _forms("onnx::MatMulInteger-10")
    assert _forms("onnx::GatherElements-13") == [
        ("same_rank", "rank", "indices"), ("indices_shape_within_data", "any", "indices"),
        ("indices_in_bounds", "any", "indices")]


def test_symbols_are_substituted_and_fixes_ordered_by_what_they_read():
    # C % num_groups == 0 with C: shape(X)[1]; X is fixed before scale and bias read C
    fixes = solver.compile_plan(specs.load("onnx::GroupNormalization-21")).fixes
    order = [f.target for f in fixes]
    assert order.index("X") < order.index("scale") and order.index("X") < order.index("bias")
    assert ("groups_divide_channels", "multiple", "X") in [(f.relation, f.form, f.target) for f in fixes]


@settings(max_examples=25, deadline=None, database=None)
@given(st.data())
def test_apply_makes_the_shape_relations_hold(data):
    spec = specs.load("onnx::GroupNormalization-21")
    f32 = np.float32
    d = draft_of(spec, [np.zeros((2, 5, 0), f32), np.zeros((3,), f32), np.zeros((7,), f32)], {"num_groups": 2})
    solver.compile_plan(spec).apply(data.draw, d)
    x, scale, bias = d.inputs
    assert x.shape[1] % 2 == 0 and x.shape[1] >= 1 and x.shape[2] >= 1
    assert scale.shape == bias.shape == (x.shape[1],)
    assert specs.first_broken(spec, d.inputs, d.attributes) is None


def test_a_draft_that_holds_its_relations_is_left_alone():
    spec = specs.load("onnx::InstanceNormalization-22")
    arrays = [np.ones((1, 2, 3), np.float32), np.ones((2,), np.float32), np.ones((2,), np.float32)]
    d = draft_of(spec, arrays)
    solver.compile_plan(spec).apply(lambda s: pytest.fail("nothing to draw"), d)
    assert all(a is b for a, b in zip(d.inputs, arrays))


# hooks the solver, the list forms and the draw hints replaced: their operators now draw from the
# default steps alone (a version of each)
REPLACED = ["onnx::Clip-13", "onnx::InstanceNormalization-22", "onnx::GroupNormalization-21", "onnx::DepthToSpace-13",
            "onnx::SpaceToDepth-13", "onnx::Where-16", "onnx::MatMul-13", "onnx::MatMulInteger-10", "onnx::Gemm-13",
            "onnx::LayerNormalization-17", "onnx::GatherElements-13",
            "onnx::Transpose-25", "onnx::Unsqueeze-25", "onnx::Squeeze-25", "onnx::Expand-13",
            "onnx::Tile-13", "onnx::HannWindow-17", "onnx::HammingWindow-17", "onnx::BlackmanWindow-17", "onnx::OneHot-11",
            "onnx::ConstantOfShape-20", "onnx::Range-11", "onnx::Cast-21", "onnx::CastLike-21"]


@pytest.mark.parametrize("sid", REPLACED)
@pytest.mark.parametrize("t", [0, 2])
def test_replaced_hooks_are_gone_and_valid_draws_are_rarely_rejected(sid, t):
    """Issue 12 item 1: at most 10% of valid drafts rejected, each draft counted (not the cases
    of cases(kind="valid"), which try a rejected draft three times); free draws and the ci
    profile's pairwise rows."""
    spec = specs.load(sid)
    assert hooks.module_for(spec) is None
    log: list[str] = []
    rate = sampling.rejection_rate(spec, "ci", 60, t=t, log=log)
    assert rate <= 0.10, f"{rate:.0%} of valid draws rejected: {Counter(log).most_common(3)}"


# over 90% of free draws rejected when measured (30 drafts), by the relation named: an attribute's
# length tied to an input's dimension (the solver sizes inputs, not attribute lists), or a
# relation the solver has no form for; left for the generator, not hidden
STILL_FILTERED = {
    "onnx_ml::Scaler-1",  # offset_length, scale_matches_offset: len(offset) in (1, shape(X)[-1])
    "onnx_ml::Imputer-1",  # one_imputed_list, imputed_length
    "onnx_ml::LinearClassifier-1",  # coefficients_per_class, one_label_list
    "onnx_ml::ZipMap-1",  # one_label_list, columns_match_keys through a conditional symbol, x_two_dimensional
    "openvino::Einsum-7",  # term_per_operand (onnx::Einsum's equations come from its hook)
    "openvino::DeformableConvolution-8",  # dilations_not_negative: required ints drawn negative, not repaired
    "openvino::GatherElements-6",  # indices_in_range: [0, s-1] with no negative side
    "openvino::VariadicSplit-1",  # lengths_sum_to_dim (onnx::Split's sizes come from its hook)
}


def test_valid_draws_of_every_spec_without_a_hook_are_mostly_kept():
    """The same measure over every spec version the default steps draw alone, looser: none with
    nearly every draw rejected (Det's finite_input and MeanVarianceNormalization's axes stay
    filters today: 50 to 75% rejected), and few rejected on average."""
    rates = {s.id: sampling.rejection_rate(s, "ci", 30) for s in specs.select("*") if hooks.module_for(s) is None}
    worst = sorted(rates.items(), key=lambda kv: -kv[1])[:5]
    known = {sid: r for sid, r in rates.items() if sid in STILL_FILTERED}
    assert all(r < 1.0 for r in known.values()), known  # they draw valid cases, slowly
    assert max(r for sid, r in rates.items() if sid not in STILL_FILTERED) <= 0.9, worst
    assert sum(rates.values()) / len(rates) <= 0.10, worst


# the must-refuse cases the removed hooks' BREAK dicts drew, now from the generic breakers
BROKEN_BY_REMOVED_HOOKS = [
    ("onnx::MatMul-13", "inner_dimensions_match"), ("onnx::MatMul-13", "batch_broadcastable"),
    ("onnx::MatMulInteger-10", "inner_dimensions_match"), ("onnx::MatMulInteger-10", "batch_broadcastable"),
    ("onnx::MatMulInteger-10", "B_type"),
    ("onnx::Gemm-13", "inner_dimensions_match"), ("onnx::Gemm-13", "c_unidirectional_broadcastable"),
    ("onnx::LayerNormalization-17", "scale_unidirectional_broadcastable"),
    ("onnx::LayerNormalization-17", "bias_unidirectional_broadcastable"),
    ("onnx::GatherElements-13", "indices_in_bounds"), ("onnx::GatherElements-13", "same_rank"),
]


@pytest.mark.parametrize("sid,relation", BROKEN_BY_REMOVED_HOOKS)
def test_relations_the_removed_hooks_broke_still_get_must_refuse_cases(sid, relation):
    """Each draft counted (invalid_drafts, no retries): most tries give a case, and every case
    breaks its relation first."""
    spec = specs.load(sid)
    assert relation in strategies.error_relations(spec)
    assert_must_refuse_drafts(spec, relation, tries=20, at_least=10)


@pytest.mark.parametrize("sid,relation", [
    ("onnx::GroupNormalization-21", "groups_divide_channels"), ("onnx::GroupNormalization-21", "scale_per_channel"),
    ("onnx::InstanceNormalization-22", "bias_per_channel"), ("onnx::DepthToSpace-13", "depth_divisible"),
    ("onnx::SpaceToDepth-28", "spatial_divisible"), ("onnx::Where-16", "broadcastable"),
    ("onnx::Det-22", "square_matrices"), ("onnx::PRelu-16", "slope_unidirectional"),
])
def test_breakers_break_exactly_their_relation(sid, relation):
    spec = specs.load(sid)
    cases = sampling.generate(spec, len(strategies.error_relations(spec)), 0, kind="invalid")
    mine = [c for c in cases if c.label.split(";")[0] == f"breaks:{relation}"]
    assert mine, f"no must-refuse case breaks {relation}"
    for c in mine:
        failing = [s for s in specs.check_all(spec, list(c.inputs), dict(c.attributes)) if s.state == "broken"]
        assert failing[0].id == relation, [s.id for s in failing]


def test_must_refuse_cases_take_the_relations_in_turn():
    spec = specs.load("onnx::GroupNormalization-21")
    targets = strategies.error_relations(spec)
    cases = sampling.generate(spec, len(targets), 0, kind="invalid")
    broken = {c.label.split(";")[0][len("breaks:"):] for c in cases}
    assert len(broken) >= len(targets) - 1, set(targets) - broken  # a relation may fail its turns, not most


@settings(max_examples=25, deadline=None, database=None)
@given(st.data())
def test_a_prefix_fix_keeps_the_matrix_dimensions(data):
    spec = specs.load("onnx::MatMul-13")
    a, b = np.zeros((3, 2, 4), np.float32), np.zeros((5, 4, 6), np.float32)
    d = draft_of(spec, [a, b])
    solver.compile_plan(spec).apply(data.draw, d)
    assert d.inputs[1].shape[-2:] == (4, 6) and d.inputs[1].shape[0] in (3, 1)


@settings(max_examples=25, deadline=None, database=None)
@given(st.data())
def test_gemm_dimensions_follow_transA_and_transB_and_integer_alpha_becomes_integral(data):
    spec = specs.load("onnx::Gemm-13")
    i32 = np.int32
    # transA: A is (K, M) = (3, 4); B is (K, N) = (5, 2): K of A becomes 5; C fits (M, N) = (4, 2)
    d = draft_of(spec, [np.zeros((3, 4), i32), np.zeros((5, 2), i32), np.zeros((7, 7, 7), i32)],
                 {"transA": 1, "alpha": 1.5, "beta": -0.25})
    solver.compile_plan(spec).apply(data.draw, d)
    a, b, c = d.inputs
    assert a.shape == (5, 4) and b.shape == (5, 2)
    assert len(c.shape) <= 2 and all(n in (m, 1) for n, m in zip(c.shape[::-1], (2, 4)))
    # integral, and on the same side of the default (1.0) as drawn: a row may pin a non-default alpha
    assert d.attributes["alpha"] == 2.0 and d.attributes["beta"] in (-1.0, 0.0)
    assert specs.first_broken(spec, d.inputs, d.attributes) is None


@settings(max_examples=25, deadline=None, database=None)
@given(st.data())
def test_disjunctions_and_selected_dimensions(data):
    # MatMulInteger's zero point: one element, one per row of the 2-D A, or A[:-1] + (1,)
    spec = specs.load("onnx::MatMulInteger-10")
    u8 = np.uint8
    d = draft_of(spec, [np.zeros((2, 3), u8), np.zeros((3, 4), u8), np.zeros((4, 4), u8), None])
    solver.compile_plan(spec).apply(data.draw, d)
    assert d.inputs[2].shape in ((), (2,), (2, 1))
    # GatherElements: indices no larger than data off the axis (1), any extent along it
    spec = specs.load("onnx::GatherElements-13")
    d = draft_of(spec, [np.zeros((2, 3, 4), np.float32), np.zeros((5, 5, 5), np.int64)], {"axis": 1})
    solver.compile_plan(spec).apply(data.draw, d)
    idx = d.inputs[1].shape
    assert 1 <= idx[0] <= 2 and idx[1] == 5 and 1 <= idx[2] <= 4
    # an empty axis: no index is in bounds, so indices become empty
    d = draft_of(spec, [np.zeros((2, 0, 4), np.float32), np.zeros((2, 3, 4), np.int64)], {"axis": 1})
    solver.compile_plan(spec).apply(data.draw, d)
    assert d.inputs[1].size == 0 and specs.first_broken(spec, d.inputs, d.attributes) is None


@settings(max_examples=25, deadline=None, database=None)
@given(st.data())
def test_unidirectional_fits_the_smaller_input_and_leaves_x_alone(data):
    spec = specs.load("onnx::LayerNormalization-17")
    f32 = np.float32
    x = np.zeros((2, 0, 4), f32)
    d = draft_of(spec, [x, np.zeros((5, 6, 7, 8), f32), np.zeros((3,), f32)], {"axis": 1})
    solver.compile_plan(spec).apply(data.draw, d)
    assert d.inputs[0].shape == (2, 1, 4)  # the normalized part (axis 1 on) made non-empty, nothing else
    for y in d.inputs[1:]:
        assert len(y.shape) <= 3 and all(n in (m, 1) for n, m in zip(y.shape[::-1], (4, 1, 2)))
    assert specs.first_broken(spec, d.inputs, d.attributes) is None


@settings(max_examples=25, deadline=None, database=None)
@given(st.data())
def test_matmul_vectors_get_matching_inner_dimensions(data):
    spec = specs.load("onnx::MatMul-13")
    d = draft_of(spec, [np.zeros((3,), np.float32), np.zeros((2, 5, 4), np.float32)])
    solver.compile_plan(spec).apply(data.draw, d)
    assert d.inputs[0].shape == (5,) and d.inputs[1].shape == (2, 5, 4)


def test_every_hook_left_says_why_and_their_number_does_not_grow():
    """Hooks remain only where the spec language cannot say something (issue 12: 45 modules at
    the start, at most 12 the goal): each opens with its reason, and none is added unnoticed."""
    import ast
    from pathlib import Path

    root = Path(hooks.__file__).parent
    modules = [p for p in root.glob("*/*.py") if not p.name.startswith("_")]
    for p in modules:
        doc = ast.get_docstring(ast.parse(p.read_text()))
        assert doc and doc.strip(), f"{p.relative_to(root)} has no reason at its top"
    # the cap is issue 12's, over the onnx and openvino dialects; ai.onnx.ml's hooks draw what no
    # relation can say (consistent trees, categories and LabelEncoder's keys taken from X's values:
    # with the generic draws 93% (version 2) and 100% (version 4) of valid drafts were rejected and
    # few keys met X) and are named here,
    # so a new one still fails this test until it is reviewed
    # OpenVINO's detection operations draw geometry no relation can say (anchors and priors that are
    # boxes inside the image, scores kept distinct, shapes tied through K = ratios x scales); Constant-1
    # draws its content before the IR attributes that describe it (size is its byte count): reviewed,
    # named here, outside the cap
    geometry = {"detectionoutput", "experimentaldetectrongenerateproposalssingleimage",
                "experimentaldetectronroifeatureextractor", "generateproposals", "priorbox", "proposal", "constant"}
    standard = [p for p in modules if p.parent.name != "onnx_ml"
                and not (p.parent.name == "openvino" and p.stem in geometry)]
    assert len(standard) <= 12, sorted(str(p.relative_to(root)) for p in standard)
    ml = {p.stem for p in modules if p.parent.name == "onnx_ml"}
    assert ml <= {"treeensemble", "treeensembleclassifier", "treeensembleregressor", "onehotencoder",
                  "categorymapper", "featurevectorizer", "labelencoder"}, sorted(ml)
    for alias, target in hooks.SHARED.items():  # shared hooks exist
        assert (root / (target.replace(".", "/") + ".py")).exists(), alias


@settings(max_examples=25, deadline=None, database=None)
@given(st.data())
def test_a_disjunction_breaker_leaves_every_disjunct_broken(data):
    """QuantizeLinear-21's scale: 0-D or [1] (per tensor), the axis' length (per axis) or the
    blocked shape. Its breaker moves the scale off one disjunct and keeps the shape only where no
    other holds either (a scalar made a vector of another length than the axis)."""
    spec = specs.load("onnx::QuantizeLinear-21")
    f32 = np.float32
    fix = next(f for f in solver.compile_plan(spec).fixes if f.relation == "scale_shape")
    assert fix.form == "any" and fix.breaks is not None
    scale = data.draw(st.sampled_from([np.ones((), f32), np.ones((3,), f32)]))
    d = draft_of(spec, [np.zeros((2, 3, 4), f32), scale, None], {"axis": 1})
    assert specs.first_broken(spec, d.inputs, d.attributes) is None
    solver.breakers(spec)["scale_shape"](data.draw, d)
    states = {s.id: s.state for s in specs.check_all(spec, d.inputs, d.attributes)}
    assert states["scale_shape"] == "broken", d.inputs[1].shape


@pytest.mark.parametrize("sid,relation", [
    ("onnx::QuantizeLinear-21", "scale_shape"), ("onnx::DequantizeLinear-24", "zero_point_shape"),
    ("onnx::QLinearMatMul-10", "a_scale_shape"), ("onnx::QLinearMatMul-21", "b_zero_point_shape"),
])
def test_disjunctions_get_must_refuse_cases(sid, relation):
    assert_must_refuse_drafts(specs.load(sid), relation, tries=20, at_least=10)


def test_an_axis_pinned_negative_or_non_negative_draws_its_input_with_an_axis():
    """A row pinning axis to a class counted against rank(x) gets an x of rank >= 1 (a 0-D x has
    no axis: the pin could not be held and the draft was rejected)."""
    from opconform.generator.factors import NEGATIVE, NON_NEGATIVE

    spec = specs.load("onnx::DequantizeLinear-21")
    valid = strategies.drafts(spec, "ci", row={"attr:axis": NEGATIVE})
    drafts = [sampling.draw_one(valid, f"axis-pin:{k}") for k in range(20)]
    assert all(d is not None and d.inputs[0].ndim >= 1 and d.attributes["axis"] < 0 for d in drafts)
    valid = strategies.drafts(spec, "ci", row={"attr:axis": NON_NEGATIVE})
    assert all((d := sampling.draw_one(valid, f"axis-pin+:{k}")) is not None and d.inputs[0].ndim >= 1
               for k in range(20))
