"""ai.onnx.ml TreeEnsemble-5: interior nodes (nodes_*) and leaves (leaf_*) in one index space,
every row walked down every tree at once (oracle/kernels/ml.py), leaf weights aggregated per
target (SUM, AVERAGE over len(tree_roots), MIN, MAX), then post_transform. BRANCH_MEMBER sets are
read from membership_values, each ended by a NaN. Computed in float64, rounded once to T."""
from __future__ import annotations

import numpy as np

from opconform.model import RelationBroken
from opconform.oracle.kernels import ml

AGGREGATES = ("AVERAGE", "SUM", "MIN", "MAX")


def _member_sets(modes: np.ndarray, members: np.ndarray | None) -> np.ndarray:
    """(nodes, k) member values padded with NaN, one row per node (only BRANCH_MEMBER rows filled)."""
    sets: list[list[float]] = []
    current: list[float] = []
    for v in [] if members is None else np.asarray(members, dtype=np.float64).reshape(-1):
        if np.isnan(v):
            sets.append(current)
            current = []
        else:
            current.append(float(v))
    width = max([len(s) for s in sets] + [0])
    out = np.full((modes.size, width), np.nan)
    for k, node in enumerate(np.flatnonzero(modes == 6)):
        out[node, : len(sets[k])] = sets[k]
    return out


def _with_leaf_rows(members: np.ndarray, count: int) -> np.ndarray:
    return np.concatenate([members, np.full((count, members.shape[1]), np.nan)])


@ml.quiet  # NaN and infinite features are data here
def run(spec, inputs, attributes, policies):
    x = np.asarray(inputs[0])
    n_targets = int(attributes["n_targets"])
    modes = np.asarray(attributes["nodes_modes"]).reshape(-1).astype(np.int64)
    n = modes.size
    leaf_targets = np.asarray(attributes["leaf_targetids"], dtype=np.int64)
    weights = np.asarray(attributes["leaf_weights"]).reshape(-1).astype(np.float64)
    count = leaf_targets.size

    def branch(ids: str, leafs: str) -> np.ndarray:
        pos = np.asarray(attributes[ids], dtype=np.int64)
        leaf = np.asarray(attributes[leafs], dtype=np.int64) == 1
        bad = np.where(leaf, (pos < 0) | (pos >= count), (pos < 0) | (pos >= n))
        if bad.any():
            raise RelationBroken(spec.id, "trees_well_formed", "error", f"{ids} names a position past its list")
        return np.where(leaf, pos + n, pos)

    tracks = attributes.get("nodes_missing_value_tracks_true")
    forest = ml.Forest(
        feature=np.concatenate([np.asarray(attributes["nodes_featureids"], dtype=np.int64), np.zeros(count, np.int64)]),
        mode=np.concatenate([modes, np.full(count, ml.LEAF)]),
        threshold=np.concatenate([np.asarray(attributes["nodes_splits"]).reshape(-1).astype(np.float64), np.zeros(count)]),
        true_next=np.concatenate([branch("nodes_truenodeids", "nodes_trueleafs"), np.zeros(count, np.int64)]),
        false_next=np.concatenate([branch("nodes_falsenodeids", "nodes_falseleafs"), np.zeros(count, np.int64)]),
        missing_true=np.concatenate([np.asarray(tracks if tracks else [0] * n, dtype=np.int64) >= 1, np.zeros(count, bool)]),
        roots=np.asarray(attributes["tree_roots"], dtype=np.int64),
        members=_with_leaf_rows(_member_sets(modes, attributes.get("membership_values")), count),
    )
    function = AGGREGATES[int(attributes["aggregate_function"])]
    votes = np.full((n + count, n_targets), np.nan)
    votes[n + np.arange(count), leaf_targets] = weights  # one leaf, one target
    reached = ml.leaves(forest, x.astype(np.float64), spec.id)
    scores = ml.aggregate(votes, reached, function, np.zeros(n_targets), policies["unvoted_target"], x.dtype.type)
    name = ml.POST_TRANSFORMS[int(attributes["post_transform"])]
    return (ml.post_transform(scores, name, policies, spec.id).astype(x.dtype),)
