"""Hook for onnx_ml::TreeEnsembleClassifier: the relation language cannot say "a consistent tree" (child ids naming nodes of the same tree, walks ending at leaves), so real trees are drawn (_forest.py).

X first, then one label list (integers or strings, 1 to 4 labels: two-label models are binary
classifiers), one to three trees with every branch mode voting for the classes; post_transform
comes from the attribute step. A two-label model votes for one class only half the time, as
converters write binary models."""
from __future__ import annotations

from hypothesis import strategies as st

from opconform.generator.draft import Draft
from opconform.generator.families import default
from opconform.generator.hooks.onnx_ml import _forest

attributes = _forest.scalar_attributes


def inputs(draw, d: Draft) -> None:
    default.inputs(draw, d)
    x = d.input("X")
    count = draw(st.integers(1, 4))
    strings = _forest.given(draw, d, "classlabels_strings")
    d.attributes.pop("classlabels_strings", None)
    d.attributes.pop("classlabels_int64s", None)
    if strings:
        d.attributes["classlabels_strings"] = [f"class_{k}" for k in range(count)]
    else:
        d.attributes["classlabels_int64s"] = sorted(draw(st.sets(st.integers(-3, 9), min_size=count, max_size=count)))
    binary = count == 2 and draw(st.booleans())
    trees = _forest.draw_forest(draw, d, x, 1 if binary else count, modes=6)
    if binary:
        d.notes.append("binary:one_class")
    _forest.node_tuples(draw, d, trees, "class", "class_ids")
    _forest.base_values(draw, d, count)
