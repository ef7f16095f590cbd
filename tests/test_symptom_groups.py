"""Failure groups by symptom (reports/groups.py, suites/symptom.py): the runner records each failure's
symptom key, results group by it (older results get it computed from what they hold), type refusals
group across spec versions after the rest, harness errors apart, and summary.json lists the groups."""
import dataclasses

import numpy as np
import pytest

from opconform import backends, oracle, specs
from opconform.model import Case, Outcome, Result, Verdict
from opconform.reports import groups
from opconform.reports.resultset import ResultSet
from opconform.reports.summary import summary
from opconform.suites import record, shrink

GATHER, GATHER_12 = "onnx::GatherND-13", "onnx::GatherND-12"
INDICES = np.array([[0], [1]], np.int64)


def _case(spec_id: str, data: np.ndarray, indices: np.ndarray = INDICES) -> Case:
    spec = specs.load(spec_id)
    return Case(spec_id, {}, (data, indices), (True,), oracle.expectation(spec, (data, indices), {}))


def _result(case: Case, outcome: Outcome, backend: str = "alpha") -> Result:
    spec = specs.load(case.spec_id)
    return Result.from_json(record.make(spec, case, outcome, backend))


def _swapped(case: Case) -> Outcome:
    """The right rows in the wrong order."""
    return Outcome("ok", [case.expected.alternatives[0].outputs[0][::-1].copy()])


def _with_nan(case: Case) -> Outcome:
    out = case.expected.alternatives[0].outputs[0].copy()
    out[0, 0] = np.nan
    return Outcome("ok", [out])


def _results() -> list[Result]:
    f = np.array([[1, 2], [3, 4]], np.float32)
    type_refusal = "TypeError: Issues with types [<class 'numpy.ndarray'>] and attributes [] (operator 'GatherND')."
    return [
        _result(_case(GATHER, f), _swapped(_case(GATHER, f))),
        _result(_case(GATHER, f + 10), _swapped(_case(GATHER, f + 10))),
        _result(_case(GATHER, f + 20), _with_nan(_case(GATHER, f + 20))),
        _result(_case(GATHER, f + 30), Outcome("ok", [np.zeros((3, 2), np.float32)])),
        _result(_case(GATHER, f.astype(np.float16)), Outcome("error", message=type_refusal)),
        _result(_case(GATHER_12, f.astype(np.float16) + 1), Outcome("error", message=type_refusal)),
        _result(_case(GATHER, f + 40), Outcome("ok", [np.zeros((2, 2), np.float32)])),
        _result(_case(GATHER, f + 50), Outcome("ok", [np.array([[51, 52], [53, 54]], np.float32)])),  # a pass
    ]


def test_the_runner_records_what_each_failure_looks_like():
    keys = [r.extra.get("symptom") for r in _results()]
    assert keys[0] == keys[1] == "output: order | type:T=float"
    assert keys[2].startswith("output: nan | ") and keys[3].startswith("output: count-more | ")
    assert keys[4] == keys[5] == "refused-type | types=float16"
    assert keys[6].startswith("output: zeros | ") and keys[7] is None  # a pass has no symptom


def test_the_key_row_holds_types_and_modes_not_numeric_classes_or_outputs_asked():
    """One bug must not become a group per case: Unique's axis class and the outputs asked stay out
    of the key (they split OpenVINO's one wrong-shape bug into 49 groups), its `sorted` mode stays in."""
    from opconform import specs
    from opconform.generator import spec_factors
    from opconform.suites import symptom

    spec = specs.load("onnx::Unique-11")
    keyed = {f.name for f in spec_factors(spec) if symptom._keyed(spec, f)}
    assert {"type:T", "attr:sorted"} <= keyed
    assert not keyed & {"attr:axis", "outputs"}


@pytest.mark.parametrize("name, cls", [("float16", "float"), ("bfloat16", "float"), ("float64", "float"),
                                       ("float8e4m3fn", "float-narrow"), ("float4e2m1", "float-narrow"),
                                       ("int4", "int"), ("int64", "int"), ("uint64", "uint"), ("bool", "bool"),
                                       ("string", "string"), ("complex64", "complex"), ("other", "other")])
def test_a_key_names_the_class_of_an_element_type(name, cls):
    from opconform.suites import symptom

    assert symptom._type_class(name) == cls


def test_a_must_refuse_case_is_keyed_by_its_broken_relation_alone():
    """Its element types are the breaker's draw: a key per type would split one missing check into
    groups the shrinker cannot reproduce (it draws its own breaks)."""
    from opconform import oracle, specs
    from opconform.generator import generate
    from opconform.suites import symptom

    spec = specs.load(GATHER)
    cases = [c for c in generate(spec, 6, 3, kind="invalid", expect=oracle.expectation)]
    keys = {symptom.of_case(spec, c, Outcome("ok", [np.zeros(1, np.float32)]), Verdict.ACCEPTED_INVALID) for c in cases}
    assert keys == {f"accepted-invalid | relation {c.expected.relation}" for c in cases}


def test_failures_group_by_symptom_type_refusals_last_across_spec_versions():
    rs = ResultSet([], _results())
    found = groups.failure_groups(rs)
    assert [(g.spec_id, g.symptom.split(" | ")[0], g.count) for g in found] == [
        (GATHER, "output: order", 2),
        (GATHER, "output: nan", 1),
        (GATHER, "output: zeros", 1),
        (GATHER, "output: count-more", 1),
        ("*", "refused-type", 2),
    ]
    refusal = found[-1]
    assert refusal.section == "type-refusal" and refusal.spec_ids == [GATHER_12, GATHER]
    assert found[0].description == "output: the right elements in the wrong order"


def test_results_recorded_without_a_symptom_get_the_same_groups():
    """Older results files hold no extra["symptom"]: the key comes from the case and outputs they hold."""
    recorded = _results()
    stripped = [dataclasses.replace(r, extra={k: v for k, v in r.extra.items() if k != "symptom"}) for r in recorded]
    assert all("symptom" not in r.extra for r in stripped)
    assert [groups.symptom_of(r) for r in stripped if r.verdict.is_failure] == \
        [r.extra["symptom"] for r in recorded if r.verdict.is_failure]


def test_harness_errors_are_a_group_of_their_own_not_the_backends():
    f = np.array([[1, 2], [3, 4]], np.float32)
    case = _case(GATHER, f)
    harness = Result.from_json(record.harness_error(specs.load(GATHER), case, "alpha", "KeyError: 'x' in opconform"))
    found = groups.failure_groups(ResultSet([], [*_results(), harness]))
    assert [g.section for g in found] == ["backend"] * 4 + ["harness", "type-refusal"]
    assert found[4].verdict == "harness-error" and found[4].count == 1
    assert not any(g.spec_id == GATHER and g.verdict == "harness-error" for g in shrink.groups([harness]))


def test_summary_lists_every_group_with_its_example():
    rs = ResultSet([], _results())
    listed = summary(rs)["groups"]
    assert [(g["backend"], g["spec_id"], g["verdict"], g["count"]) for g in listed] == [
        ("alpha", GATHER, "mismatch", 2), ("alpha", GATHER, "mismatch", 1), ("alpha", GATHER, "mismatch", 1),
        ("alpha", GATHER, "wrong-shape", 1), ("alpha", "*", "error", 2)]
    by_id = {r.case_id: r for r in rs.results}
    for g in listed:
        example = by_id[g["case_id"]]
        assert groups.symptom_of(example) == g["symptom"] and example.verdict.value == g["verdict"]
        assert g["shrunk"] is False


def test_the_shrinker_groups_alike():
    found = shrink.groups(_results())
    assert sorted(len(g.failing) for g in found) == [1, 1, 1, 2, 2]
    refusal = next(g for g in found if g.spec_id == shrink.ANY_SPEC)
    assert refusal.search_spec_id in (GATHER, GATHER_12) and refusal.symptom == "refused-type | types=float16"


@pytest.mark.backend
def test_two_symptoms_on_a_real_backend_land_in_two_groups():
    """onnxruntime runs four GatherND cases for real; two expect the rows in the other order and two
    expect a NaN the right answer lacks (expectations changed by hand, so that the two symptoms do not
    depend on a bug of the installed version). Recorded, they form two groups of two."""
    pytest.importorskip("onnxruntime")
    backend = backends.get("onnxruntime")
    spec = specs.load(GATHER)
    results = []
    for k, tamper in enumerate([_swapped, _swapped, _with_nan, _with_nan]):
        case = _case(GATHER, np.arange(4, dtype=np.float32).reshape(2, 2) + 10 * k)
        wrong = tamper(case).outputs[0]
        case = dataclasses.replace(case, expected=dataclasses.replace(
            case.expected, alternatives=(dataclasses.replace(case.expected.alternatives[0], outputs=(wrong,)),)))
        outcome = backend.execute(spec, case)
        assert outcome.status == "ok", outcome.message
        results.append(Result.from_json(record.make(spec, case, outcome, "onnxruntime")))
    assert all(r.verdict is Verdict.MISMATCH for r in results)
    found = groups.failure_groups(ResultSet([], results))
    assert [(g.symptom.split(" | ")[0], g.count) for g in found] == [("output: nan", 2), ("output: order", 2)] or \
        [(g.symptom.split(" | ")[0], g.count) for g in found] == [("output: order", 2), ("output: nan", 2)]


def test_spec_factors_are_kept_per_spec_content_not_per_id(tmp_path, monkeypatch):
    """The factors a failure's row is read from are cached on disk (suites/case_cache.spec_factors):
    an altered copy of a spec version, which keeps its id, gets its own factors, not the original's."""
    from opconform.generator import spec_factors
    from opconform.suites import case_cache

    monkeypatch.setenv("OPCONFORM_CACHE", str(tmp_path))
    spec = specs.load("onnx::Unique-11")
    assert case_cache.spec_factors(spec) == spec_factors(spec)
    assert case_cache.spec_factors(spec) == spec_factors(spec)  # read back from the file
    assert len(list((tmp_path / "factors").rglob("*.pkl"))) == 1
    sorted_attr = spec.attribute("sorted")
    altered = dataclasses.replace(spec, attributes=tuple(a for a in spec.attributes if a is not sorted_attr))
    assert [f.name for f in case_cache.spec_factors(altered)] == [f.name for f in spec_factors(altered)]
    assert "attr:sorted" in [f.name for f in case_cache.spec_factors(spec)]
    assert "attr:sorted" not in [f.name for f in case_cache.spec_factors(altered)]
