"""The ai.onnx.ml oracles against scikit-learn, a second opinion (issue 19 item 4): small models
are trained, their parameters converted into the operator's attributes by the converters below
(no skl2onnx), and the oracle's outputs compared with scikit-learn's predictions on drawn inputs
(a seeded generator, with values on the trees' own thresholds so ties are met, and NaN where the
model learnt where missing values go). scikit-learn is a test dependency only (the `test` extra)."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

from opconform import oracle

sklearn = pytest.importorskip("sklearn", reason="scikit-learn (the `test` extra) is the second opinion")
from sklearn import ensemble, linear_model, preprocessing, tree  # noqa: E402

RNG_SEED = 19


def _data(n: int = 80, features: int = 3, nan: bool = False) -> np.ndarray:
    rng = np.random.default_rng(RNG_SEED)
    x = rng.normal(size=(n, features)).round(2).astype(np.float32)
    if nan:
        x[rng.random(x.shape) < 0.1] = np.nan
    return x


def _probe(x: np.ndarray, thresholds: np.ndarray, features: np.ndarray) -> np.ndarray:
    """Drawn inputs: fresh rows, and rows whose features sit exactly on the model's thresholds."""
    rng = np.random.default_rng(RNG_SEED + 1)
    fresh = rng.normal(size=(40, x.shape[1])).astype(np.float32)
    on = fresh[: len(thresholds)].copy()
    on[np.arange(len(on)), features[: len(on)]] = thresholds[: len(on)].astype(np.float32)
    return np.concatenate([fresh, on])


# ------------------------------------------------------------------ converters

def _tree_nodes(estimators: list, weights) -> dict:
    """TreeEnsembleRegressor/Classifier node tuples of fitted scikit-learn trees: a split is
    x[f] <= threshold (BRANCH_LEQ, true to the left child), NaN goes where the tree learnt.
    `weights(t, leaf)` -> [(target, weight)] of a leaf."""
    a: dict[str, list] = {k: [] for k in ("nodes_treeids", "nodes_nodeids", "nodes_featureids", "nodes_modes",
                                          "nodes_truenodeids", "nodes_falsenodeids",
                                          "nodes_missing_value_tracks_true", "votes")}
    values: list[float] = []
    for t, est in enumerate(estimators):
        tr = est.tree_
        missing_left = getattr(tr, "missing_go_to_left", np.zeros(tr.node_count, dtype=np.uint8))
        for i in range(tr.node_count):
            leaf = tr.children_left[i] < 0
            a["nodes_treeids"].append(t)
            a["nodes_nodeids"].append(i)
            a["nodes_featureids"].append(0 if leaf else int(tr.feature[i]))
            a["nodes_modes"].append("LEAF" if leaf else "BRANCH_LEQ")
            a["nodes_truenodeids"].append(0 if leaf else int(tr.children_left[i]))
            a["nodes_falsenodeids"].append(0 if leaf else int(tr.children_right[i]))
            a["nodes_missing_value_tracks_true"].append(0 if leaf else int(missing_left[i]))
            values.append(0.0 if leaf else float(tr.threshold[i]))
            if leaf:
                a["votes"] += [(t, i, target, w) for target, w in weights(t, est, i)]
    votes = a.pop("votes")
    a["nodes_values_as_tensor"] = np.asarray(values, dtype=np.float64)  # scikit-learn's thresholds are float64
    return a, votes


def _regressor(estimators, n_targets: int, aggregate: str, scale: float = 1.0, base=None) -> dict:
    a, votes = _tree_nodes(estimators, lambda t, est, i: [(k, scale * est.tree_.value[i, k, 0]) for k in range(n_targets)])
    a.update(n_targets=n_targets, aggregate_function=aggregate,
             target_treeids=[v[0] for v in votes], target_nodeids=[v[1] for v in votes], target_ids=[v[2] for v in votes],
             target_weights_as_tensor=np.asarray([v[3] for v in votes], dtype=np.float64))
    if base is not None:
        a["base_values_as_tensor"] = np.asarray(base, dtype=np.float64)
    return a


def _classifier(estimators, classes, proba: bool) -> dict:
    n = len(estimators)

    def weights(t, est, i):
        v = est.tree_.value[i, 0]
        return [(k, v[k] / v.sum() / n) for k in range(len(classes))] if proba else [(0, v[0])]

    a, votes = _tree_nodes(estimators, weights)
    a.update(classlabels_int64s=[int(c) for c in classes], class_treeids=[v[0] for v in votes],
             class_nodeids=[v[1] for v in votes], class_ids=[v[2] for v in votes],
             class_weights_as_tensor=np.asarray([v[3] for v in votes], dtype=np.float64))
    return a


def _ensemble5(estimators, n_targets: int, aggregate: int) -> dict:
    """TreeEnsemble-5's nodes_* (splits) and leaf_* of the same trees: one leaf per target vote."""
    a = {k: [] for k in ("nodes_featureids", "nodes_truenodeids", "nodes_falsenodeids", "nodes_trueleafs",
                         "nodes_falseleafs", "nodes_missing_value_tracks_true", "leaf_targetids", "tree_roots")}
    splits, modes, weights = [], [], []
    for est in estimators:
        tr = est.tree_
        assert n_targets == 1 and tr.node_count > 1
        position: dict[int, tuple[int, int]] = {}
        inner = [i for i in range(tr.node_count) if tr.children_left[i] >= 0]
        base = len(splits)
        for k, i in enumerate(inner):
            position[i] = (base + k, 0)
        for i in range(tr.node_count):
            if tr.children_left[i] < 0:
                position[i] = (len(a["leaf_targetids"]), 1)
                a["leaf_targetids"].append(0)
                weights.append(tr.value[i, 0, 0])
        a["tree_roots"].append(position[0][0])
        for i in inner:
            t, f = position[int(tr.children_left[i])], position[int(tr.children_right[i])]
            a["nodes_featureids"].append(int(tr.feature[i]))
            a["nodes_truenodeids"].append(t[0]), a["nodes_trueleafs"].append(t[1])
            a["nodes_falsenodeids"].append(f[0]), a["nodes_falseleafs"].append(f[1])
            a["nodes_missing_value_tracks_true"].append(int(getattr(tr, "missing_go_to_left", [0] * tr.node_count)[i]))
            splits.append(tr.threshold[i])
            modes.append(0)
    a.update(n_targets=n_targets, aggregate_function=aggregate, nodes_modes=np.asarray(modes, dtype=np.uint8),
             nodes_splits=np.asarray(splits, dtype=np.float64), leaf_weights=np.asarray(weights, dtype=np.float64))
    return a


# ------------------------------------------------------------------ trees

def test_decision_tree_regressor_with_missing_values_and_ties():
    x = _data(nan=True)
    y = np.nan_to_num(x[:, 0]) * 2 - np.nan_to_num(x[:, 1]) + np.isnan(x[:, 2])
    model = tree.DecisionTreeRegressor(max_depth=4, random_state=0).fit(x, y)
    probe = _probe(x, model.tree_.threshold[model.tree_.children_left >= 0], model.tree_.feature[model.tree_.feature >= 0])
    for f in range(3):  # a NaN in every feature, in some rows
        probe[f::5, f] = np.nan
    attrs = _regressor([model], 1, "SUM")
    (got,) = oracle.evaluate("onnx_ml::TreeEnsembleRegressor-3", [probe.astype(np.float64)], attrs)
    np.testing.assert_allclose(got[:, 0], model.predict(probe), rtol=1e-6, atol=1e-6)


def test_random_forest_regressor_is_the_average_of_its_trees():
    x = _data()
    y = np.stack([x[:, 0] + x[:, 1], x[:, 2] * 3], axis=1)
    model = ensemble.RandomForestRegressor(n_estimators=4, max_depth=3, random_state=0).fit(x, y)
    first = model.estimators_[0].tree_
    probe = _probe(x, first.threshold[first.children_left >= 0], first.feature[first.feature >= 0])
    attrs = _regressor(model.estimators_, 2, "AVERAGE")
    (got,) = oracle.evaluate("onnx_ml::TreeEnsembleRegressor-3", [probe.astype(np.float64)], attrs)
    np.testing.assert_allclose(got, model.predict(probe), rtol=1e-5, atol=1e-5)


def test_tree_ensemble_5_agrees_with_the_same_forest():
    x = _data()
    y = x[:, 0] - 2 * x[:, 2]
    model = ensemble.RandomForestRegressor(n_estimators=3, max_depth=3, random_state=1).fit(x, y)
    first = model.estimators_[0].tree_
    probe = _probe(x, first.threshold[first.children_left >= 0], first.feature[first.feature >= 0]).astype(np.float64)
    (got,) = oracle.evaluate("onnx_ml::TreeEnsemble-5", [probe], _ensemble5(model.estimators_, 1, 0))
    np.testing.assert_allclose(got[:, 0], model.predict(probe.astype(np.float32)), rtol=1e-12, atol=1e-12)


def test_random_forest_classifier_probabilities_and_labels():
    x = _data()
    y = (x[:, 0] > 0).astype(int) + (x[:, 1] > 0.5).astype(int) * 2 + 3  # labels 3, 4, 5, 6
    model = ensemble.RandomForestClassifier(n_estimators=3, max_depth=3, random_state=0).fit(x, y)
    probe = _probe(x, model.estimators_[0].tree_.threshold, np.zeros(40, dtype=np.int64))
    labels, z = oracle.evaluate("onnx_ml::TreeEnsembleClassifier-3", [probe.astype(np.float64)],
                                _classifier(model.estimators_, model.classes_, proba=True))
    expected = model.predict_proba(probe)
    np.testing.assert_allclose(z, expected, rtol=1e-5, atol=1e-6)
    clear = np.sort(expected, axis=1)[:, -1] - np.sort(expected, axis=1)[:, -2] > 1e-6  # rows without a tie
    assert clear.sum() > 20
    np.testing.assert_array_equal(labels[clear], model.predict(probe)[clear])


def test_binary_gradient_boosting_is_the_complemented_logistic_score():
    x = _data()
    y = (x[:, 0] + x[:, 1] > 0).astype(int)
    model = ensemble.GradientBoostingClassifier(n_estimators=5, max_depth=2, learning_rate=0.5, random_state=0).fit(x, y)
    init = float(model._raw_predict_init(x[:1])[0, 0])
    trees = [e[0] for e in model.estimators_]
    attrs = _classifier(trees, model.classes_, proba=False)
    attrs["class_weights_as_tensor"] = attrs["class_weights_as_tensor"] * model.learning_rate
    attrs.update(base_values_as_tensor=np.asarray([init, 0.0]), post_transform="LOGISTIC")
    probe = _probe(x, trees[0].tree_.threshold, np.zeros(40, dtype=np.int64)).astype(np.float64)
    labels, z = oracle.evaluate("onnx_ml::TreeEnsembleClassifier-3", [probe], attrs, {"binary_scores": "complement"})
    np.testing.assert_allclose(z, model.predict_proba(probe.astype(np.float32)), rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(labels, model.predict(probe.astype(np.float32)))


# ------------------------------------------------------------------ linear models

def test_linear_regression_with_two_targets():
    x = _data().astype(np.float64)
    y = np.stack([x @ [1.0, -2.0, 0.5] + 3, x @ [0.0, 1.0, 1.0] - 1], axis=1)
    model = linear_model.LinearRegression().fit(x, y)
    attrs = {"coefficients": model.coef_.reshape(-1).tolist(), "intercepts": model.intercept_.tolist(), "targets": 2}
    probe = _probe(x, np.zeros(0), np.zeros(0, dtype=np.int64)).astype(np.float64)
    (got,) = oracle.evaluate("onnx_ml::LinearRegressor-1", [probe], attrs)
    np.testing.assert_allclose(got, model.predict(probe), rtol=1e-5, atol=1e-5)  # coefficients stored as float32


@pytest.mark.parametrize("classes", [2, 3])
def test_logistic_regression_probabilities(classes):
    x = _data().astype(np.float64)
    y = np.digitize(x[:, 0] + x[:, 1], [-0.5, 0.5][: classes - 1]) + 10
    model = linear_model.LogisticRegression().fit(x, y)
    binary = classes == 2
    attrs = {"coefficients": model.coef_.reshape(-1).tolist(), "intercepts": model.intercept_.tolist(),
             "classlabels_ints": [int(c) for c in model.classes_], "post_transform": "LOGISTIC" if binary else "SOFTMAX"}
    probe = _probe(x, np.zeros(0), np.zeros(0, dtype=np.int64)).astype(np.float64)
    labels, z = oracle.evaluate("onnx_ml::LinearClassifier-1", [probe], attrs, {"binary_scores": "negated"})
    np.testing.assert_allclose(z, model.predict_proba(probe), rtol=1e-4, atol=1e-5)
    np.testing.assert_array_equal(labels, model.predict(probe))


# ------------------------------------------------------------------ scalers and encoders

def test_standard_scaler():
    x = _data() * 3 + 1
    model = preprocessing.StandardScaler().fit(x)
    attrs = {"offset": model.mean_.tolist(), "scale": (1 / model.scale_).tolist()}
    probe = _probe(x, np.zeros(0), np.zeros(0, dtype=np.int64))
    (got,) = oracle.evaluate("onnx_ml::Scaler-1", [probe], attrs)
    np.testing.assert_allclose(got, model.transform(probe), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("norm", ["l1", "l2", "max"])
def test_normalizer(norm):
    probe = _probe(_data(), np.zeros(0), np.zeros(0, dtype=np.int64))
    probe[0] = 0  # a zero row stays as it is
    (got,) = oracle.evaluate("onnx_ml::Normalizer-1", [probe], {"norm": norm.upper()}, {"formulas": "magnitudes"})
    np.testing.assert_allclose(got, preprocessing.Normalizer(norm=norm).transform(probe), rtol=1e-5, atol=1e-6)


def test_binarizer():
    probe = _probe(_data(), np.zeros(0), np.zeros(0, dtype=np.int64))
    probe[1, 0] = 0.25  # on the threshold: not greater
    (got,) = oracle.evaluate("onnx_ml::Binarizer-1", [probe], {"threshold": 0.25})
    np.testing.assert_array_equal(got, preprocessing.Binarizer(threshold=0.25).transform(probe))


@pytest.mark.parametrize("kind", ["int64", "string"])
def test_one_hot_encoder_with_unknown_categories(kind):
    rng = np.random.default_rng(RNG_SEED)
    train = rng.integers(0, 5, size=(50, 1))
    probe = rng.integers(-1, 7, size=(30, 1))  # -1, 5 and 6 were never seen
    if kind == "string":
        train, probe = train.astype(str).astype(object), probe.astype(str).astype(object)
    model = preprocessing.OneHotEncoder(handle_unknown="ignore").fit(train)
    cats = model.categories_[0].tolist()
    attrs = {"cats_strings": [str(c) for c in cats]} if kind == "string" else {"cats_int64s": [int(c) for c in cats]}
    (got,) = oracle.evaluate("onnx_ml::OneHotEncoder-1", [probe if kind == "string" else probe.astype(np.int64)], attrs)
    np.testing.assert_array_equal(got[:, 0, :], model.transform(probe).toarray())


# ------------------------------------------------------------------ support vector machines

@pytest.mark.parametrize("kernel", ["linear", "poly", "rbf", "sigmoid"])
def test_svr_with_every_kernel(kernel):
    from sklearn import svm

    x = _data(features=2).astype(np.float64)
    y = np.sin(x[:, 0]) + 0.5 * x[:, 1]
    model = svm.SVR(kernel=kernel, degree=3, gamma=0.5, coef0=0.25, C=2.0).fit(x, y)
    sv = model.support_vectors_
    attrs = {"kernel_type": kernel.upper(), "kernel_params": [0.5, 0.25, 3.0], "n_supports": int(sv.shape[0]),
             "support_vectors": sv.reshape(-1).astype(np.float32).tolist(),
             "coefficients": model.dual_coef_[0].astype(np.float32).tolist(), "rho": [float(model.intercept_[0])]}
    probe = _probe(x, np.zeros(0), np.zeros(0, dtype=np.int64)).astype(np.float32).astype(np.float64)
    (got,) = oracle.evaluate("onnx_ml::SVMRegressor-1", [probe], attrs)
    # the model's own parameters, rounded to float32 as the attributes store them
    model.support_vectors_[:] = sv.astype(np.float32)
    model.dual_coef_[:] = model.dual_coef_.astype(np.float32)
    model.intercept_[:] = model.intercept_.astype(np.float32)
    np.testing.assert_allclose(got[:, 0], model.predict(probe), rtol=1e-5, atol=1e-5)


def _svc_attributes(model, kernel: str) -> dict:
    """SVMClassifier's attributes of a fitted SVC, in libsvm's own signs: scikit-learn flips
    dual_coef_ and intercept_ of a two-class model for its public attributes and keeps libsvm's as
    _dual_coef_ and _intercept_ (intercept = -rho), which the one-against-one reading adds."""
    attrs = {"kernel_type": kernel.upper(), "kernel_params": [0.5, 0.25, 3.0],
             "vectors_per_class": [int(n) for n in model.n_support_],
             "support_vectors": model.support_vectors_.reshape(-1).astype(np.float32).tolist(),
             "coefficients": model._dual_coef_.reshape(-1).astype(np.float32).tolist(),
             "rho": model._intercept_.astype(np.float32).tolist(), "classlabels_ints": [int(c) for c in model.classes_]}
    if getattr(model, "probability", False) is True:  # "deprecated" in newer scikit-learn: not a probability model
        attrs.update(prob_a=model._probA.astype(np.float32).tolist(), prob_b=model._probB.astype(np.float32).tolist())
    return attrs


def _as_stored(model) -> None:
    """The model's own parameters rounded to float32, as the attributes store them."""
    model.support_vectors_[:] = model.support_vectors_.astype(np.float32)
    model._dual_coef_[:] = model._dual_coef_.astype(np.float32)
    model._intercept_[:] = model._intercept_.astype(np.float32)
    if getattr(model, "probability", False) is True:  # "deprecated" in newer scikit-learn: not a probability model
        model._probA[:] = model._probA.astype(np.float32)
        model._probB[:] = model._probB.astype(np.float32)


@pytest.mark.parametrize("kernel", ["linear", "poly", "rbf", "sigmoid"])
@pytest.mark.parametrize("classes", [2, 3])
def test_svc_decisions_and_labels_with_every_kernel(kernel, classes):
    from sklearn import svm

    x = _data(features=2).astype(np.float64)
    y = np.digitize(x[:, 0] - x[:, 1], [-0.7, 0.7][: classes - 1] if classes == 3 else [0.0]) + 5
    model = svm.SVC(kernel=kernel, degree=3, gamma=0.5, coef0=0.25, C=2.0, decision_function_shape="ovo").fit(x, y)
    attrs = _svc_attributes(model, kernel)
    _as_stored(model)
    probe = _probe(x, np.zeros(0), np.zeros(0, dtype=np.int64)).astype(np.float32).astype(np.float64)
    labels, z = oracle.evaluate("onnx_ml::SVMClassifier-1", [probe], attrs)
    decision = model.decision_function(probe)
    if classes == 2:  # Z = [-d, d]: scikit-learn's binary decision is -d (positive for classes_[1])
        np.testing.assert_allclose(z, np.stack([decision, -decision], axis=1), rtol=1e-5, atol=1e-5)
    else:
        np.testing.assert_allclose(z, decision, rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(labels, model.predict(probe))


@pytest.mark.parametrize("classes", [2, 3])
def test_svc_probabilities_are_libsvms(classes):
    from sklearn import svm

    x = _data(n=120, features=2).astype(np.float64)
    y = np.digitize(x[:, 0] + 0.5 * x[:, 1], [-0.5, 0.5][: classes - 1] if classes == 3 else [0.0])
    with warnings.catch_warnings():  # scikit-learn 1.9 deprecates probability=True (Platt scaling by libsvm)
        warnings.simplefilter("ignore", FutureWarning)
        try:
            model = svm.SVC(kernel="rbf", gamma=0.5, C=1.0, probability=True, random_state=0).fit(x, y)
        except (TypeError, ValueError) as e:
            pytest.skip(f"this scikit-learn's SVC has no libsvm probabilities: {e}")
    attrs = _svc_attributes(model, "rbf")
    _as_stored(model)
    probe = _probe(x, np.zeros(0), np.zeros(0, dtype=np.int64)).astype(np.float32).astype(np.float64)
    labels, z = oracle.evaluate("onnx_ml::SVMClassifier-1", [probe], attrs)
    # libsvm gives two classes their pair's probability without coupling; the coupling's stopping
    # rule (eps 0.005 / k) leaves the oracle's two-class answer within about 1e-3 of it
    np.testing.assert_allclose(z, model.predict_proba(probe), rtol=0, atol=2e-3 if classes == 2 else 1e-5)
    np.testing.assert_array_equal(labels, model.predict(probe))  # votes, not the most probable class


def test_label_encoder_is_scikit_learns_mapping_with_a_default_for_unknown_labels():
    rng = np.random.default_rng(RNG_SEED)
    words = np.array(["cat", "dog", "emu", "gnu", "yak"], dtype=object)
    train = words[rng.integers(0, 4, size=40)]  # yak is never seen
    probe = words[rng.integers(0, 5, size=30)]
    model = preprocessing.LabelEncoder().fit(train)
    known = np.isin(probe, model.classes_)
    assert known.any() and not known.all()
    keys = [str(c) for c in model.classes_]
    for sid, attrs in (("onnx_ml::LabelEncoder-1", {"classes_strings": keys, "default_int64": -1}),
                       ("onnx_ml::LabelEncoder-2", {"keys_strings": keys, "values_int64s": list(range(len(keys)))}),
                       ("onnx_ml::LabelEncoder-4", {"keys_tensor": np.array(keys, dtype=object),
                                                    "values_tensor": np.arange(len(keys), dtype=np.int64)})):
        (got,) = oracle.evaluate(sid, [probe], attrs)
        np.testing.assert_array_equal(got[known], model.transform(probe[known]))
        assert (got[~known] == -1).all()
    codes = np.array([0, 3, 1, -1, 7])
    (back,) = oracle.evaluate("onnx_ml::LabelEncoder-1", [codes], {"classes_strings": keys})  # inverse_transform
    np.testing.assert_array_equal(back[:3], model.inverse_transform(codes[:3]))
    assert back[3:].tolist() == ["_Unused", "_Unused"]


def test_ordinal_encoder_with_unknown_value_is_label_encoder_4():
    rng = np.random.default_rng(RNG_SEED)
    train = rng.integers(0, 6, size=(50, 1)).astype(np.float64) / 2  # 0.0, 0.5, .. 2.5
    probe = rng.integers(-1, 8, size=(30, 1)).astype(np.float64) / 2
    model = preprocessing.OrdinalEncoder(handle_unknown="use_encoded_value", unknown_value=-1).fit(train)
    cats = model.categories_[0]
    attrs = {"keys_tensor": cats.astype(np.float64), "values_tensor": np.arange(cats.size, dtype=np.float64),
             "default_tensor": np.array([-1.0])}
    (got,) = oracle.evaluate("onnx_ml::LabelEncoder-4", [probe[:, 0]], attrs)
    np.testing.assert_array_equal(got, model.transform(probe)[:, 0])
    assert (got == -1).any() and (got >= 0).any()
