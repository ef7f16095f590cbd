"""t-wise covering arrays (generator/covering.py): coverage, constraints, determinism, size, speed."""
from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
import time

import pytest
from hypothesis import given, strategies as st

from opconform.generator.covering import covered, covering_array
from opconform.generator.factors import Factor


def uniform(count: int, size: int) -> list[Factor]:
    return [Factor(f"f{i}", tuple(range(size))) for i in range(count)]


class Forbidden:
    """A constraint set for tests: partial assignments that hold one of these value tuples are out."""

    def __init__(self, tuples: list[dict[str, object]]):
        self.tuples = tuples
        self.scope = sorted({name for t in tuples for name in t})

    def __call__(self, assignment) -> bool:
        return not any(all(assignment.get(n, object()) == v for n, v in t.items()) for t in self.tuples)


def brute_force(fs: list[Factor], t: int, allowed) -> set[tuple]:
    """Every t-tuple some allowed full row holds."""
    names = [f.name for f in fs]
    rows = [dict(zip(names, combo)) for combo in itertools.product(*(f.values for f in fs))]
    return covered([r for r in rows if allowed is None or allowed(r)], names, t)


@st.composite
def problems(draw):
    sizes = draw(st.lists(st.integers(1, 4), min_size=1, max_size=6))
    fs = [Factor(f"f{i}", tuple(f"v{j}" for j in range(s))) for i, s in enumerate(sizes)]
    t = draw(st.integers(1, 3))
    forbidden = []
    for _ in range(draw(st.integers(0, 4))):
        chosen = draw(st.lists(st.sampled_from(fs), min_size=1, max_size=min(3, len(fs)), unique_by=lambda f: f.name))
        forbidden.append({f.name: draw(st.sampled_from(f.values)) for f in chosen})
    return fs, t, Forbidden(forbidden) if forbidden else None, draw(st.integers(0, 2**32))


@given(problems(), st.booleans())
def test_every_allowed_tuple_is_covered_and_no_row_is_forbidden(problem, give_scope):
    fs, t, allowed, seed = problem
    scope = allowed.scope if (allowed is not None and give_scope) else None
    rows = covering_array(fs, t, allowed=allowed, scope=scope, seed=seed)
    names = [f.name for f in fs]
    want = brute_force(fs, t, allowed)
    assert all(list(r) == names for r in rows)
    assert all(r[f.name] in f.values for r in rows for f in fs)
    assert allowed is None or all(allowed(r) for r in rows)
    assert want <= covered(rows, names, t)
    assert bool(rows) == bool(want)  # no rows only when nothing at all is allowed


def test_constraints_with_implied_exclusions():
    # f0=a forces f1=x (a, y forbidden); (f1=x, f2=p) is forbidden too, so (f0=a, f2=p) is in no allowed row
    fs = [Factor("f0", ("a", "b")), Factor("f1", ("x", "y")), Factor("f2", ("p", "q"))]
    allowed = Forbidden([{"f0": "a", "f1": "y"}, {"f1": "x", "f2": "p"}])
    rows = covering_array(fs, 2, allowed=allowed, scope=allowed.scope)
    assert all(allowed(r) for r in rows)
    assert covered(rows, ["f0", "f1", "f2"], 2) == brute_force(fs, 2, allowed)
    assert not any(r["f0"] == "a" and r["f2"] == "p" for r in rows)


def test_a_large_scope_is_searched_instead_of_enumerated():
    # 2**17 scope combinations: past the enumeration limit, each question is a depth-first search
    fs = uniform(17, 2)
    allowed = Forbidden([{"f0": 1, "f1": 1}, {"f2": 0, "f16": 0}])
    rows = covering_array(fs, 2, allowed=allowed, seed=1)  # scope: every factor
    names = [f.name for f in fs]
    got = covered(rows, names, 2)
    assert all(allowed(r) for r in rows)
    for a, b in itertools.combinations(names, 2):
        for va, vb in itertools.product((0, 1), repeat=2):
            forbidden = {a: va, b: vb} in ({"f0": 1, "f1": 1}, {"f2": 0, "f16": 0})
            assert (((a, b), (va, vb)) in got) != forbidden, (a, va, b, vb)


def test_edge_cases():
    assert covering_array([], 2) == [{}]
    assert sorted(r["a"] for r in covering_array([Factor("a", (1, 2, 3))], 2)) == [1, 2, 3]
    full = covering_array(uniform(3, 3), 5)  # t past the factor count: every combination
    assert len(full) == 27 and len({tuple(r.values()) for r in full}) == 27
    assert covering_array(uniform(2, 2), 2, allowed=lambda a: False, scope=["f0"]) == []
    assert covering_array(uniform(2, 2), 2, allowed=lambda a: False, scope=[]) == []
    with pytest.raises(ValueError):
        covering_array([Factor("a", (1,)), Factor("a", (2,))], 2)
    with pytest.raises(ValueError):
        covering_array(uniform(2, 2), 0)


@given(problems(), st.data())
def test_given_rows_come_first_and_the_rest_covers_what_they_leave(problem, data):
    fs, t, allowed, seed = problem
    names = [f.name for f in fs]
    every = [dict(zip(names, combo)) for combo in itertools.product(*(f.values for f in fs))]
    every = [r for r in every if allowed is None or allowed(r)]
    given_rows = data.draw(st.lists(st.sampled_from(every), max_size=6)) if every else []
    rows = covering_array(fs, t, allowed=allowed, scope=None if allowed is None else allowed.scope, seed=seed,
                          given=given_rows)
    assert rows[:len(given_rows)] == given_rows  # as given, in order, unchanged
    assert covered(rows, names, t) == brute_force(fs, t, allowed)
    assert all(allowed is None or allowed(r) for r in rows)


def test_given_rows_save_rows_and_bad_ones_are_refused():
    fs = uniform(4, 3)
    plain = covering_array(fs, 2, seed=5)
    seeds = [{f"f{i}": v for i in range(4)} for v in range(3)]  # the diagonal: 3 rows
    rows = covering_array(fs, 2, seed=5, given=seeds)
    assert len(rows) - len(seeds) < len(plain)  # fewer rows of its own than without them
    with pytest.raises(ValueError, match="does not hold a value of every factor"):
        covering_array(fs, 2, given=[{"f0": 0}])
    with pytest.raises(ValueError, match="does not hold a value of every factor"):
        covering_array(fs, 2, given=[{"f0": 9, "f1": 0, "f2": 0, "f3": 0}])
    forbid = Forbidden([{"f0": 0, "f1": 0}])
    with pytest.raises(ValueError, match="breaks the constraints"):
        covering_array(fs, 2, allowed=forbid, scope=forbid.scope, given=[seeds[0]])


@pytest.mark.parametrize("count, size, t, at_most, ipog", [
    (4, 3, 2, 10, "9 (an orthogonal array)"),
    (10, 2, 3, 20, "~18"),
    (10, 5, 2, 50, "48 (Lei et al. 2007)"),
    (10, 5, 3, 320, "308 (Lei et al. 2007)"),
    (10, 10, 2, 180, "~170"),
])
def test_sizes_are_near_ipog(count, size, t, at_most, ipog):
    rows = covering_array(uniform(count, size), t, seed=0)
    print(f"{count} factors of {size} values, t={t}: {len(rows)} rows (IPOG: {ipog})")
    assert size ** t <= len(rows) <= at_most


def test_speed():
    # budgets with room for a loaded 2-core machine (measured unloaded: 0.1 s and 0.2 s)
    start = time.perf_counter()
    rows = covering_array(uniform(10, 30), 2)
    assert time.perf_counter() - start < 3.0 and len(rows) < 1500
    start = time.perf_counter()
    covering_array(uniform(10, 10), 3)
    assert time.perf_counter() - start < 5.0


_SCRIPT = """
import json, sys
from opconform import specs
from opconform.generator.covering import covering_array
from opconform.generator.factors import constraints, factors
out = {}
for sid in sys.argv[2:]:
    v = specs.load(sid)
    fs, cs = factors(v), constraints(v)
    out[sid] = [[repr(x) for x in r.values()] for r in covering_array(fs, 3, allowed=cs, scope=cs.scope, seed=sys.argv[1])]
print(json.dumps(out))
"""
SPEC_IDS = ["onnx::Unique-11", "onnx::Mod-13", "onnx::Split-18", "onnx::LayerNormalization-17", "openvino::Unique-10"]


@pytest.mark.parametrize("hash_seed", ["0", "12345"])
def test_same_seed_same_rows_in_another_process(hash_seed):
    def here():
        from opconform import specs
        from opconform.generator.factors import constraints, factors
        out = {}
        for sid in SPEC_IDS:
            v = specs.load(sid)
            fs, cs = factors(v), constraints(v)
            out[sid] = [[repr(x) for x in r.values()]
                        for r in covering_array(fs, 3, allowed=cs, scope=cs.scope, seed="2024")]
        return out

    env = dict(os.environ, PYTHONHASHSEED=hash_seed)
    fresh = subprocess.run([sys.executable, "-c", _SCRIPT, "2024", *SPEC_IDS], capture_output=True, text=True,
                           check=True, env=env)
    assert json.loads(fresh.stdout) == here()


def test_seeds_vary_the_rows_and_a_seed_repeats_them():
    fs = uniform(5, 4)
    assert covering_array(fs, 2, seed=1) == covering_array(fs, 2, seed=1)
    assert covering_array(fs, 2, seed=1) != covering_array(fs, 2, seed=2)
