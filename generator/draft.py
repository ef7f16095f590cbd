"""A case under construction. Steps (family and hook functions) fill it in, in order."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

import numpy as np

from opconform.generator.profiles import Profile
from opconform.model import Case, Expectation, Port, SpecVersion


@dataclass
class Draft:
    """Everything a case is made of, before its expectation is attached.

    Lists are indexed by input port (`dtypes`, `present`) or by concrete input (`inputs`,
    `constant_inputs`; a variadic last port expands to several). `attributes` holds only the
    attributes set explicitly; `resolved` fills in defaults."""

    spec: SpecVersion
    profile: Profile
    attributes: dict[str, Any] = field(default_factory=dict)
    present: list[bool] = field(default_factory=list)
    dtypes: list[str | None] = field(default_factory=list)
    inputs: list[np.ndarray | None] = field(default_factory=list)
    constant_inputs: list[bool] = field(default_factory=list)
    outputs_requested: list[bool] = field(default_factory=list)
    label: str = "valid"
    notes: list[str] = field(default_factory=list)  # what a step aimed at ("values:duplicates")
    # covering-array row this draft must hold (factor name -> value; see generator/pins.py): empty
    # for a free draw
    row: Mapping[str, Any] = field(default_factory=dict)

    @property
    def resolved(self) -> dict[str, Any]:
        return self.spec.resolved_attributes(self.attributes)

    def port_index(self, name: str) -> int:
        for i, p in enumerate(self.spec.inputs):
            if p.name == name:
                return i
        raise KeyError(f"{self.spec.id} has no input {name!r}")

    def input(self, name: str) -> np.ndarray | None:
        return self.inputs[self.port_index(name)]

    def set_input(self, name: str, value: np.ndarray | None) -> None:
        self.inputs[self.port_index(name)] = value

    def port(self, name: str) -> Port:
        return self.spec.inputs[self.port_index(name)]

    def to_case(self, expected: Expectation, seed: int | None = None) -> Case:
        label = self.label + "".join(f";{n}" for n in self.notes)
        return Case(
            spec_id=self.spec.id,
            attributes=dict(self.attributes),
            inputs=tuple(self.inputs),
            outputs_requested=tuple(self.outputs_requested),
            expected=expected,
            seed=seed,
            constant_inputs=tuple(self.constant_inputs),
            label=label,
        )
