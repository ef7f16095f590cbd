"""Kernels of the ai.onnx.ml operators: the score transforms they share and tree ensembles.

Every operator of the domain that ends in scores names one `post_transform` (NONE, LOGISTIC,
SOFTMAX, SOFTMAX_ZERO, PROBIT) and no formula for any of them; `post_transform` below is the
reading the specs give, with the choices it leaves open as policies. A forest is evaluated for
every row and tree at once: each step moves every (row, tree) pair one node down.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from opconform.model import RelationBroken
from opconform.oracle.kernels.fp_extremes import extremes_are_data

POST_TRANSFORMS = ("NONE", "SOFTMAX", "LOGISTIC", "SOFTMAX_ZERO", "PROBIT")
MODES = ("BRANCH_LEQ", "BRANCH_LT", "BRANCH_GTE", "BRANCH_GT", "BRANCH_EQ", "BRANCH_NEQ", "BRANCH_MEMBER")
LEAF = -1
# onnxruntime and onnx.reference treat a score within 1e-7 of 0 as the zero SOFTMAX_ZERO keeps
SOFTMAX_ZERO_EPS = 1e-7


# an ML oracle's `run` with NumPy's floating-point warnings off: NaN and infinite features are data
# to these operators (a missing value, a score past float32's range), not faults
quiet = extremes_are_data


def _erfinv_exact(y: np.ndarray) -> np.ndarray:
    """erf^-1 to float64 precision: Winitzki's start, then Newton steps on math.erf (NumPy has
    no erf); NaN outside [-1, 1], +-inf at +-1."""
    y = np.asarray(y, dtype=np.float64)
    x = _erfinv_winitzki(y)
    erf = np.frompyfunc(math.erf, 1, 1)
    inside = np.abs(y) < 1
    for _ in range(6):
        xi = np.where(inside, x, 0.0)
        step = (erf(xi).astype(np.float64) - y) / (2 / math.sqrt(math.pi) * np.exp(-xi * xi))
        x = np.where(inside, xi - step, x)
    with np.errstate(invalid="ignore"):
        return np.where(np.abs(y) == 1, np.copysign(np.inf, y), np.where(np.abs(y) > 1, np.nan, x))


def _erfinv_winitzki(y: np.ndarray) -> np.ndarray:
    """The approximation onnxruntime and onnx.reference compute (a = 0.147), 0 at +-1 as theirs."""
    y = np.asarray(y, dtype=np.float64)
    with np.errstate(all="ignore"):
        w = (1.0 - y) * (1.0 + y)
        ln = np.log(w)
        v = 2.0 / (math.pi * 0.147) + 0.5 * ln
        r = np.sign(y) * np.sqrt(-v + np.sqrt(v * v - ln / 0.147))
        return np.where(w == 0, 0.0, np.where(y < 0, -np.abs(r), np.abs(r)))


def post_transform(scores: np.ndarray, name: str, policies: dict, spec_id: str = "") -> np.ndarray:
    """The transform of an (N, E) array of float64 scores, row by row.

    Policies: `probit` (`exact`: sqrt(2) erf^-1(2p - 1); `approximation`: Winitzki's erf^-1, as
    onnxruntime and onnx.reference compute it) and `softmax_zero_of_zeros` (a row whose scores are
    all zero: `nan` as 0 / 0, `half` every entry 0.5 as onnx.reference)."""
    s = np.asarray(scores, dtype=np.float64)
    with np.errstate(all="ignore"):
        if name == "NONE":
            return s
        if name == "LOGISTIC":
            return 1.0 / (1.0 + np.exp(-s))
        if name == "SOFTMAX":
            if s.shape[-1] == 0:
                return s
            e = np.exp(s - s.max(axis=-1, keepdims=True))
            return e / e.sum(axis=-1, keepdims=True)
        if name == "SOFTMAX_ZERO":
            if s.shape[-1] == 0:
                return s
            top = s.max(axis=-1, keepdims=True)
            zero = np.abs(s) <= SOFTMAX_ZERO_EPS
            e = np.where(zero, s * np.exp(-top), np.exp(s - top))
            total = e.sum(axis=-1, keepdims=True)
            if policies.get("softmax_zero_of_zeros", "nan") == "half":
                return np.where(total == 0, 0.5, e / np.where(total == 0, 1, total))
            return e / total
        if name == "PROBIT":
            if np.any(~((s >= 0) & (s <= 1))):
                raise RelationBroken(spec_id, "probit_of_probability", "undefined", "a score outside [0, 1] has no probit")
            inv = _erfinv_winitzki if policies.get("probit", "exact") == "approximation" else _erfinv_exact
            return math.sqrt(2.0) * inv(2.0 * s - 1.0)
    raise ValueError(f"unknown post_transform {name!r}; expected one of {POST_TRANSFORMS}")


@dataclass(frozen=True)
class Forest:
    """Trees over one index space of nodes: a node's `mode` is an index into MODES, or LEAF.

    `members` holds each node's set for BRANCH_MEMBER, padded with NaN (shape (nodes, k));
    `leaf_votes` is (nodes, targets): what a leaf adds to each target, NaN where it casts no vote
    for it (the sum of its votes for SUM and AVERAGE, their min for MIN, max for MAX)."""

    feature: np.ndarray
    mode: np.ndarray
    threshold: np.ndarray
    true_next: np.ndarray
    false_next: np.ndarray
    missing_true: np.ndarray
    roots: np.ndarray
    members: np.ndarray


def leaves(forest: Forest, x: np.ndarray, spec_id: str) -> np.ndarray:
    """(N, trees): the node index of the leaf each row reaches in each tree. A walk longer than
    the node count has met a cycle: the attributes are no trees (error relation trees_well_formed)."""
    x = np.asarray(x, dtype=np.float64)
    n = x.shape[0]
    at = np.broadcast_to(forest.roots[None, :], (n, forest.roots.size)).copy()
    rows = np.arange(n)[:, None]
    for _ in range(forest.mode.size + 1):
        inner = forest.mode[at] != LEAF
        if not inner.any():
            return at
        v = x[rows, forest.feature[at]] if x.shape[1] else np.zeros(at.shape)
        t = forest.threshold[at]
        m = forest.mode[at]
        with np.errstate(invalid="ignore"):
            taken = np.select(
                [m == 0, m == 1, m == 2, m == 3, m == 4, m == 5, m == 6],
                [v <= t, v < t, v >= t, v > t, v == t, v != t,
                 (forest.members[at] == v[..., None]).any(axis=-1) if forest.members.shape[1] else np.zeros(at.shape, bool)],
                default=False,
            )
        taken = np.where(np.isnan(v), forest.missing_true[at], taken)
        at = np.where(inner, np.where(taken, forest.true_next[at], forest.false_next[at]), at)
    raise RelationBroken(spec_id, "trees_well_formed", "error", "a walk from a root never reaches a leaf: a cycle")


def aggregate(leaf_votes: np.ndarray, reached: np.ndarray, function: str, base: np.ndarray, empty: str,
              out_type: type) -> np.ndarray:
    """(N, targets) from the votes of the leaves reached, in float64. `function`: SUM, AVERAGE
    (the sum over the number of trees), MIN, MAX. `empty` (policy unvoted_target): a target no
    reached leaf votes for under MIN or MAX holds `base_value` (0 plus its base value, as
    onnxruntime) or `type_extreme` (the output type's largest (MIN) or lowest (MAX) value plus its
    base value, as onnx.reference)."""
    votes = leaf_votes[reached]  # (N, trees, targets)
    n_trees = reached.shape[1]
    with np.errstate(all="ignore"):
        if function in ("SUM", "AVERAGE"):
            out = np.nansum(votes, axis=1)
            if function == "AVERAGE":
                out = out / n_trees if n_trees else out
            return out + base
        voted = ~np.isnan(votes)
        pick = np.fmin.reduce if function == "MIN" else np.fmax.reduce
        out = pick(votes, axis=1) if n_trees else np.full(votes.shape[:1] + votes.shape[2:], np.nan)
        if empty == "type_extreme":
            info = np.finfo(out_type)
            fill = float(info.max) if function == "MIN" else float(info.min)
        else:
            fill = 0.0
        has = voted.any(axis=1) if n_trees else np.zeros(out.shape, bool)
        return np.where(has, out, fill) + base


def tensor_or_list(attributes: dict, name: str) -> np.ndarray | None:
    """A float attribute's values as float64: the `_as_tensor` form where given, else the list
    (stored as float32 by an ONNX model), else None."""
    t = attributes.get(f"{name}_as_tensor")
    if t is not None:
        return np.asarray(t, dtype=np.float64).reshape(-1)
    v = attributes.get(name)
    return None if v is None else np.asarray(v, dtype=np.float32).astype(np.float64).reshape(-1)


def node_tuple_forest(attributes: dict, vote_prefix: str, vote_ids: str, n_targets: int, function: str,
                      spec_id: str) -> tuple[Forest, np.ndarray, int]:
    """The forest of TreeEnsembleRegressor's and TreeEnsembleClassifier's node tuples (leaves are
    nodes of mode LEAF; votes name a leaf by (tree id, node id)), its (nodes, targets) leaf votes
    and its tree count. A tree's root is its first node in attribute order (the node ids
    "start at 0"). Ids naming no node of their tree, or a (tree, node) pair given twice:
    trees_well_formed (error)."""
    tree = np.asarray(attributes["nodes_treeids"], dtype=np.int64)
    node = np.asarray(attributes["nodes_nodeids"], dtype=np.int64)
    n = tree.size
    ints = lambda name: np.asarray(attributes.get(name) or [0] * n, dtype=np.int64)  # noqa: E731
    index = {(int(t), int(i)): k for k, (t, i) in enumerate(zip(tree, node))}
    if len(index) != n:
        raise RelationBroken(spec_id, "trees_well_formed", "error", "a (tree id, node id) pair appears twice")

    def child(ids: np.ndarray, leaf: np.ndarray) -> np.ndarray:
        out = np.zeros(n, dtype=np.int64)
        for k in range(n):
            if leaf[k]:
                continue
            target = index.get((int(tree[k]), int(ids[k])))
            if target is None:
                raise RelationBroken(spec_id, "trees_well_formed", "error",
                                     f"node {int(node[k])} of tree {int(tree[k])} names child {int(ids[k])}, no node of its tree")
            out[k] = target
        return out

    modes = list(attributes["nodes_modes"])
    mode = np.array([LEAF if m == "LEAF" else MODES.index(m) for m in modes], dtype=np.int64)
    leaf = mode == LEAF
    roots = np.array([int(np.flatnonzero(tree == t)[0]) for t in sorted(set(tree.tolist()))], dtype=np.int64)
    thresholds = tensor_or_list(attributes, "nodes_values")
    forest = Forest(
        feature=ints("nodes_featureids"),
        mode=mode,
        threshold=np.zeros(n) if thresholds is None else thresholds,
        true_next=child(ints("nodes_truenodeids"), leaf),
        false_next=child(ints("nodes_falsenodeids"), leaf),
        missing_true=ints("nodes_missing_value_tracks_true") >= 1,
        roots=roots,
        members=np.zeros((n, 0)),
    )
    weights = tensor_or_list(attributes, f"{vote_prefix}_weights")
    vote_tree = np.asarray(attributes.get(f"{vote_prefix}_treeids") or [], dtype=np.int64)
    vote_node = np.asarray(attributes.get(f"{vote_prefix}_nodeids") or [], dtype=np.int64)
    target = np.asarray(attributes.get(vote_ids) or [], dtype=np.int64)
    votes = np.full((n, n_targets), np.nan)
    for t, i, c, w in zip(vote_tree, vote_node, target, np.zeros(0) if weights is None else weights):
        k = index.get((int(t), int(i)))
        if k is None or not leaf[k]:
            raise RelationBroken(spec_id, "trees_well_formed", "error", f"a vote for node {int(i)} of tree {int(t)}, no leaf")
        old = votes[k, c]
        if np.isnan(old):
            votes[k, c] = w
        elif function in ("SUM", "AVERAGE"):
            votes[k, c] = old + w
        else:
            votes[k, c] = min(old, w) if function == "MIN" else max(old, w)
    return forest, votes, roots.size
