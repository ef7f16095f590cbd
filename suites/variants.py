"""Value variants: more valid cases sharing one generated case's model signature.

A certification run builds one model per signature (operator version, attributes, element types,
ranks, outputs asked) and reuses it. The generator draws every part of a case afresh, so its cases
rarely share a signature; without variants nearly every case would pay for a model of its own.
A variant keeps everything the model depends on (attributes, element types, ranks, constant
inputs, outputs asked) and redraws the fed inputs: every other variant keeps the base case's
shapes, the rest draw new shapes of the same ranks within the size profile; values come from the
base case's own values and, in every other variant, the generator's edge values of the element
type (NaN payloads, infinities, -0.0, extremes...). The oracle judges each variant afresh; a
variant is kept only when it expects what its base expects (outputs for a valid case; an error
for the same broken relation for a must-refuse case, whose broken type or rank variants keep), and
only when its expected outputs are no bigger than the size profile's tensors or its base's: inputs
whose values decide an output's size (Range's start, limit and delta) can otherwise ask a backend
for millions of elements, which tests nothing the base did not and costs seconds. Draws use
NumPy's generator seeded by (seed, case id): same seed, same variants, on any machine.
"""
from __future__ import annotations

import dataclasses
from functools import lru_cache
from typing import Callable

import numpy as np

from opconform import dtypes
from opconform.generator import Profile, edge_values, from_elements, size_profile
from opconform.model import Case, Expectation, SpecVersion


@lru_cache(maxsize=None)
def _edge_pool(name: str) -> np.ndarray | None:
    if dtypes.get(name).kind == "complex":
        return None  # its edge values are per part; the base case's own values serve
    storage = [v for vs in edge_values(name).values() for v in vs]
    return from_elements(name, storage, (len(storage),)) if storage else None


def _shape(rng: np.random.Generator, rank: int, size: Profile) -> tuple[int, ...]:
    sides = rng.integers(1, size.max_side + 1, rank)
    if rank and rng.random() < 0.1:
        sides[rng.integers(rank)] = 0  # empty tensors now and then
    while int(np.prod(sides)) > size.max_elements:
        sides[int(np.argmax(sides))] -= 1
    return tuple(int(s) for s in sides)


def _largest_output(expected: Expectation) -> int:
    return max((o.size for a in expected.alternatives for o in a.outputs if o is not None), default=0)


def _redraw(rng: np.random.Generator, x: np.ndarray, shape: tuple[int, ...], with_edges: bool) -> np.ndarray:
    name = dtypes.name_of(x.dtype)
    pool = x.reshape(-1)
    edges = _edge_pool(name) if with_edges else None
    if edges is not None:
        pool = np.concatenate([pool, edges.astype(x.dtype)]) if pool.size else edges.astype(x.dtype)
    n = int(np.prod(shape))
    if pool.size == 0:
        return np.zeros(shape, x.dtype) if x.dtype != object else np.full(shape, "", dtype=object)
    return pool[rng.integers(0, pool.size, n)].reshape(shape)


def variants(spec: SpecVersion, case: Case, count: int, seed: int, *, size: str,
             expect: Callable) -> list[Case]:
    """Up to `count` variants of a case that expect what it expects (fewer when some do not)."""
    prof = size_profile(size)
    rng = np.random.default_rng([seed, int(case.id, 16)])
    constant = list(case.constant_inputs) + [False] * (len(case.inputs) - len(case.constant_inputs))
    fed = [i for i, x in enumerate(case.inputs) if x is not None and not constant[i]]
    out = []
    for k in range(1, count + 1):
        inputs = list(case.inputs)
        for i in fed:
            x = case.inputs[i]
            shape = x.shape if k % 2 else _shape(rng, x.ndim, prof)
            inputs[i] = _redraw(rng, x, shape, with_edges=k % 4 >= 2)
        expected = expect(spec, inputs, case.attributes)
        if expected.kind == case.expected.kind and expected.relation == case.expected.relation \
                and _largest_output(expected) <= max(prof.max_elements, _largest_output(case.expected)):
            out.append(dataclasses.replace(case, inputs=tuple(inputs), expected=expected, label=f"{case.label};variant"))
    return out
