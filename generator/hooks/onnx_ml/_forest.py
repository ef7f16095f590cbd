"""Drawing real tree ensembles, shared by the TreeEnsemble* hooks. The relation language cannot
say "a consistent tree" (child ids naming nodes of the same tree, every walk from a root ending
at a leaf): it has no quantifier over nodes and no reachability, so the trees are built here.

A tree is drawn top down: each interior node splits one feature of X with one of the modes, at
a threshold taken from X's own values (so equality, BRANCH_EQ and the boundary of every
comparison are met) or a quarter in [-2, 2]; it sends NaN to the true branch or not. Leaves
vote for a few targets with weights in quarters of [-4, 4] (sums exact in float32).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from hypothesis import strategies as st

from opconform.generator import pins
from opconform.generator.draft import Draft


@dataclass
class Node:
    feature: int = 0
    mode: int = -1  # index into oracle.kernels.ml.MODES; -1: a leaf
    threshold: float = 0.0
    members: tuple[float, ...] = ()
    missing_true: int = 0
    true_child: int = 0
    false_child: int = 0
    votes: list[tuple[int, float]] = field(default_factory=list)  # a leaf's (target, weight)


@dataclass
class Tree:
    nodes: list[Node]  # nodes[0] is the root; children are indices into nodes


def _threshold(draw, x: np.ndarray, feature: int) -> float:
    column = x[:, feature] if x.size else np.zeros(0)
    finite = column[np.isfinite(column)].astype(np.float64)
    quarter = draw(st.integers(-8, 8)) / 4
    if finite.size and draw(st.booleans()):
        with np.errstate(over="ignore"):  # a float64 past float32's range: an infinite threshold
            return float(np.float32(finite[draw(st.integers(0, finite.size - 1))]))
    return quarter


def draw_tree(draw, x: np.ndarray, n_targets: int, depth: int, modes: int, scale: float = 0.25) -> Tree:
    """One tree of at most `depth` levels of splits over X's features; `modes`: how many of
    MODES may be drawn (6 without BRANCH_MEMBER); leaf weights are multiples of `scale`."""
    features = x.shape[1]
    nodes: list[Node] = []

    def grow(level: int) -> int:
        k = len(nodes)
        nodes.append(Node())
        split = features > 0 and level < depth and draw(st.integers(0, 3)) > 0
        if not split:
            count = (1, 1, 2, 0)[draw(st.integers(0, 3))] if n_targets else 0  # real models: a leaf votes
            nodes[k].votes = [(draw(st.integers(0, n_targets - 1)), _weight(draw, scale)) for _ in range(count)]
            return k
        n = nodes[k]
        n.feature = draw(st.integers(0, features - 1))
        n.mode = draw(st.integers(0, modes - 1))
        n.missing_true = draw(st.integers(0, 1))
        if n.mode == 6:
            n.members = tuple(sorted({_threshold(draw, x, n.feature) for _ in range(draw(st.integers(1, 3)))}))
        else:
            n.threshold = _threshold(draw, x, n.feature)
        n.true_child = grow(level + 1)
        n.false_child = grow(level + 1)
        return k

    grow(0)
    return Tree(nodes)


def _weight(draw, scale: float) -> float:
    """A multiple of `scale`: in [-4, 4] for quarters; in [0, 1/8] for PROBIT's sixteenths."""
    return draw(st.integers(0, 2)) * scale if scale < 0.25 else draw(st.integers(-16, 16)) * scale


def probability_scale(d: Draft) -> float:
    """PROBIT has a value only for scores in [0, 1]: its votes are sixteenths in [0, 1/8] (three
    trees of two votes and a base value in [0, 1/4] stay inside), the others quarters."""
    return 1 / 16 if d.attributes.get("post_transform") in ("PROBIT", 4) else 0.25


def draw_forest(draw, d: Draft, x: np.ndarray, n_targets: int, modes: int, splits: bool = True) -> list[Tree]:
    """One to three trees; `splits` False: each tree a single leaf (no split attributes given)."""
    depth = draw(st.integers(0, 3)) if splits else 0
    d.notes.append(f"forest:depth{depth}")
    scale = probability_scale(d)
    return [draw_tree(draw, x, n_targets, depth, modes, scale) for _ in range(draw(st.integers(1, 3)))]


def set_or_omit(d: Draft, name: str, value: list, given: bool = True) -> None:
    """Set a list attribute, or leave it out: not given, or empty (an ONNX node has no empty list)."""
    if given and len(value):
        d.attributes[name] = value
    else:
        d.attributes.pop(name, None)


def given(draw, d: Draft, name: str) -> bool:
    return pins.given(draw, d, name)


MODE_NAMES = ("BRANCH_LEQ", "BRANCH_LT", "BRANCH_GTE", "BRANCH_GT", "BRANCH_EQ", "BRANCH_NEQ", "BRANCH_MEMBER")


def node_tuples(draw, d: Draft, trees: list[Tree], vote_prefix: str, vote_ids: str) -> None:
    """TreeEnsembleRegressor's and TreeEnsembleClassifier's encoding: every node (leaves too, mode
    LEAF) one entry of the nodes_* lists, node ids 0.. per tree in order; every vote one entry of
    the <vote_prefix>_* lists. Version 3's `_as_tensor` forms (float64) stand in for the float
    lists where drawn."""
    n: dict[str, list] = {k: [] for k in ("treeids", "nodeids", "featureids", "modes", "values", "truenodeids",
                                          "falsenodeids", "missing_value_tracks_true", "hitrates")}
    v: dict[str, list] = {k: [] for k in ("treeids", "nodeids", "ids", "weights")}
    for t, tree in enumerate(trees):
        for i, node in enumerate(tree.nodes):
            leaf = node.mode < 0
            for key, value in (("treeids", t), ("nodeids", i), ("featureids", node.feature),
                               ("modes", "LEAF" if leaf else MODE_NAMES[node.mode]), ("values", node.threshold),
                               ("truenodeids", node.true_child), ("falsenodeids", node.false_child),
                               ("missing_value_tracks_true", node.missing_true), ("hitrates", 1.0)):
                n[key].append(value)
            for target, weight in node.votes:
                for key, value in (("treeids", t), ("nodeids", i), ("ids", target), ("weights", weight)):
                    v[key].append(value)
    for key in ("treeids", "nodeids", "modes"):
        set_or_omit(d, f"nodes_{key}", n[key])
    for key in ("featureids", "truenodeids", "falsenodeids"):
        set_or_omit(d, f"nodes_{key}", n[key])
    for key in ("missing_value_tracks_true", "hitrates"):
        set_or_omit(d, f"nodes_{key}", n[key], given(draw, d, f"nodes_{key}"))
    for key in ("treeids", "nodeids"):
        set_or_omit(d, f"{vote_prefix}_{key}", v[key])
    set_or_omit(d, vote_ids, v["ids"])
    as_tensor = _double_input(d) and any(a.name.endswith("_as_tensor") for a in d.spec.attributes)
    for name, values, needed in (("nodes_values", n["values"], True), (f"{vote_prefix}_weights", v["weights"], True)):
        in_tensor = as_tensor and given(draw, d, f"{name}_as_tensor")
        keep = needed or given(draw, d, name)
        set_or_omit(d, name, values, keep and not in_tensor)
        if as_tensor:
            d.attributes.pop(f"{name}_as_tensor", None)
            if keep and in_tensor and values:
                d.attributes[f"{name}_as_tensor"] = np.asarray(values, dtype=np.float64)
    if as_tensor:
        d.attributes.pop("nodes_hitrates_as_tensor", None)


def base_values(draw, d: Draft, count: int, name: str = "base_values") -> None:
    """Base values (quarters in [-2, 2]) for `count` targets or classes, or none; version 3's
    `_as_tensor` form in their place where drawn."""
    values = [draw(st.integers(-8, 8)) / 4 if probability_scale(d) == 0.25 else draw(st.integers(0, 4)) / 16
              for _ in range(count)]
    give = given(draw, d, name)
    as_tensor = _double_input(d) and any(a.name == f"{name}_as_tensor" for a in d.spec.attributes)
    in_tensor = as_tensor and given(draw, d, f"{name}_as_tensor")
    set_or_omit(d, name, values, give and not in_tensor)
    if as_tensor:
        d.attributes.pop(f"{name}_as_tensor", None)
        if in_tensor and values:
            d.attributes[f"{name}_as_tensor"] = np.asarray(values, dtype=np.float64)


def scalar_attributes(draw, d: Draft) -> None:
    """The attribute step for the scalar attributes only (post_transform, aggregate_function,
    n_targets ...), rows' pins honoured; the lists and tensors are the model the `inputs` step draws."""
    from opconform.generator.families import default

    d.attributes = {}
    for a in d.spec.attributes:
        if a.type in ("string", "int", "float"):
            default._draw_attribute(draw, d, a, None)


def _double_input(d: Draft) -> bool:
    """The `_as_tensor` forms are drawn with a float64 X only (relation as_tensor_with_double_input)."""
    x = d.input("X")
    return x is not None and x.dtype == np.float64
