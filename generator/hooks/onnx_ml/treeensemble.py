"""Hook for onnx_ml::TreeEnsemble: the relation language cannot say "a consistent tree" (branches reaching leaves without a cycle), so real trees are drawn (_forest.py).

X first (at least one feature: a lone leaf is written as one node whose branches both name it,
and that node names feature 0), then one to three trees with every branch mode, BRANCH_MEMBER
sets included, as nodes_* (interior nodes) and leaf_* (one weight and target per leaf)."""
from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

from opconform.generator.draft import Draft
from opconform.generator.families import default
from opconform.generator.hooks.onnx_ml import _forest

attributes = _forest.scalar_attributes


def inputs(draw, d: Draft) -> None:
    default.inputs(draw, d)
    x = d.input("X")
    if x.shape[1] == 0:
        x = default.input_array(draw, d, 0, shape=(x.shape[0], 1))
        d.set_input("X", x)
    n_targets = d.attributes.get("n_targets")
    if not isinstance(n_targets, int) or not 1 <= n_targets <= 5:
        n_targets = draw(st.integers(1, 3))
    d.attributes["n_targets"] = n_targets
    trees = _forest.draw_forest(draw, d, x, n_targets, modes=7)
    _encode(draw, d, trees, x.dtype)


def _encode(draw, d: Draft, trees: list[_forest.Tree], dtype: np.dtype) -> None:
    nodes: list[_forest.Node] = []
    leaves: list[tuple[int, float]] = []  # (target, weight): one vote per leaf in this version
    roots: list[int] = []
    true_ids, false_ids, true_leafs, false_leafs = [], [], [], []

    def place(tree: _forest.Tree, k: int) -> tuple[int, int]:
        """(position, is_leaf) of tree node k, its subtree placed first."""
        node = tree.nodes[k]
        if node.mode < 0:
            target, weight = node.votes[0] if node.votes else (0, 0.0)
            leaves.append((target, weight))
            return len(leaves) - 1, 1
        at = len(nodes)
        nodes.append(node)
        for lst in (true_ids, false_ids, true_leafs, false_leafs):
            lst.append(0)
        true_ids[at], true_leafs[at] = place(tree, node.true_child)
        false_ids[at], false_leafs[at] = place(tree, node.false_child)
        return at, 0

    for tree in trees:
        if tree.nodes[0].mode < 0:  # a lone leaf: one node whose branches both name it
            roots.append(len(nodes))
            nodes.append(_forest.Node(feature=0, mode=0))
            leaf, _ = place(tree, 0)
            true_ids.append(leaf), false_ids.append(leaf), true_leafs.append(1), false_leafs.append(1)
        else:
            roots.append(place(tree, 0)[0])
    members = [v for n in nodes if n.mode == 6 for v in n.members + (float("nan"),)]
    d.attributes.update({
        "tree_roots": roots,
        "nodes_featureids": [n.feature for n in nodes],
        "nodes_modes": np.asarray([n.mode for n in nodes], dtype=np.uint8),
        "nodes_splits": np.asarray([n.threshold for n in nodes], dtype=dtype),
        "nodes_truenodeids": true_ids, "nodes_falsenodeids": false_ids,
        "nodes_trueleafs": true_leafs, "nodes_falseleafs": false_leafs,
        "leaf_targetids": [t for t, _ in leaves],
        "leaf_weights": np.asarray([w for _, w in leaves], dtype=dtype),
    })
    _forest.set_or_omit(d, "nodes_missing_value_tracks_true", [n.missing_true for n in nodes],
                        _forest.given(draw, d, "nodes_missing_value_tracks_true"))
    d.attributes.pop("membership_values", None)
    if members:
        d.attributes["membership_values"] = np.asarray(members, dtype=dtype)
    d.attributes.pop("nodes_hitrates", None)
    if _forest.given(draw, d, "nodes_hitrates"):
        d.attributes["nodes_hitrates"] = np.ones(len(nodes), dtype=np.float32)  # relation hitrates_float
