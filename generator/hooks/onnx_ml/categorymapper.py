"""Hook for onnx_ml::CategoryMapper: the map's keys drawn from X's own values, so lookups hit (independent draws almost never match) and some miss.

Keys are most of X's distinct values plus one X lacks, each paired with a value of the other kind."""
from __future__ import annotations

from hypothesis import strategies as st

from opconform.generator.draft import Draft
from opconform.generator.families import default


def inputs(draw, d: Draft) -> None:
    default.inputs(draw, d)
    x = d.input("X")
    if x is None:
        return
    text = x.dtype.kind in "OUST"
    present = sorted({str(v) if text else int(v) for v in x.reshape(-1)})
    keys = [v for v in present if draw(st.integers(0, 3)) > 0] + ["not_in_x" if text else _absent(present)]
    others = list(range(len(keys))) if text else [f"label_{k}" for k in range(len(keys))]
    order = draw(st.permutations(range(len(keys))))
    keys = [keys[i] for i in order]
    d.attributes["cats_strings" if text else "cats_int64s"] = keys
    d.attributes["cats_int64s" if text else "cats_strings"] = others
    d.notes.append(f"keys:{len(keys) - 1}of{len(present)}")


def _absent(present: list[int]) -> int:
    """A small int64 X lacks (0, 1, -1, 2, ...): always inside int64's range."""
    taken = set(present)
    return next(v for k in range(len(taken) + 1) for v in (k, -k) if v not in taken)
