"""Hook for onnx::LayerNormalization: Scale and B unidirectionally broadcastable to X (a trailing
part of X's shape, some dimensions 1), the axis drawn after X's rank."""
from __future__ import annotations

from hypothesis import strategies as st

from opconform.generator.draft import Draft
from opconform.generator.families.default import input_array
from opconform.generator.hooks.onnx._indexing import draw_axis, no_dependent_attributes

dependent_attributes = no_dependent_attributes


def _broadcastable_to(draw, shape: tuple) -> tuple:
    tail = shape[draw(st.integers(0, len(shape))):]
    return tuple(draw(st.sampled_from([n, 1])) for n in tail)


def inputs(draw, d: Draft) -> None:
    x = input_array(draw, d, 0)
    draw_axis(draw, d, x.ndim)
    d.inputs = [x, input_array(draw, d, 1, shape=_broadcastable_to(draw, x.shape)),
                input_array(draw, d, 2, shape=_broadcastable_to(draw, x.shape)) if d.present[2] else None]


def _break(name: str):
    def breaker(draw, d: Draft) -> None:
        """The named input two longer than X's last dimension (neither equal nor 1)."""
        i = d.port_index(name)
        d.present[i] = True
        d.inputs[i] = input_array(draw, d, i, shape=(d.input("X").shape[-1] + 2,))
    return breaker


BREAK = {"scale_unidirectional_broadcastable": _break("Scale"), "bias_unidirectional_broadcastable": _break("B")}
