"""Hook for onnx::NegativeLogLikelihoodLoss: targets that are classes in [0, C) (or ignore_index,
which the hook may set to a class or to a value outside), weight of size C."""
from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

from opconform import dtypes
from opconform.generator import shapes
from opconform.generator.draft import Draft
from opconform.generator.families.default import input_array
from opconform.generator.hooks.onnx._indexing import break_per_channel, ints


def loss_inputs(names: tuple[str, str, str]):
    """The inputs step for a loss with ports (scores, targets, weights) named `names`."""
    def inputs(draw, d: Draft) -> None:
        scores_port = d.port(names[0])
        shape = draw(shapes.shapes(draw(shapes.ranks(scores_port, d.profile)), d.profile, min_side=1))
        scores = input_array(draw, d, 0, shape=shape)
        c = shape[1]
        target = ints(draw, shape[:1] + shape[2:], 0, c - 1)
        if "ignore_index" in d.attributes or draw(st.booleans()):
            ignore = draw(st.sampled_from([0, c - 1, -1, c, -100]))
            d.attributes["ignore_index"] = ignore
            target = np.where(ints(draw, target.shape, 0, 3) == 0, ignore, target)
            if d.resolved["reduction"] == "mean" and np.all(target == ignore):
                target.reshape(-1)[0] = (ignore + 1) % c if 0 <= ignore < c - 1 else 0
        weights = input_array(draw, d, 2, shape=(c,)) if d.present[2] else None
        d.inputs = [scores, target.astype(dtypes.numpy_dtype(d.dtypes[1])), weights]
    return inputs


inputs = loss_inputs(("input", "target", "weight"))


def break_targets(name: str, scores: str, without_ignore: bool = False):
    """One target C (a class that does not exist), ignore_index kept away from it. With
    `without_ignore` the relation is the one that holds when ignore_index is absent, so the
    breaker drops the attribute first (its targets become class 0): reached by construction."""
    def breaker(draw, d: Draft) -> None:
        t = np.array(d.input(name), copy=True)
        c = d.input(scores).shape[1]
        if t.size == 0:
            return
        if without_ignore and "ignore_index" in d.attributes:
            t[t == d.attributes.pop("ignore_index")] = 0
        t.reshape(-1)[draw(st.integers(0, t.size - 1))] = c
        if d.attributes.get("ignore_index") == c:
            d.attributes["ignore_index"] = -1
        d.set_input(name, t)
    return breaker


def break_target_shape(name: str):
    """Targets with one more entry along the batch axis than the scores have (valid classes, 0)."""
    def breaker(draw, d: Draft) -> None:
        t = d.input(name)
        shape = (t.shape[0] + 1,) + t.shape[1:] if t.ndim else (2,)
        d.set_input(name, np.zeros(shape, dtype=t.dtype))
    return breaker


BREAK = {"target_shape": break_target_shape("target"),
         "targets_are_classes": break_targets("target", "input", without_ignore=True),
         "targets_are_classes_or_ignored": break_targets("target", "input"),
         "weight_per_class": break_per_channel("weight")}
