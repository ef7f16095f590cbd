"""ai.onnx.ml TreeEnsembleRegressor-1 and -3: every row walks every tree to a leaf, the votes of
the leaves reached are aggregated per target (SUM, AVERAGE over the tree count, MIN, MAX), the
base values added, then post_transform applied (oracle/kernels/ml.py). Computed in float64,
rounded once to float32 (Y is tensor(float))."""
from __future__ import annotations

import numpy as np

from opconform.oracle.kernels import ml


@ml.quiet  # NaN and infinite features are data here
def run(spec, inputs, attributes, policies):
    x = np.asarray(inputs[0])
    n_targets = int(attributes["n_targets"])
    function = attributes["aggregate_function"]
    forest, votes, _ = ml.node_tuple_forest(attributes, "target", "target_ids", n_targets, function, spec.id)
    reached = ml.leaves(forest, x.astype(np.float64), spec.id)
    base = ml.tensor_or_list(attributes, "base_values")
    scores = ml.aggregate(votes, reached, function, np.zeros(n_targets) if base is None else base,
                          policies["unvoted_target"], np.float32)
    return (ml.post_transform(scores, attributes["post_transform"], policies, spec.id).astype(np.float32),)
