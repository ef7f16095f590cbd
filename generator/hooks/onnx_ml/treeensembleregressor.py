"""Hook for onnx_ml::TreeEnsembleRegressor: the relation language cannot say "a consistent tree" (child ids naming nodes of the same tree, walks ending at leaves), so real trees are drawn (_forest.py).

X first (the default step: edge values, NaN among them, exercise missing-value tracking), then one
to three trees over its features with every branch mode, thresholds from X's own values, and
votes for n_targets targets; aggregate_function and post_transform come from the attribute step
(every one of them is a factor of the covering array)."""
from __future__ import annotations

from hypothesis import strategies as st

from opconform.generator.draft import Draft
from opconform.generator.families import default
from opconform.generator.hooks.onnx_ml import _forest


def inputs(draw, d: Draft) -> None:
    default.inputs(draw, d)
    x = d.input("X")
    n_targets = d.attributes.get("n_targets")
    if not isinstance(n_targets, int) or not 1 <= n_targets <= 5:
        n_targets = draw(st.integers(1, 3))
    d.attributes["n_targets"] = n_targets
    trees = _forest.draw_forest(draw, d, x, n_targets, modes=6)
    _forest.node_tuples(draw, d, trees, "target", "target_ids")
    _forest.base_values(draw, d, n_targets)


attributes = _forest.scalar_attributes
