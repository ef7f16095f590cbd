"""The ai.onnx.ml dialect (onnx_ml, specs/dialects.py): its specs load under their domain, its
models import that domain, its official node cases are found, coverage counts it, and the
generator draws real models: consistent trees with every branch mode, missing-value tracking,
every post_transform and aggregate function, categories that cover the inputs and miss some."""
from __future__ import annotations

import collections
import functools
import json
import math

import numpy as np
import onnx
import pytest

from opconform import containers, oracle, specs
from opconform.generator import onnx_model
from opconform.oracle import official
from opconform.oracle.kernels import ml
from opconform.reports import coverage
from opconform.specs import dialects
from helpers_generator import load_or_fail, valid_and_invalid


@functools.lru_cache(maxsize=None)
def drawn(spec_id: str, count: int, seed: int) -> tuple:
    """Cases with the oracle's expectations, once per argument tuple for the session."""
    from opconform.generator import generate

    return tuple(generate(load_or_fail(spec_id), count, seed, expect=oracle.expectation))

ML = [v for v in specs.all_versions() if v.dialect == "onnx_ml"]


def test_the_dialect_table_is_the_one_list_of_dialects():
    schema = json.loads(specs.SCHEMA_PATH.read_text())
    assert schema["properties"]["dialect"]["enum"] == list(dialects.names())
    assert dialects.get("onnx_ml").domain == "ai.onnx.ml" and dialects.is_onnx("onnx_ml")
    assert dialects.for_onnx_domain("ai.onnx").name == "onnx" and dialects.for_onnx_domain("ai.onnx.ml").name == "onnx_ml"
    with pytest.raises(KeyError, match="unknown dialect 'nope'"):
        dialects.get("nope")


def test_ml_specs_carry_their_domain_and_every_version_onnx_defines():
    import onnx.defs

    by_op = collections.defaultdict(set)
    for s in onnx.defs.get_all_schemas_with_history():
        if s.domain == "ai.onnx.ml" and not s.deprecated:
            by_op[s.name].add(s.since_version)
    for v in ML:
        assert v.domain == "ai.onnx.ml" and v.id.startswith("onnx_ml::")
        assert oracle.has_oracle(v)
    have = collections.defaultdict(set)
    for v in ML:
        have[v.operator].add(v.since)
    for op, versions in have.items():
        assert versions == by_op[op], op


def test_a_spec_claiming_another_domain_is_refused(tmp_path):
    text = (specs.SPEC_ROOT / "onnx_ml" / "Binarizer.yaml").read_text().replace("domain: ai.onnx.ml", "domain: ai.onnx")
    (tmp_path / "onnx_ml").mkdir()
    path = tmp_path / "onnx_ml" / "Binarizer.yaml"
    path.write_text(text)
    with pytest.raises(specs.loader.SpecError, match="field domain: got 'ai.onnx', expected 'ai.onnx.ml'"):
        specs.load_file(path)


def test_models_import_the_ml_domain_and_pass_the_checker():
    v = specs.load("onnx_ml::TreeEnsembleRegressor-3")
    case = next(c for c in drawn(v.id, 20, 0) if c.expected.kind == "outputs")
    model = onnx_model.build(v, case, opset=3)
    assert [(o.domain, o.version) for o in model.opset_import] == [("ai.onnx.ml", 3)]
    assert model.graph.node[0].domain == "ai.onnx.ml"
    onnx.checker.check_model(model)


def test_official_ml_cases_are_found_and_agree():
    for op in ("TreeEnsemble", "Binarizer", "ArrayFeatureExtractor"):
        results = official.check_operator(op, "onnx_ml")
        assert results and all(r.passed for r in results), [r.message for r in results if not r.passed]
    assert official.cases_for("TreeEnsemble") == ()  # not an operator of the default domain


def test_coverage_counts_the_ml_domain():
    ops = coverage.operators()
    assert "onnx_ml::TreeEnsemble" in ops and "onnx_ml::ZipMap" in ops
    row = coverage.row("onnx_ml::TreeEnsembleRegressor")
    assert row.versions == [1, 3]
    assert coverage.row("onnx_ml::ZipMap").versions == [1]  # every operator of the domain has a spec now
    assert "no spec" not in coverage.row("onnx_ml::ZipMap").missing


@pytest.mark.slow
@pytest.mark.parametrize("spec_id", [v.id for v in ML])
def test_drawn_cases_have_an_oracle_answer(spec_id):
    cases = drawn(spec_id, 24, 0)
    valid, invalid = valid_and_invalid(cases)
    assert len(valid) >= 8, f"{len(valid)} valid of {len(cases)}"
    for c in valid:  # the oracle ran on every valid case and gave outputs of the declared types
        for out, port in zip(c.expected.alternatives[0].outputs, specs.load(spec_id).outputs):
            if containers.is_container(out):  # ZipMap's sequence of maps
                assert containers.type_of(out) in port.types, (containers.type_of(out), port.types)
                continue
            assert str(out.dtype) in port.types or (out.dtype == object and "string" in port.types)


def _forest_cases(spec_id: str) -> list:
    return [c for c in drawn(spec_id, 120, 1) if c.expected.kind in ("outputs", "undefined") and "nodes_modes" in c.attributes]


@pytest.mark.slow
@pytest.mark.parametrize("spec_id", ["onnx_ml::TreeEnsembleRegressor-3", "onnx_ml::TreeEnsembleClassifier-1",
                                     "onnx_ml::TreeEnsemble-5"])
def test_forests_are_real_trees_with_every_mode_and_transform(spec_id):
    cases = _forest_cases(spec_id)
    modes, transforms, aggregates, tracked, deep = set(), set(), set(), 0, 0
    for c in cases:
        a = c.attributes
        m = a["nodes_modes"]
        modes |= set(np.asarray(m).reshape(-1).tolist()) if isinstance(m, np.ndarray) else set(m)
        transforms.add(a.get("post_transform"))
        aggregates.add(a.get("aggregate_function"))
        tracked += any(a.get("nodes_missing_value_tracks_true") or [])
        deep += "forest:depth3" in c.label
        # consistent: the oracle walked every row down every tree without meeting trees_well_formed
        assert c.expected.relation != "trees_well_formed"
    want = 7 if spec_id.endswith("TreeEnsemble-5") else 7  # six comparisons and LEAF, or seven comparisons
    assert len(modes) == want, modes
    assert len(transforms - {None}) == 5, transforms
    if "Regressor" in spec_id or spec_id.endswith("-5"):
        assert len(aggregates - {None}) == 4, aggregates
    assert tracked >= 5 and deep >= 5


def test_one_hot_categories_cover_the_inputs_and_miss_some():
    cases = [c for c in drawn("onnx_ml::OneHotEncoder-1", 40, 0) if c.expected.kind == "outputs"]
    hits = misses = 0
    for c in cases:
        y = c.expected.alternatives[0].outputs[0]
        found = y.reshape(-1, y.shape[-1]).any(axis=1) if y.size else np.zeros(0, bool)
        hits += int(found.sum())
        misses += int((~found).sum())
    assert hits >= 20 and misses >= 5, (hits, misses)


def test_post_transforms_follow_their_readings():
    s = np.array([[0.0, 1.0, -2.0], [0.975, 0.5, 0.025]])
    soft = ml.post_transform(s, "SOFTMAX", {})
    np.testing.assert_allclose(soft.sum(axis=1), 1.0)
    np.testing.assert_allclose(ml.post_transform(s, "LOGISTIC", {}), 1 / (1 + np.exp(-s)))
    zero = ml.post_transform(np.array([[0.0, 1.0, 2.0], [0.0, 0.0, 0.0]]), "SOFTMAX_ZERO", {"softmax_zero_of_zeros": "half"})
    assert zero[0, 0] == 0 and math.isclose(zero[0, 1:].sum(), 1.0) and (zero[1] == 0.5).all()
    assert np.isnan(ml.post_transform(np.zeros((1, 2)), "SOFTMAX_ZERO", {"softmax_zero_of_zeros": "nan"})).all()
    p = np.array([[0.975, 0.5, 0.025]])
    exact = ml.post_transform(p, "PROBIT", {"probit": "exact"})
    np.testing.assert_allclose(exact, [[1.959963984540054, 0.0, -1.959963984540054]], rtol=1e-12, atol=1e-12)
    approx = ml.post_transform(p, "PROBIT", {"probit": "approximation"})
    assert np.abs(approx - exact).max() < 5e-3 and not np.array_equal(approx, exact)
    with pytest.raises(Exception, match="probit_of_probability"):
        ml.post_transform(np.array([[1.5]]), "PROBIT", {}, "onnx_ml::X-1")


def test_a_cycle_or_a_dangling_child_is_refused():
    v = specs.load("onnx_ml::TreeEnsembleRegressor-1")
    attrs = dict(v.examples[0].attributes)
    attrs["nodes_falsenodeids"] = [7, 0, 0]  # names no node of tree 0
    with pytest.raises(Exception, match="trees_well_formed"):
        oracle.evaluate(v, [np.zeros((1, 1), np.float32)], attrs)
    attrs["nodes_falsenodeids"] = [0, 0, 0]  # the root's false branch is the root: a cycle
    with pytest.raises(Exception, match="trees_well_formed"):
        oracle.evaluate(v, [np.ones((1, 1), np.float32)], attrs)


# ------------------------------------------------------------------ SVMClassifier and LabelEncoder

def test_svm_classifier_coupling_is_libsvms():
    """The coupled probabilities are libsvm's multiclass_probability: for two classes the pair's
    own probability, and for three they sum to 1 and solve Wu, Lin and Weng's problem within the
    stopping rule (eps 0.005 / k on the optimality conditions)."""
    from opconform.oracle.onnx_ml import svmclassifier

    r = np.array([[[0, 0.8], [0.2, 0]]])
    np.testing.assert_allclose(svmclassifier.multiclass_probability(r), [[0.8, 0.2]], atol=1e-3)
    r3 = np.zeros((1, 3, 3))
    for (i, j), p in {(0, 1): 0.7, (0, 2): 0.6, (1, 2): 0.3}.items():
        r3[0, i, j], r3[0, j, i] = p, 1 - p
    p = svmclassifier.multiclass_probability(r3)[0]
    assert abs(p.sum() - 1) < 1e-12 and p.argmax() == 0
    q = np.array([[sum(r3[0, j, t] ** 2 for j in range(3) if j != t) if t == s else -r3[0, s, t] * r3[0, t, s]
                   for s in range(3)] for t in range(3)])
    assert np.abs(q @ p - p @ q @ p).max() < 0.005 / 3


def test_svm_classifier_votes_decide_the_label_and_z_holds_the_decisions():
    v = specs.load("onnx_ml::SVMClassifier-1")
    attrs = dict(v.examples[0].attributes)
    x = np.array([[2.0, -0.5], [-1.0, -1.0]], np.float32)
    labels, z = oracle.evaluate(v, [x], attrs)
    assert labels.tolist() == [10, 30] and z.shape == (2, 3)  # one decision value per pair
    labels, _ = oracle.evaluate(v, [x], attrs, {"ties": "last"})
    assert labels.tolist() == [30, 30]  # the first row's three votes tie
    with pytest.raises(Exception, match="vote_within_rounding"):  # d02 = 0: either way in float32
        oracle.evaluate(v, [np.array([[2.0, 0.0]], np.float32)], attrs)
    probs = dict(attrs, prob_a=[-1.0, -1.0, -1.0], prob_b=[0.0, 0.0, 0.0])
    labels, z = oracle.evaluate(v, [x], probs)
    np.testing.assert_allclose(z.sum(axis=1), 1.0, rtol=1e-6)
    assert labels.tolist() == [10, 30]  # still the votes, not the most probable class


@pytest.mark.slow
def test_svm_classifier_rows_draw_real_models_with_every_kernel():
    """Covering rows that ask for support vectors, a kernel and probabilities or not are held by
    the spec's relations alone (no hook): vectors grouped by class, E-1 coefficients per vector,
    one rho (and prob_a, prob_b) per pair, and the oracle answers."""
    from opconform.generator import sampling
    from opconform.generator.factors import GIVEN, OMITTED

    v = specs.load("onnx_ml::SVMClassifier-1")
    rows = [{"attr:kernel_type": k, "attr:vectors_per_class": GIVEN, "attr:prob_a": p}
            for k in ("LINEAR", "POLY", "RBF", "SIGMOID") for p in (GIVEN, OMITTED)]
    got = sampling.generate_rows(v, rows, 5, profile="ci", expect=oracle.expectation)
    assert not got.infeasible, got.infeasible
    for _, c in got.cases:
        a = c.attributes
        counts, classes = a["vectors_per_class"], len(a.get("classlabels_ints") or a.get("classlabels_strings"))
        s = sum(counts)
        assert s > 0 and len(a["coefficients"]) == (classes - 1) * s and len(a["rho"]) == classes * (classes - 1) // 2
        assert len(a["support_vectors"]) == s * c.inputs[0].shape[1]
        if c.expected.kind == "outputs":
            z = c.expected.alternatives[0].outputs[1]
            assert z.shape[1] == (classes if a.get("prob_a") else 2 if classes == 2 else len(a["rho"]))


def test_label_encoder_keys_cover_the_inputs_and_miss_some():
    for sid in ("onnx_ml::LabelEncoder-1", "onnx_ml::LabelEncoder-2", "onnx_ml::LabelEncoder-4"):
        hits = misses = 0
        for c in drawn(sid, 30, 0):
            if c.expected.kind != "outputs" or not c.inputs[0].size:
                continue
            found, total = (int(n) for n in next(t for t in c.label.split(";") if t.startswith("keys:"))[5:].split("of"))
            hits += found
            misses += total - found + 1  # the key X lacks
        assert hits >= 10 and misses >= 10, (sid, hits, misses)


def test_label_encoder_versions_read_keys_as_their_text_says():
    nan_bits = np.array([0x7FC00001], dtype=np.uint32).view(np.float32)  # a NaN of other bits than the key's
    attrs = {"keys_floats": [float("nan"), 0.0], "values_int64s": [1, 2], "default_int64": 9}
    x = np.concatenate([nan_bits, np.array([-0.0], np.float32)])
    (v2,) = oracle.evaluate("onnx_ml::LabelEncoder-2", [x], attrs)
    (v4,) = oracle.evaluate("onnx_ml::LabelEncoder-4", [x], attrs)
    assert v2.tolist() == [9, 9]  # bit-wise: another NaN's bits, and -0.0 is not 0.0
    assert v4.tolist() == [1, 2]  # any NaN matches a NaN key; -0.0 equals 0.0
    tensor = {"keys_tensor": np.array([3, 4, 3], np.int16), "values_tensor": np.array([1.5, 2.5, 3.5]),
              "default_tensor": np.array([-7.0])}
    (y,) = oracle.evaluate("onnx_ml::LabelEncoder-4", [np.array([3, 5], np.int16)], tensor)
    assert y.dtype == np.float64 and y.tolist() == [3.5, -7.0]  # the last of a repeated key wins
    (y,) = oracle.evaluate("onnx_ml::LabelEncoder-1", [np.array([1, -1, 2])], {"classes_strings": ["a", "b"]})
    assert y.tolist() == ["b", "_Unused", "_Unused"]  # no counting from the end
