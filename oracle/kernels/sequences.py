"""Sequences and optionals (opconform.containers) for the oracle: the operations the sequence
operators share, on SequenceValue and OptionalValue, never changing a value in place."""
from __future__ import annotations

from typing import Any

import numpy as np

from opconform import containers
from opconform.containers import OptionalValue, SequenceValue
from opconform.specs.expr import normalize_axis


def position(p: Any, n: int) -> int:
    """A position input (a scalar tensor, possibly negative) as an index from the front."""
    return normalize_axis(int(np.asarray(p).reshape(-1)[0]), n)  # counted from the back like an axis


def of_tensors(elem_type: str, items: list[np.ndarray]) -> SequenceValue:
    return containers.sequence(elem_type, tuple(np.array(x, copy=True) for x in items))


def replaced(s: SequenceValue, items: list[Any]) -> SequenceValue:
    """The sequence's type with other items (copies: an output never aliases an input)."""
    return SequenceValue(s.type, tuple(np.array(x, copy=True) for x in items))


def element_of(seq_type: str) -> str:
    return containers.element_type(seq_type)


def optional_of(value: Any, type_text: str) -> OptionalValue:
    return containers.optional(type_text, value)


def int64_scalar(v: int) -> np.ndarray:
    return np.array(v, dtype=np.int64)
