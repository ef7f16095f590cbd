"""The open choices of Unique, as the spec files name them, turned into kernel flags."""
from __future__ import annotations

from typing import Mapping

import numpy as np

from opconform import dtypes


def unique_flags(policies: Mapping[str, str]) -> dict[str, bool | str]:
    return {
        "nan_equal": policies.get("nan_equality", "equal") == "equal",
        "nan_first": policies.get("nan_position", "last") == "first",
        "colex": policies.get("subtensor_order", "lexicographic") == "colexicographic",
        "by_last": policies.get("unsorted_order", "first_occurrence") == "last_occurrence",
        "zeros_equal": policies.get("zero_equality", "equal") == "equal",
        "complex_order": policies.get("complex_order", "lexicographic"),
        "string_order": policies.get("string_order", "code_point"),
    }


def policies_in_play(x: np.ndarray, axis: int | None, sorted: bool) -> set[str]:
    """The policies whose options can give different outputs for this input: the others need not
    be run (each adds a factor to the oracle's combinations). NaN policies need a NaN, the zero
    policy a -0.0 beside another zero, the orders a sorted output of complex numbers or strings."""
    kind = dtypes.get(dtypes.name_of(x.dtype)).kind
    live = {"unsorted_order"} if not sorted else set()
    if sorted and axis is not None:
        live.add("subtensor_order")
    if kind in ("float", "complex"):
        parts = [x.real, x.imag] if kind == "complex" else [x]
        with np.errstate(invalid="ignore"):
            wide = [np.asarray(p, np.float64) for p in parts]
            if any(np.isnan(w).any() for w in wide):
                live |= {"nan_equality", "nan_position"}
            zero = [w == 0 for w in wide]
            if any((z & np.signbit(w)).any() for z, w in zip(zero, wide)) and sum(int(z.sum()) for z in zero) > 1:
                live.add("zero_equality")
    if sorted and kind == "complex":
        live.add("complex_order")
    if sorted and kind == "string":
        live.add("string_order")
    return live
