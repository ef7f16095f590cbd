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
whose values decide an output's size (a Range whose delta is an edge value) can otherwise ask a backend
for millions of elements, which tests nothing the base did not and costs seconds. An input whose
port declares a value range (`values: {typical: ...}`: Tile's repeats, OneHot's depth, a window's
size) is drawn again within it, its bounds evaluated on the variant's other inputs, so that such
inputs are fed and varied like any other rather than frozen as constants. Draws use NumPy's
generator seeded by (seed, case id): same seed, same variants, on any machine.
"""
from __future__ import annotations

import dataclasses
from functools import lru_cache
from typing import Callable

import numpy as np

from opconform import containers, dtypes, specs
from opconform.generator.profiles import Profile, get as size_profile
from opconform.generator.values import edge_values, from_elements, multiples, range_steps
from opconform.model import Case, Expectation, Port, SpecVersion
from opconform.specs import expr


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
    return max((containers.length(o) for a in expected.alternatives for o in a.outputs if o is not None), default=0)


def _container_variant(rng: np.random.Generator, x, k: int, prof: Profile):
    """A sequence, optional or map of the same type and structure (its model is the same), each
    tensor redrawn as a tensor input is; a map's keys kept, its values redrawn."""
    if isinstance(x, containers.SequenceValue):
        return containers.SequenceValue(x.type, tuple(_container_variant(rng, v, k, prof) for v in x.items))
    if isinstance(x, containers.OptionalValue):
        return x if x.value is None else containers.OptionalValue(x.type, _container_variant(rng, x.value, k, prof))
    if isinstance(x, containers.MapValue):
        return containers.MapValue(x.type, x.keys, _redraw(rng, x.values, x.values.shape, with_edges=k % 4 >= 2))
    return _redraw(rng, x, x.shape if k % 2 else _shape(rng, x.ndim, prof), with_edges=k % 4 >= 2)


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


def _port(spec: SpecVersion, i: int) -> Port:
    return spec.inputs[min(i, len(spec.inputs) - 1)]


def _within_range(rng: np.random.Generator, spec: SpecVersion, case: Case, inputs: list, i: int,
                  shape: tuple[int, ...]) -> np.ndarray | None:
    """Input i drawn again within its port's value range (None: no range, or unevaluable)."""
    r = _port(spec, i).values
    if r is None:
        return None
    x = case.inputs[i]
    try:
        env = specs.environment(spec, inputs, case.attributes) if r.reads_others else {}
        lo, hi = (float(expr.evaluate(b, env)) if isinstance(b, str) else float(b) for b in (r.lo, r.hi))
    except (expr.ExprError, TypeError, ValueError, IndexError):
        return None
    name = dtypes.name_of(x.dtype)
    steps = range_steps(name, lo, hi, r.step)
    if steps is None:
        return None
    k_lo, k_hi, step = steps
    return multiples(name, rng.integers(k_lo, k_hi + 1, shape), step, shape)


def variants(spec: SpecVersion, case: Case, count: int, seed: int, *, size: str,
             expect: Callable) -> list[Case]:
    """Up to `count` variants of a case that expect what it expects (fewer when some do not)."""
    prof = size_profile(size)
    rng = np.random.default_rng([seed, int(case.id, 16)])
    constant = list(case.constant_inputs) + [False] * (len(case.inputs) - len(case.constant_inputs))
    fed = [i for i, x in enumerate(case.inputs) if x is not None and not constant[i]]
    # inputs whose value range reads other inputs (OneHot's indices read depth) come last
    fed.sort(key=lambda i: (r := _port(spec, i).values) is not None and r.reads_others)
    out = []
    for k in range(1, count + 1):
        inputs = list(case.inputs)
        for i in fed:
            x = case.inputs[i]
            if containers.is_container(x):
                inputs[i] = _container_variant(rng, x, k, prof)
                continue
            shape = x.shape if k % 2 else _shape(rng, x.ndim, prof)
            ranged = _within_range(rng, spec, case, inputs, i, shape)
            inputs[i] = ranged if ranged is not None else _redraw(rng, x, shape, with_edges=k % 4 >= 2)
        expected = expect(spec, inputs, case.attributes)
        if expected.kind == case.expected.kind and expected.relation == case.expected.relation \
                and _largest_output(expected) <= max(prof.max_elements, _largest_output(case.expected)):
            out.append(dataclasses.replace(case, inputs=tuple(inputs), expected=expected, label=f"{case.label};variant"))
    return out
