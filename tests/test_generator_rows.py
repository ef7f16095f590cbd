"""Covering rows drive the valid cases: every row's pins are held by the case drawn for it (generic
steps and hooks alike), a row a hook cannot hold is reported, never counted; the ci plan
exercises every pair of factor values of a spec version; rows and cases are the same in any
process; shrinking a pinned strategy keeps the pins."""
from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import HealthCheck, find, settings

from opconform import oracle, specs
from opconform.generator import exercised as ex
from opconform.generator import probe_rows, sampling, strategies
from opconform.generator.factors import NEGATIVE, NON_DEFAULT, NON_NEGATIVE, OMITTED, factors
from opconform.generator.tuple_coverage import tuple_coverage
from opconform.suites import plan, profiles

# spec versions the ci plan must cover pairwise, with the rows proven not drawable (none today)
FULLY_COVERED = {
    "onnx::Unique-11": set(),
    "onnx::Cast-21": set(),
    "onnx::LayerNormalization-17": set(),
    "onnx::Split-18": set(),
    "onnx::ReverseSequence-10": set(),  # with its axes_differ constraint
    "onnx::Gather-13": set(),  # an axis attribute: negative / non-negative / omitted
    "onnx::Pad-23": set(),  # Tind, the type of optional `axes`: seen only in rows that give axes
    "openvino::Unique-10": set(),  # the same for the type of optional `axis`
    "onnx::Split-13": set(),  # `split` left out: one output
}


@pytest.mark.parametrize("sid", sorted(FULLY_COVERED))
def test_ci_plan_exercises_every_pair(sid):
    spec = specs.load(sid)
    sc = plan.cases_for(sid, "ci", 11)
    assert sc.error is None, sc.error
    assert {i for i, _ in sc.infeasible} == FULLY_COVERED[sid], sc.infeasible
    valid = [c for c in sc.cases if c.expected.kind != "error" and not c.label.startswith("breaks:")]
    cov = tuple_coverage(spec, valid, 2)
    assert cov.total > 0 and cov.exercised == cov.total, cov.missing[:10]
    assert sc.coverage == [cov.summary()]
    # the rows start from the probe rows (ci probes), then cover what those leave
    seeds = probe_rows.seeds(spec, probe_rows.draw(spec, oracle.expectation), ())
    assert sc.rows == len(sampling.spec_rows(spec, 2, 11, given=[row for row, _ in seeds]))


def test_every_case_holds_its_row():
    spec = specs.load("onnx::Unique-11")
    fs = factors(spec)
    rows = sampling.spec_rows(spec, 2, 3)
    drawn = sampling.generate_rows(spec, rows, 3, profile="ci", expect=oracle.expectation)
    assert not drawn.infeasible and len(drawn.cases) == len(rows)
    for i, case in drawn.cases:
        got = ex.exercised(spec, fs, case)
        assert ex.mismatches(spec, rows[i], got) == [], (rows[i], got)
        assert case.expected.kind == "outputs"


def test_classes_become_concrete_values():
    spec = specs.load("onnx::LayerNormalization-17")
    row = {"attr:axis": NEGATIVE, "attr:epsilon": NON_DEFAULT, "attr:stash_type": OMITTED, "input:B": False,
           "outputs": (True, False, False)}
    drawn = sampling.generate_rows(spec, [row], 0, profile="ci", expect=oracle.expectation)
    (_, case), = drawn.cases
    rank = case.inputs[0].ndim
    assert -rank <= case.attributes["axis"] < 0
    assert case.attributes["epsilon"] != spec.attribute("epsilon").default
    assert "stash_type" not in case.attributes and case.inputs[2] is None
    assert case.outputs_requested == (True, False, False)


def test_a_pin_a_hook_overrides_is_reported_not_counted():
    """ScatterElements' hook drops a reduction on strings (the text defines none): a row asking
    both is not drawn, and says which pin was not held."""
    spec = specs.load("onnx::ScatterElements-18")
    drawn = sampling.generate_rows(spec, [{"type:T": "string", "attr:reduction": "add"}], 0, profile="ci",
                                   expect=oracle.expectation, attempts=5)
    assert drawn.cases == [] and drawn.tries == 5
    (i, why), = drawn.infeasible
    assert i == 0 and "attr:reduction: asked 'add'" in why


def test_a_row_the_relations_forbid_is_reported_with_the_relation():
    """ReverseSequence's batch_axis and time_axis must differ: a row asking both 0 is not drawn."""
    spec = specs.load("onnx::ReverseSequence-10")
    drawn = sampling.generate_rows(spec, [{"attr:batch_axis": 0, "attr:time_axis": 0}], 0, profile="ci",
                                   expect=oracle.expectation, attempts=5)
    assert drawn.cases == [] and drawn.infeasible == [(0, "relation axes_differ does not hold")]


def test_split_13_leaves_split_out_when_the_row_asks():
    """Without `split` Split-13 makes as many equal parts as the node has outputs; a case states no
    count, so its model has one output and the one part is the whole input."""
    spec = specs.load("onnx::Split-13")
    drawn = sampling.generate_rows(spec, [{"input:split": False}], 0, profile="ci", expect=oracle.expectation)
    (_, case), = drawn.cases
    assert case.inputs[1] is None and case.expected.kind == "outputs"
    (out,), = [a.outputs for a in case.expected.alternatives]
    assert np.array_equal(out, case.inputs[0])


def test_attribute_classes_are_read_from_the_value():
    a = specs.load("onnx::Gather-13").attribute("axis")
    values = (NEGATIVE, NON_NEGATIVE, OMITTED)
    assert ex._MISSING is not None
    assert ex.attribute_class(a, values, -2) is NEGATIVE
    assert ex.attribute_class(a, values, 0) is NON_NEGATIVE
    assert ex.attribute_class(a, values, ex._MISSING) is OMITTED
    sorted_ = specs.load("onnx::Unique-11").attribute("sorted")
    assert ex.attribute_class(sorted_, (0, 1, OMITTED), 1) == 1
    assert ex.attribute_class(sorted_, (0, 1, OMITTED), 5) is None


def test_profiles_trade_variants_for_rows():
    ci = profiles.get("ci")
    assert ci.t == 2 and profiles.get("certify").t == 3 and profiles.get("ci-norows").t == 0
    assert ci.variants_per_case(ci.valid) == ci.variants
    budget = ci.valid * (1 + ci.variants)
    for n in (11, 40, 120, 400):
        v = ci.variants_per_case(n)
        assert 0 <= v <= ci.variants and (v == 0 or n * (1 + v) <= budget)


def test_shrinking_keeps_the_row():
    spec = specs.load("onnx::Unique-11")
    row = {"type:T": "int32", "attr:axis": NEGATIVE, "attr:sorted": 0, "outputs": (True, False, False, True)}
    strategy = strategies.cases(spec, kind="valid", profile="smoke", row=row)
    small = find(strategy, lambda c: c.inputs[0].size >= 2,
                 settings=settings(database=None, derandomize=True, max_examples=300,
                                   suppress_health_check=list(HealthCheck)))
    assert ex.mismatches(spec, row, ex.exercised(spec, factors(spec), small)) == []
    assert small.inputs[0].size == 2  # shrunk all the same


_SCRIPT = """
import json, sys
from opconform import oracle, specs
from opconform.generator import sampling
out = {}
for sid in sys.argv[1:]:
    spec = specs.load(sid)
    rows = sampling.spec_rows(spec, 2, 5)
    drawn = sampling.generate_rows(spec, rows, 5, profile="ci", expect=oracle.expectation)
    out[sid] = [[i, c.id] for i, c in drawn.cases]
print(json.dumps(out))
"""


def test_rows_and_cases_are_the_same_in_another_process():
    sids = ["onnx::Unique-11", "onnx::Split-18"]
    fresh = json.loads(subprocess.run([sys.executable, "-c", _SCRIPT, *sids], capture_output=True, text=True,
                                      check=True).stdout)
    for sid in sids:
        spec = specs.load(sid)
        drawn = sampling.generate_rows(spec, sampling.spec_rows(spec, 2, 5), 5, profile="ci", expect=oracle.expectation)
        assert [[i, c.id] for i, c in drawn.cases] == fresh[sid]


def test_rows_sharing_a_dead_end_are_given_up_early():
    """ReverseSequence's batch_axis and time_axis must differ, so every row asking both 0 is
    infeasible. The first such row spends all its tries; the others stop after a few once their
    tries fail the same way. Every one is still reported, and no drawable row is lost."""
    spec = specs.load("onnx::ReverseSequence-10")
    types = next(f for f in factors(spec) if f.name == "type:T").values[:6]
    stuck = [{"type:T": t, "attr:batch_axis": 0, "attr:time_axis": 0} for t in types]
    fine = [{"type:T": t, "attr:batch_axis": 1, "attr:time_axis": 0} for t in types]
    rows = [r for pair in zip(stuck, fine) for r in pair]
    drawn = sampling.generate_rows(spec, rows, 11, profile="ci", expect=oracle.expectation)
    assert {i for i, _ in drawn.infeasible} == set(range(0, len(rows), 2))
    assert all("axes_differ" in why for _, why in drawn.infeasible)
    assert {i for i, _ in drawn.cases} == set(range(1, len(rows), 2))
    full = sampling._ATTEMPTS_PER_ROW
    assert drawn.tries < full + (len(stuck) - 1) * (sampling._TRIES_ON_A_KNOWN_DEAD_END + 1) + 3 * len(fine)


@pytest.mark.parametrize("sid", ["onnx::Cast-21", "onnx::Pad-23"])
def test_plan_coverage_from_the_plans_own_rows_equals_a_fresh_count(sid):
    """The plan counts coverage against its own covering rows (they hold every allowed tuple)
    instead of building a second array: the same totals, pairs and triples."""
    spec = specs.load(sid)
    sc = plan.cases_for(sid, "ci", 11)
    for t in (2, 3):
        rows = sampling.spec_rows(spec, t, 11)
        assert plan.exercised_coverage(spec, sc.cases, t, (), rows) == plan.exercised_coverage(spec, sc.cases, t)
