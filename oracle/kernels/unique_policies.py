"""The open choices of Unique, as the spec files name them, turned into kernel flags."""
from __future__ import annotations

from typing import Mapping


def unique_flags(policies: Mapping[str, str]) -> dict[str, bool]:
    return {
        "nan_equal": policies.get("nan_equality", "equal") == "equal",
        "nan_first": policies.get("nan_position", "last") == "first",
        "colex": policies.get("subtensor_order", "lexicographic") == "colexicographic",
        "by_last": policies.get("unsorted_order", "first_occurrence") == "last_occurrence",
    }
