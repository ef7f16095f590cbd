"""Holding a spec's elementwise value relations by replacing the elements that break them.

A relation such as `all(abs(float64(data)) <= 2 ** 10) and all(float64(data) > 0)` (integer
ReduceLogSum) or `all(isnan(scores) | (abs(scores) <= max))` (SoftmaxCrossEntropyLoss) says
something about each element of one input. A conjunct that reads the values of just one input of
one element (CumSum's `-rank(x) <= values(axis)[0] <= rank(x) - 1`, TopK's K) is held the same
way: that element is replaced by a value that holds it. Drawing whole tensors and rejecting the ones where
some element breaks it almost never succeeds for tensors of hundreds of elements, so a covering
row pinned to an integer type could not be drawn at all. Instead, each `all(...)` term of a
relation that applies is evaluated on the drawn input; the elements where it is false are
replaced by values that hold every such term of that input: elements of the same tensor that
hold them (keeping its value classes) and the type's plain values.

    >>> plan = terms(spec)          # once per spec version
    >>> repair(draw, d, plan)       # after the steps, before the relations are checked

Nothing here decides validity: the draft's relations are all checked afterwards as before, so a
term that is not really elementwise (a reduction inside `all`) at worst leaves a draft that is
then rejected.

Relations over whole lists (distinct values, a list attribute's permutation, values naming
another input's dimensions or spelling a shape) are held by `generator/list_relations.py`, in
phases around the elementwise replacement (`repair` runs them). A term that reads the size of the
input it repairs (Unsqueeze's output rank counts its axes) is probed with candidates laid out in
that input's own shape. After a must-refuse case's break, `repair(..., broken=relation)` holds
the other relations without undoing it: the elements that break `relation` stay, and a list fix
that would rewrite what it reads is left out.
"""
from __future__ import annotations

import ast
import functools
import weakref
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np
from hypothesis import strategies as st
from opconform import dtypes, specs
from opconform.generator import list_relations, pins, shapes, solver
from opconform.generator.draft import Draft
from opconform.generator.values import edge_values, from_elements, integers, multiples, plain_values, range_steps
from opconform.model import SpecVersion
from opconform.specs import expr

_POOL = 256  # replacement values kept per input: the tensor's own good elements first
_PLACES = 8  # elements tried when breaking a term that reads its input's size


@dataclass(frozen=True)
class Term:
    """One `all(...)` conjunct of a relation: the elementwise test and when it applies."""

    relation: str
    when: Callable[[dict], Any] | None
    test: Callable[[dict], Any]
    inputs: tuple[str, ...]  # the spec's inputs the test names: the one whose shape it has is repaired
    scalar: bool = False  # not an all(...): a test of one input of one element (CumSum's axis, TopK's K)
    sized: bool = False  # reads the size or shape of an input it repairs: candidates are probed in its shape


# id(spec) -> (weak reference to spec, its terms): asked for by every draft strategy, breaker and
# must-refuse strategy, and reading them substitutes symbols into every relation's tree
_TERMS: dict[int, tuple[weakref.ref, tuple["Term", ...]]] = {}


def terms(spec: SpecVersion) -> tuple[Term, ...]:
    """The `all(...)` conjuncts of the spec's relations that read an input's values, and the
    conjuncts that read the values of just one input (scalar terms); once per spec version."""
    entry = _TERMS.get(id(spec))
    if entry is not None and entry[0]() is spec:
        return entry[1]
    found = _read_terms(spec)
    key = id(spec)
    _TERMS[key] = (weakref.ref(spec, lambda _, key=key: _TERMS.pop(key, None)), found)
    return found


def _read_terms(spec: SpecVersion) -> tuple[Term, ...]:
    from opconform.generator.solver import conjuncts  # the same conjuncts, symbols substituted

    inputs = {p.name for p in spec.inputs if not p.variadic}  # a variadic port is a tuple of tensors
    lists = {a.name for a in spec.attributes if a.type in ("ints", "floats")}
    out = []
    for rid, when, part in conjuncts(spec):
        if isinstance(part, ast.Call) and getattr(part.func, "id", "") == "all" and len(part.args) == 1:
            # an ints attribute is repaired as a 1-D int64 input (CenterCropPad's axes in [-r, r-1])
            named = _in_text_order(part.args[0], list_relations.value_reads(part.args[0], inputs | lists))  # rank(data) alone is not repaired
            if named:
                out.append(Term(rid, when, expr.compiled(ast.unparse(part.args[0])), named,
                                sized=list_relations.reads_structure(part.args[0], set(named))))
        elif len(read := list_relations.value_reads(part, inputs)) == 1 and not list_relations.claims(part, inputs, lists):
            out.append(Term(rid, when, expr.compiled(ast.unparse(part)), tuple(read), scalar=True))
    return tuple(out)


def _in_text_order(node: ast.AST, names: set[str]) -> tuple[str, ...]:
    """`names` in the order the expression first names them (the first is the one a term repairs
    where several have its shape: ConvTranspose's output_padding before strides)."""
    at = sorted((n.col_offset, n.id) for n in ast.walk(node) if isinstance(n, ast.Name) and n.id in names)
    return tuple(dict.fromkeys(name for _, name in at))


def repair(draw, d: Draft, plan: tuple[Term, ...], broken: str | None = None) -> None:
    """Replace, in each input, the elements that break an applicable term, and hold the spec's
    list forms around that (see the module text). broken: the relation a must-refuse case has
    just broken; its own terms and forms are left out, and what it reads is kept as the break
    left it (without it, a fresh draft: list forms drawn as for a new case)."""
    forms = tuple(f for f in list_relations.forms(d.spec) if f.relation != broken)
    kept = _kept(d, plan, broken) if broken is not None else {}
    plan = tuple(t for t in plan if t.relation != broken)
    if not plan and not forms:
        return
    drawn = repr(d.attributes) if broken is None else None
    _repair(draw, d, plan, forms, kept, broken)
    if drawn is not None and repr(d.attributes) != drawn:
        # a shape fix read an attribute as the steps drew it (Conv's kernel extents within pads
        # drawn negative): the fixes broken now run again, then the list forms reading the new shapes
        solver.compile_plan(d.spec).apply_broken(draw, d)
        list_relations.draw_lists(draw, d, forms, kept, fresh=False)
        _replace(draw, d, plan, kept)  # and the terms read repaired values (a pool's kernel within repaired pads)


def _repair(draw, d: Draft, plan: tuple[Term, ...], forms: tuple, kept: dict, broken: str | None) -> None:
    list_relations.draw_lists(draw, d, forms, kept, fresh=broken is None)
    _replace(draw, d, plan, kept, fresh=broken is None)
    if forms:
        candidates = functools.partial(_candidates, plan=plan, forms=forms)
        if list_relations.hold_distinct(draw, d, forms, kept, candidates, drop=broken is None):
            if broken is None:  # fewer elements: a shape fix reading the size reads another one (CenterCropPad's shape, one per axis)
                solver.compile_plan(d.spec).apply(draw, d)
            _replace(draw, d, plan, kept, fresh=broken is None)  # and so may a term
            list_relations.hold_distinct(draw, d, forms, kept, candidates, drop=False)
        list_relations.hold_sorted(d, forms, kept)
        if list_relations.hold_lengths(draw, d, forms, kept):  # new elements: their terms held too
            _replace(draw, d, plan, kept, fresh=broken is None)
        list_relations.hold_dims(draw, d, forms, kept)


def _kept(d: Draft, plan: tuple[Term, ...], broken: str) -> dict[str, np.ndarray | bool]:
    """What the broken relation reads, as the break left it: per input the elements that fail
    its terms, and all of what its list forms rewrite (a later fix would otherwise undo the break)."""
    env = specs.environment(d.spec, d.inputs, d.attributes)
    kept: dict[str, np.ndarray | bool] = {}
    for t in plan:
        if t.relation == broken and (target := _evaluate(t, env))[0] is not None:
            kept[target[0]] = kept.get(target[0], False) | ~target[1]
    for f in list_relations.forms(d.spec):
        if f.relation == broken:
            kept[f.target] = True
    return kept


def _replace(draw, d: Draft, plan: tuple[Term, ...], kept: dict, fresh: bool = True) -> None:
    """The elementwise phase: each input's elements breaking an applicable term (and not kept)
    replaced by values that hold all of its terms."""
    if not plan:
        return
    env = specs.environment(d.spec, d.inputs, d.attributes)
    failing: dict[str, list[Term]] = {}
    for t in plan:
        target, ok = _evaluate(t, env)
        if target is not None and not np.all(ok):
            failing.setdefault(target, []).append(t)
    for name, broken in failing.items():
        tests = [t for t in plan if _target(t, env) == name]  # the replacements must hold all of them
        x = list_relations.values_of(env, name)
        good = np.ones(x.shape, dtype=bool)
        for t in tests:
            good &= _evaluate(t, env)[1]
        bad = np.flatnonzero(~good & ~np.broadcast_to(np.asarray(kept.get(name, False), dtype=bool), x.shape))
        if bad.size == 0:
            continue
        candidates = _range_values(d, name, x)
        if not all(_probeable(t, env, name, x) for t in tests):
            # a test reading other elements of x (rois[:, [0, 1, 0, 1]]): each element fixed where it stands
            fixed = _in_place(draw, x, good, bad, tests, env, name, candidates)
            if fixed is not None:
                list_relations.store(d, name, fixed)
                env = specs.environment(d.spec, d.inputs, d.attributes)
                continue
        pool = _pool(x, good, tests, env, name, candidates)
        if pool.size == 0:
            if fresh:  # after a break, leaving an input out could mend what was broken
                _leave_out(d, name)  # nothing holds them: an optional input goes, else the draft is rejected
            env = specs.environment(d.spec, d.inputs, d.attributes)
            continue
        # one choice for all of them, shrinking toward the pool's first values
        picks = integers(draw, 0, pool.size - 1, bad.size)
        fixed = x.copy()
        fixed.reshape(-1)[bad] = pool[np.asarray(picks, dtype=np.int64)]
        list_relations.store(d, name, fixed)
        env = specs.environment(d.spec, d.inputs, d.attributes)


def _probeable(t: Term, env: dict, name: str, x: np.ndarray) -> bool:
    """Whether the test evaluates on candidate values alone, laid out as a vector (not when it
    indexes the input's own axes: rois[:, 2])."""
    if t.scalar or t.sized:
        return True
    probe = dict(env)
    probe[name] = x.reshape(-1)[:2]
    try:
        t.test(probe)
    except IndexError:
        return False
    except (expr.ExprError, TypeError, ValueError) as e:  # a broadcast that fails is no indexing
        return "IndexError" not in str(e)
    return True


def _in_place(draw, x: np.ndarray, good: np.ndarray, bad: np.ndarray, tests: list[Term], env: dict, name: str,
              candidates: np.ndarray | None) -> np.ndarray | None:
    """x with each bad element replaced by a value that holds every test where it stands, the
    others as they are: for a test that compares x with other elements of itself (RoiAlign's
    rois >= rois[:, [0, 1, 0, 1]]: each corner against the start it pairs with), which cannot be
    probed on candidates alone. None when some element has no such value."""
    try:
        plain = (plain_values(dtypes.name_of(x.dtype)) if candidates is None else candidates).astype(x.dtype)
    except dtypes.UnknownElementType:
        return None
    pool = np.concatenate([np.unique(x[good])[:_POOL], plain])
    fixed = x.copy()
    probe = dict(env)
    for at in bad.tolist():
        fits = [v for v in pool.tolist() if all(_holds_at(t, probe, name, fixed, v, at) for t in tests)]
        if not fits:
            return None
        fixed.reshape(-1)[at] = fits[draw(st.integers(0, len(fits) - 1))]
    return fixed


def _candidates(env: dict, name: str, strict: bool, *, plan: tuple[Term, ...], forms: tuple) -> np.ndarray:
    """Values of input `name`'s type that hold all of its terms (strict), or all but those a
    dims form holds by reshaping another input instead: what list_relations gives the elements
    it replaces."""
    skip = set() if strict else {f.relation for f in forms if f.kind == "dims" and f.reads == name}
    tests = [t for t in plan if t.relation not in skip and _target(t, env) == name]
    x = list_relations.values_of(env, name)
    good = np.ones(x.shape, dtype=bool)
    for t in tests:
        good &= _evaluate(t, env)[1]
    return _pool(x, good, tests, env, name)


def _leave_out(d: Draft, name: str) -> None:
    """An optional input no value can make hold its relations (Squeeze's axes of a rank-0 data:
    no axis is in range) is left out, unless the row pins it present; so is an ints attribute that
    is not required."""
    if list_relations.is_attribute(d.spec, name):
        if not d.spec.attribute(name).required and pins.pinned(d, f"attr:{name}") is pins.UNPINNED:
            d.attributes.pop(name, None)
        return
    i = d.port_index(name)
    port = d.spec.inputs[min(i, len(d.spec.inputs) - 1)]
    if port.optional and not port.variadic and pins.pinned(d, f"input:{name}") is pins.UNPINNED:
        d.present[i] = False
        d.set_input(name, None)


def _target(t: Term, env: dict) -> str | None:
    return _evaluate(t, env)[0]


def _evaluate(t: Term, env: dict) -> tuple[str | None, Any]:
    """(the input the test is elementwise over, its truth per element), or (None, None) when the
    term does not apply, cannot be evaluated, or matches no input's shape (of several with its
    shape, the first the expression names)."""
    try:
        if t.when is not None and not bool(t.when(env)):
            return None, None
        ok = np.asarray(t.test(env))
    except (expr.ExprError, TypeError, ValueError, IndexError):
        return None, None
    if ok.dtype != bool:
        return None, None
    if t.scalar:
        x = env.get(t.inputs[0])
        if not isinstance(x, np.ndarray) or x.size != 1 or ok.size != 1:
            return None, None  # a whole tensor is not replaced for one truth value
        return t.inputs[0], np.full(x.shape, bool(ok))
    shaped = [n for n in t.inputs if isinstance(x := list_relations.values_of(env, n), np.ndarray) and x.shape == ok.shape]
    return (shaped[0], ok) if shaped else (None, None)



def _range_values(d: Draft, name: str, x: np.ndarray) -> np.ndarray | None:
    """The values the input's port draws from (`values: {typical: ...}`), as candidates in place
    of the type's plain values (Range's delta 0 becomes another quarter in [-3, 3], not 0.0061);
    None without a range."""
    from opconform.generator.families.default import value_range  # the default steps evaluate it

    port = next((p for p in d.spec.inputs if p.name == name), None)
    bounds = value_range(d, port) if port is not None else None
    steps = range_steps(dtypes.name_of(x.dtype), *bounds) if bounds is not None else None
    if steps is None:
        return None
    k_lo, k_hi, step = steps
    ks = np.arange(k_lo, min(k_hi, k_lo + 2 * _POOL) + 1)
    return multiples(dtypes.name_of(x.dtype), ks, step, ks.shape)


def _pool(x: np.ndarray, good: np.ndarray, tests: list[Term], env: dict, name: str,
          candidates: np.ndarray | None = None) -> np.ndarray:
    """Values of x's type that hold every test: x's own good elements, then `candidates` (by
    default the type's plain values)."""
    if x.dtype.kind in "OUS":
        own = np.array(list(dict.fromkeys(x[good].tolist())), dtype=x.dtype)
    else:
        with np.errstate(invalid="ignore"):  # NaNs (bfloat16's compare with a warning) are kept as values
            own = np.unique(x[good])
    try:
        plain = (plain_values(dtypes.name_of(x.dtype)) if candidates is None else candidates).astype(x.dtype)
    except dtypes.UnknownElementType:
        plain = np.array([], dtype=x.dtype)
    keep = np.ones(plain.shape, dtype=bool)
    probe = dict(env)
    probe[name] = plain
    paired: list[Term] = []  # tests probed position by position: x's own good values too
    for t in tests:
        try:
            if t.scalar:  # one candidate at a time, in the input's own shape
                keep &= np.array([_scalar_holds(t, probe, name, np.full(x.shape, v, dtype=x.dtype)) for v in plain], dtype=bool)
            elif t.sized:  # in batches of the input's own shape: the test reads its size
                keep &= list_relations.probe(t.test, env, name, x, plain).astype(bool).reshape(plain.shape)
            else:
                try:
                    keep &= np.asarray(t.test(probe), dtype=bool).reshape(plain.shape)
                except ValueError:  # the test pairs x with another vector position by position
                    keep &= _everywhere(t, env, name, x, plain)
                    paired.append(t)
        except (expr.ExprError, TypeError, ValueError, IndexError):
            keep[:] = False
    for t in paired:  # a value good at its own position may not be at another one
        try:
            own = own[_everywhere(t, env, name, x, own)]
        except (expr.ExprError, TypeError, ValueError, IndexError):
            own = own[:0]
    return np.concatenate([own[:_POOL], plain[keep]])[: 2 * _POOL]


def _everywhere(t: Term, env: dict, name: str, x: np.ndarray, plain: np.ndarray) -> np.ndarray:
    """Per candidate, whether the test holds at every position with all of x set to it: for a
    test that pairs x with another vector element by element (ConvTranspose's output_padding
    below strides, MaxRoiPool's batch ids in column 0), which one vector of candidates cannot
    probe. One evaluation per candidate, only where the vector probe could not run."""
    probe = dict(env)
    out = np.zeros(plain.shape, dtype=bool)
    for k, v in enumerate(plain.tolist()):
        probe[name] = np.full(x.shape, v, dtype=x.dtype)
        with np.errstate(all="ignore"):
            out[k] = bool(np.all(t.test(probe)))
    return out


def _holds_at(t: Term, env: dict, name: str, x: np.ndarray, value: Any, at: int) -> bool:
    y = x.copy()
    y.reshape(-1)[at] = value
    env[name] = y
    try:
        ok = np.asarray(t.test(env))
    except (expr.ExprError, TypeError, ValueError, IndexError):
        return True  # cannot tell: not offered as breaking it
    return bool(ok.reshape(-1)[at]) if ok.size == x.size else bool(np.all(ok))


def _scalar_holds(t: Term, env: dict, name: str, value: np.ndarray) -> bool:
    env[name] = value
    try:
        return bool(t.test(env))
    except (expr.ExprError, TypeError, ValueError, IndexError):
        return False


# ------------------------------------------------------------------ breaking
def breakers(spec: SpecVersion) -> dict:
    """Relation id -> breaker(draw, draft): one element of the input a value term reads set just
    outside what the term allows (an index one past the dimension, -1 for a non-negative count:
    a value next to one that holds, where there is one; else any value of the type that fails),
    for the must-refuse cases of relations the hooks no longer break by hand."""
    plan = terms(spec)
    by_relation: dict[str, list[Term]] = {}
    for t in plan:
        by_relation.setdefault(t.relation, []).append(t)
    out = {rid: _breaker(ts) for rid, ts in by_relation.items()}
    candidates = functools.partial(_candidates, plan=plan, forms=list_relations.forms(spec))
    for rid, b in list_relations.breakers(spec, candidates).items():  # a dims form: either way
        out[rid] = _either(out[rid], b, by_relation[rid]) if rid in out else b
    return out


def _either(first, second, ts: list[Term]):
    """A breaker trying one of two ways (drawn), the other when the relation's terms still hold."""
    def breaker(draw, d: Draft) -> None:
        a, b = (first, second) if draw(st.booleans()) else (second, first)
        for way in (a, b, a):  # b may have given what a needs (an absent input)
            way(draw, d)
            env = specs.environment(d.spec, d.inputs, d.attributes)
            if not all(ok is None or np.all(ok) for ok in (_evaluate(t, env)[1] for t in ts)):
                return
    return breaker


def _breaker(ts: list[Term]):
    def breaker(draw, d: Draft) -> None:
        env = specs.environment(d.spec, d.inputs, d.attributes)
        usable = [(t, target) for t in ts if (target := _evaluate(t, env)[0]) is not None and list_relations.values_of(env, target).size > 0]
        if not usable and _give_absent(draw, d, ts):
            env = specs.environment(d.spec, d.inputs, d.attributes)
            usable = [(t, target) for t in ts if (target := _evaluate(t, env)[0]) is not None and list_relations.values_of(env, target).size > 0]
        if not usable:
            return
        t, name = usable[draw(st.integers(0, len(usable) - 1))]
        x = list_relations.values_of(env, name)
        # the input's other terms: a value that breaks them too would break an earlier relation
        # (Squeeze's axis naming a dimension that is not 1, yet in range)
        others = [o for o in terms(d.spec) if o.relation != t.relation and _target(o, env) == name]
        # mostly just outside; now and then an edge value of the type that fails (onnxruntime
        # accepted TopK's K = 2**53 + 1 where it refuses n + 1)
        extreme = draw(st.integers(0, 3)) == 3
        # the element to break: any, unless the term reads x's size (a value may then break it at
        # some places only: Reshape's 0 past the input's rank), then the first of a few that can
        first = draw(st.integers(0, x.size - 1))
        places = [(first + j) % x.size for j in range(min(x.size, _PLACES if t.sized else 1))]
        for k in places:
            outside = _breaking(x, t, others, env, name, k, extreme)
            if outside.size:
                break
        else:
            return
        broken = x.copy()
        broken.reshape(-1)[k] = outside[draw(st.integers(0, outside.size - 1))]
        list_relations.store(d, name, broken)
    return breaker


def _breaking(x: np.ndarray, t: Term, others: list[Term], env: dict, name: str, at: int, extreme: bool) -> np.ndarray:
    """Values that fail the term as element `at` of x: edge values of the type if `extreme` and
    some do, else those just outside; those holding the input's other terms where there are."""
    outside = _holding_all(others, env, name, x, _extremes(x, t, env, name, at), at) if extreme else np.array([], dtype=x.dtype)
    if outside.size == 0:
        outside = _outside(x, t, env, name, at)
        kept = _holding_all(others, env, name, x, outside, at) if others else outside
        outside = kept if kept.size else outside
    return outside


def _holding_all(ts: list[Term], env: dict, name: str, x: np.ndarray, pool: np.ndarray, at: int) -> np.ndarray:
    """The values of pool that hold every one of the terms (as element `at` of x)."""
    keep = np.ones(pool.shape, dtype=bool)
    for t in ts if pool.size else ():
        keep &= _holding(t, env, name, x, pool, at)
    return pool[keep]


def _give_absent(draw, d: Draft, ts: list[Term]) -> bool:
    """An absent optional input the terms read, given (drawn from its port, not empty, its shape
    relations and every value relation held) so that it can be broken (Squeeze's axes: an absent list names no axis
    to put outside)."""
    from opconform.generator.families.default import input_array  # the default steps draw arrays

    for name in dict.fromkeys(n for t in ts for n in t.inputs):
        if list_relations.is_attribute(d.spec, name):
            if d.attributes.get(name) is None:  # an absent ints attribute: one value, then repaired
                d.attributes[name] = [0]
                repair(draw, d, terms(d.spec))
                return True
            continue
        i = d.port_index(name)
        port = d.spec.inputs[i]
        if d.inputs[i] is None and port.optional and d.dtypes[i] is not None:
            d.present[i] = True
            shape = draw(shapes.shapes(draw(shapes.ranks(port, d.profile)), d.profile, min_side=1))
            d.inputs[i] = input_array(draw, d, i, shape=shape)
            # its shape relations held too (TensorScatter's write_indices: one per batch)
            solver.compile_plan(d.spec).apply(draw, d, skip=lambda f: f.target != name)
            repair(draw, d, terms(d.spec))
            return True
    return False


def _outside(x: np.ndarray, t: Term, env: dict, name: str, at: int) -> np.ndarray:
    """Values of x's type that fail the term as element `at` of x: those next to a value that
    holds it first (for integers, a holding value plus or minus one), else any plain or edge
    value that fails."""
    try:
        kind = dtypes.get(dtypes.name_of(x.dtype)).kind
        plain = plain_values(dtypes.name_of(x.dtype)).astype(x.dtype)
    except dtypes.UnknownElementType:
        return np.array([], dtype=x.dtype)
    pool = np.concatenate([plain, x.reshape(-1)[:_POOL]])
    holds = _holding(t, env, name, x, pool, at)
    if kind in ("int", "uint"):
        info = np.iinfo(x.dtype)
        near = {int(v) + s for v in pool[holds].tolist() for s in (-1, 1)}
        pool = np.array(sorted(v for v in near if info.min <= v <= info.max), dtype=x.dtype)
        fails = ~_holding(t, env, name, x, pool, at)
        if fails.any():
            return pool[fails]
        pool = plain
    return pool[~_holding(t, env, name, x, pool, at)]


def _extremes(x: np.ndarray, t: Term, env: dict, name: str, at: int) -> np.ndarray:
    """The edge values of x's type (limits, 2**53 + 1, NaN, inf ...) that fail the term as
    element `at` of x."""
    try:
        type_name = dtypes.name_of(x.dtype)
        stored = [v for members in edge_values(type_name).values() for v in members]
        pool = from_elements(type_name, stored, (len(stored),)) if stored else np.array([], dtype=x.dtype)
    except (dtypes.UnknownElementType, ValueError, TypeError):
        return np.array([], dtype=x.dtype)
    return pool[~_holding(t, env, name, x, pool, at)] if pool.size else pool


def _holding(t: Term, env: dict, name: str, x: np.ndarray, pool: np.ndarray, at: int) -> np.ndarray:
    """Per value of pool, whether it holds the term as element `at` of x (a term reading x's
    size is tested with each value in that place: Reshape's 0 copies a dimension only within
    the input's rank; any other term with the whole pool at once, as elements of their own)."""
    probe = dict(env)
    try:
        if t.scalar:
            return np.array([_scalar_holds(t, probe, name, np.full(x.shape, v, dtype=x.dtype)) for v in pool], dtype=bool)
        if t.sized:
            return np.array([_holds_at(t, probe, name, x, v, at) for v in pool], dtype=bool)
        probe[name] = pool
        return np.asarray(t.test(probe), dtype=bool).reshape(pool.shape)
    except (expr.ExprError, TypeError, ValueError, IndexError):
        return np.ones(pool.shape, dtype=bool)  # cannot tell: offer nothing
