"""Hook for onnx::Pad: pads of length 2 * (number of axes), small and sometimes negative
(cropping), within what reflect/edge/wrap can fill; axes (from version 18) distinct."""
from __future__ import annotations

from hypothesis import strategies as st

from opconform.generator.draft import Draft
from opconform.specs import normalize_axis
from opconform.generator.families.default import input_array
from opconform.generator.hooks.onnx._layout import distinct_axes, set_ints


def _pad_range(mode: str, dim: int) -> tuple[int, int]:
    if mode == "reflect":
        return 0, dim if dim > 1 else 0
    if mode in ("edge", "wrap"):
        return 0, (dim if mode == "wrap" else 3) if dim else 0
    return -(dim // 2), 3  # two crops of at most half leave a non-negative size


def inputs(draw, d: Draft) -> None:
    data = input_array(draw, d, 0)
    n_inputs = len(d.spec.inputs)
    d.inputs = [data] + [None] * (n_inputs - 1)
    d.present = [True] + [False] * (n_inputs - 1)
    mode = d.resolved.get("mode", "constant")
    rank = data.ndim
    axes = list(range(rank))
    if n_inputs > 3 and rank and draw(st.booleans()):
        axes = distinct_axes(draw, rank, min_size=1)
        set_ints(d, "axes", axes)
    dims = [data.shape[normalize_axis(a, rank)] for a in axes]
    begin = [draw(st.integers(*_pad_range(mode, n))) for n in dims]
    end = [draw(st.integers(max(_pad_range(mode, n)[0], -n - b), _pad_range(mode, n)[1])) for n, b in zip(dims, begin)]
    set_ints(d, "pads", begin + end)
    if draw(st.booleans()):
        d.present[2] = True
        d.set_input("constant_value", input_array(draw, d, 2, shape=draw(st.sampled_from([(), (1,)]))))


def _break_output_size(draw, d: Draft) -> None:
    d.attributes["mode"] = "constant"
    data = d.inputs[0]
    n = len(d.input("pads")) // 2
    set_ints(d, "pads", [-(data.shape[0] + 1) if data.ndim else -1] + [0] * (2 * n - 1))


BREAK = {
    "output_dims_nonnegative": _break_output_size,
}
