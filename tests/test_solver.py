"""The relation solver: shape relations of the invertible forms become fixes, ordered so that an
input is set before the inputs read from it; the operators whose hooks it replaced draw valid
cases without rejections; its breakers break exactly their relation."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from opconform import specs
from helpers_generator import draft_of
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


# hooks the solver replaced: their operators now draw from the default steps alone
REPLACED = ["onnx::Clip-13", "onnx::InstanceNormalization-22", "onnx::GroupNormalization-21", "onnx::DepthToSpace-13",
            "onnx::SpaceToDepth-13", "onnx::Where-16"]


@pytest.mark.parametrize("sid", REPLACED)
def test_replaced_hooks_are_gone_and_valid_draws_are_rarely_rejected(sid):
    spec = specs.load(sid)
    assert hooks.module_for(spec) is None
    strategy = strategies.cases(spec, kind="valid", profile="ci")
    got = [sampling.draw_one(strategy, f"solver:{sid}:{k}") for k in range(40)]
    assert sum(c is None for c in got) <= 4, "more than 10% of valid draws rejected"


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
    assert len(modules) <= 27, sorted(str(p.relative_to(root)) for p in modules)
    for alias, target in hooks.SHARED.items():  # shared hooks exist
        assert (root / (target.replace(".", "/") + ".py")).exists(), alias
