"""Holding a spec's relations over whole lists: a list attribute's length and permutation, an
input's distinct values, values naming another input's dimensions, values spelling a shape.

Independent draws almost never hold these, and replacing single elements (value_repair) cannot
reach them: Transpose's `perm` must be a permutation of the rank, the axes of Unsqueeze and
Squeeze distinct (modulo the rank), the dimensions Squeeze's axes name equal to 1, Expand's target
shape broadcastable with its input. Each conjunct of one of these forms (symbols substituted, as
the solver reads them; `a` an ints attribute, `X` and `Y` inputs) becomes a `Form`:

    len(a) == E                          a gets E elements (a length of 0 leaves it out: an ONNX
                                         node cannot hold an empty list attribute)
    sorted(a) == range(E)                a is drawn as a permutation of range(E)
    tuple(sorted(a)) == tuple(a)         a sorted, after value repair (any list attribute)
    tuple(a) == E                        a spells E (E not reading a: Conv's kernel_shape, W's
                                         kernel extents)
    unique_count(F) == size(G)           (F reads X's values, G reads X) the elements of X whose
                                         key under F repeats an earlier one get values of unused
                                         keys that hold X's other value terms, or are dropped
    all(asarray(shape(Y))[I] == C)       (I reads X's values) the dimensions of Y that I names
                                         become C
    broadcastable(E, tuple(values(X)))   X's values drawn as a shape broadcastable with E:
                                         shorter, longer, 1s on either side

value_repair.repair runs them in phases around its elementwise replacement:

    >>> fs = forms(spec)                                  # once per spec version
    >>> draw_lists(draw, d, fs, kept, fresh=True)         # lengths, permutations, shapes
    >>> hold_distinct(draw, d, fs, kept, candidates, drop=True)   # after elementwise replacement
    >>> hold_dims(draw, d, fs, kept)                      # last: what values could not reach

and `breakers(spec, candidates)` moves one quantity just outside each form (a list one element
too long or short, a repeated or out-of-range entry, two keys made equal, a named dimension that
is not C, a target dimension clashing with E) for the must-refuse cases. Nothing here decides
validity: every relation is checked afterwards, as after the solver.
"""
from __future__ import annotations

import ast
import weakref
from dataclasses import dataclass
from typing import Any, Callable, Mapping

import numpy as np
from hypothesis import strategies as st

from opconform import specs
from opconform.generator import pins
from opconform.generator.draft import Draft
from opconform.model import SpecVersion
from opconform.specs import dialects, expr

# elements of an input (or a whole input / attribute: True) that a repair must leave as they are:
# what the relation a must-refuse case breaks reads (see value_repair.repair)
Kept = Mapping[str, "np.ndarray | bool"]
# (env, input name, strict) -> values of the input's element type holding its other value terms
# (strict: also those a dims form could make hold by reshaping instead)
Candidates = Callable[[dict, str, bool], np.ndarray]

_ERRORS = (expr.ExprError, TypeError, ValueError, IndexError, OverflowError)
_STRUCTURE = {"shape", "rank", "size", "len", "dtype", "present"}


@dataclass(frozen=True)
class Form:
    """One conjunct of a list form and what its fix reads (see the module text)."""

    relation: str
    kind: str  # "length" | "sorted" | "permutation" | "distinct" | "dims" | "broadcast" | "spelled"
    target: str  # what the fix rewrites: the attribute, X (distinct, broadcast) or Y (dims)
    when: Callable[[dict], Any] | None
    check: Callable[[dict], Any]  # the conjunct itself
    expr: Callable[[dict], Any]  # E (length, permutation, broadcast), F (distinct), I (dims)
    value: Callable[[dict], Any] | None = None  # C (dims)
    reads: str | None = None  # dims: the input whose values name Y's dimensions


# id(spec) -> (weak reference to spec, its forms): asked for by every draft's repair
_FORMS: dict[int, tuple[weakref.ref, tuple[Form, ...]]] = {}


def forms(spec: SpecVersion) -> tuple[Form, ...]:
    """The list forms among the spec's relation conjuncts, in spec order; once per spec version."""
    entry = _FORMS.get(id(spec))
    if entry is not None and entry[0]() is spec:
        return entry[1]
    from opconform.generator.solver import conjuncts  # the same conjuncts, symbols substituted

    inputs, lists = _names(spec)
    every = {a.name for a in spec.attributes if a.type in ("ints", "floats", "strings")}
    found = tuple(f for rid, when, part in conjuncts(spec)
                  if (f := form_of(rid, when, part, inputs, lists, every)) is not None)
    key = id(spec)
    _FORMS[key] = (weakref.ref(spec, lambda _, key=key: _FORMS.pop(key, None)), found)
    return found


def _names(spec: SpecVersion) -> tuple[set[str], set[str]]:
    """(non-variadic inputs, ints attributes)."""
    return ({p.name for p in spec.inputs if not p.variadic},
            {a.name for a in spec.attributes if a.type == "ints"})


def value_reads(node: ast.AST, inputs: set[str]) -> set[str]:
    """The inputs a conjunct reads the values of (not only their shape, size, type or presence)."""
    structural = set()
    for c in ast.walk(node):
        if isinstance(c, ast.Call):
            structural.add(id(c.func))  # a function's name, not an input (Expand's input `shape`)
        if isinstance(c, ast.Call) and getattr(c.func, "id", "") in _STRUCTURE and len(c.args) == 1:
            arg = c.args[0].value if isinstance(c.args[0], ast.Subscript) else c.args[0]  # rank(inputs[0])
            if isinstance(arg, ast.Name):
                structural.add(id(arg))
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and n.id in inputs and id(n) not in structural}


def reads_structure(node: ast.AST, names: set[str]) -> bool:
    """True when node reads the shape, size, length or rank of one of `names` (through values()
    too): such a test must be probed in the input's own shape, since other sizes change it
    (Unsqueeze's output rank counts its axes)."""
    return any(isinstance(c, ast.Call) and getattr(c.func, "id", "") in ("shape", "rank", "size", "len")
               and any(_names_in(a) & names for a in c.args)
               for c in ast.walk(node))


def _names_in(node: ast.AST) -> set[str]:
    """The names a node reads (function names left out)."""
    funcs = {id(c.func) for c in ast.walk(node) if isinstance(c, ast.Call)}
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and id(n) not in funcs}


def _call_of(node: ast.AST, *funcs: str) -> ast.AST | None:
    """The single argument of a call to one of `funcs`, else None."""
    if isinstance(node, ast.Call) and getattr(node.func, "id", "") in funcs and len(node.args) == 1:
        return node.args[0]
    return None


def _range_count(node: ast.AST) -> ast.AST | None:
    """E for range(E), tuple(range(E)) or list(range(E))."""
    inner = _call_of(node, "tuple", "list")
    node = inner if inner is not None else node
    return _call_of(node, "range")


def _values_of(node: ast.AST, inputs: set[str]) -> str | None:
    """X for tuple(values(X)) or values(X)."""
    inner = _call_of(node, "tuple")
    arg = _call_of(inner if inner is not None else node, "values")
    return arg.id if isinstance(arg, ast.Name) and arg.id in inputs else None


def _shape_vector(node: ast.AST, inputs: set[str]) -> str | None:
    """Y for asarray(shape(Y)) or shape(Y)."""
    inner = _call_of(node, "asarray")
    arg = _call_of(inner if inner is not None else node, "shape")
    return arg.id if isinstance(arg, ast.Name) and arg.id in inputs else None


def form_of(rid: str, when, part: ast.AST, inputs: set[str], lists: set[str],
            every: set[str] | None = None) -> Form | None:
    """The conjunct as a list form, or None when it is of none of the forms. `lists`: the ints
    attributes; `every`: all list attributes (ints, floats, strings), whose length and order a
    form may fix too."""
    check = _compiled(part)
    every = lists if every is None else every
    if isinstance(part, ast.Compare) and len(part.ops) == 1 and isinstance(part.ops[0], ast.Eq):
        for lhs, rhs in ((part.left, part.comparators[0]), (part.comparators[0], part.left)):
            found = _equality(rid, when, check, lhs, rhs, inputs, lists, every)
            if found is not None:
                return found
    if isinstance(part, ast.Call) and getattr(part.func, "id", "") == "broadcastable" and len(part.args) == 2:
        for mine, other in ((part.args[1], part.args[0]), (part.args[0], part.args[1])):
            x = _values_of(mine, inputs)
            if x is not None and x not in value_reads(other, inputs):
                return Form(rid, "broadcast", x, when, check, _compiled(other))
    inner = _call_of(part, "all")
    if isinstance(inner, ast.Compare) and len(inner.ops) == 1 and isinstance(inner.ops[0], ast.Eq):
        return _dims(rid, when, check, inner, inputs)
    return None


def _equality(rid, when, check, lhs: ast.AST, rhs: ast.AST, inputs: set[str], lists: set[str],
              every: set[str]) -> Form | None:
    """length, order, permutation and distinct: `len(a) == E`, `tuple(sorted(a)) == tuple(a)`,
    `sorted(a) == range(E)`, `unique_count(F) == size(G)`."""
    a = _call_of(lhs, "len")
    if isinstance(a, ast.Name) and a.id in every and a.id not in _names_in(rhs):
        return Form(rid, "length", a.id, when, check, _compiled(rhs))
    a = _call_of(_call_of(lhs, "tuple"), "sorted")
    b = _call_of(rhs, "tuple")
    if isinstance(a, ast.Name) and a.id in every and isinstance(b, ast.Name) and b.id == a.id:
        return Form(rid, "sorted", a.id, when, check, _compiled(rhs))
    a = _call_of(lhs, "tuple")
    if isinstance(a, ast.Name) and a.id in lists and a.id not in _names_in(rhs):
        return Form(rid, "spelled", a.id, when, check, _compiled(rhs))
    a = _call_of(lhs, "sorted")
    count = _range_count(rhs)
    if isinstance(a, ast.Name) and a.id in lists and count is not None and a.id not in _names_in(count):
        return Form(rid, "permutation", a.id, when, check, _compiled(count))
    keys, counted = _call_of(lhs, "unique_count"), _call_of(rhs, "size", "len")
    if keys is not None and counted is not None:
        read = value_reads(keys, inputs | lists)  # an ints attribute's values too (CenterCropPad's axes)
        if len(read) == 1 and next(iter(read)) in _names_in(counted):
            return Form(rid, "distinct", next(iter(read)), when, check, _compiled(keys))
    return None


def _dims(rid, when, check, compare: ast.Compare, inputs: set[str]) -> Form | None:
    """`all(asarray(shape(Y))[I] == C)` (either side), I reading the values of one input X."""
    for lhs, rhs in ((compare.left, compare.comparators[0]), (compare.comparators[0], compare.left)):
        if not isinstance(lhs, ast.Subscript) or value_reads(rhs, inputs):
            continue
        y, read = _shape_vector(lhs.value, inputs), value_reads(lhs.slice, inputs)
        if y is not None and len(read) == 1 and y not in read:
            return Form(rid, "dims", y, when, check, _compiled(lhs.slice), _compiled(rhs), next(iter(read)))
    return None


def _compiled(node: ast.AST) -> Callable[[dict], Any]:
    return expr.compiled(ast.unparse(node))


def claims(part: ast.AST, inputs: set[str], lists: set[str]) -> bool:
    """True when the conjunct is a list form that is not an `all(...)` term (value repair leaves
    those to this module; a dims form is also an elementwise term: moving the values onto the
    dimensions that are already C is value repair's way of holding it)."""
    return _call_of(part, "all") is None and form_of("", None, part, inputs, lists) is not None


# ------------------------------------------------------------------ evaluating
def _env(d: Draft) -> dict:
    return specs.environment(d.spec, d.inputs, d.attributes)


def _applies(f: Form, env: dict) -> bool:
    try:
        return f.when is None or bool(f.when(env))
    except _ERRORS:
        return False


def _holds(f: Form, env: dict) -> bool:
    try:
        return bool(np.all(f.check(env)))
    except _ERRORS:
        return False


def _kept_all(kept: Kept, name: str) -> bool:
    """True when any part of `name` must stay: a fix rewriting all of it is not applied."""
    mark = kept.get(name)
    return mark is not None and bool(np.any(mark))


def probe(fn: Callable[[dict], Any], env: dict, name: str, like: np.ndarray, candidates: np.ndarray) -> np.ndarray:
    """fn's per-element result for each candidate value of input `name`, evaluated with the
    candidates laid out in batches of the input's own shape (a test reading the input's size,
    such as Unsqueeze's output rank, sees the size it has). Raises what fn raises."""
    n = like.size
    if n == 0 or candidates.size == 0:
        return np.array([])
    out, probe_env = [], dict(env)
    for start in range(0, candidates.size, n):
        chunk = candidates[start:start + n]
        probe_env[name] = np.resize(chunk, n).reshape(like.shape)  # np.resize repeats the chunk
        got = np.asarray(fn(probe_env)).reshape(-1)
        if got.size != n:
            raise ValueError(f"not one result per element of {name}")
        out.append(got[:chunk.size])
    return np.concatenate(out)


def _redraw(draw, d: Draft, name: str, shape: tuple[int, ...]) -> None:
    """Input `name` drawn again at `shape` (and given its row's value class again), as the solver does."""
    from opconform.generator.families.default import input_array  # the default steps draw arrays

    i = d.port_index(name)
    d.inputs[i] = input_array(draw, d, i, shape=shape)
    pins.input_values(draw, d, i)


# ------------------------------------------------------------------ holding
def draw_lists(draw, d: Draft, fs: tuple[Form, ...], kept: Kept, *, fresh: bool) -> None:
    """The first phase: list attributes given their length, permutations and shapes spelled by
    an input's values drawn (in a fresh draft always, see _DRAWN_ANEW; after a break only where
    broken), and, in a fresh draft, now and then the dimensions a dims form names set before
    value repair could move the values onto the dimensions that already hold (so both ways are
    drawn)."""
    for f in fs:
        if f.kind not in _FIXES or (f.kind == "dims" and not (fresh and draw(st.booleans()))):
            continue
        env = _env(d)
        if _kept_all(kept, f.target) or not _present(env, f.target) or not _applies(f, env):
            continue
        if _holds(f, env) and not (fresh and f.kind in _DRAWN_ANEW):
            continue
        try:
            _FIXES[f.kind](draw, d, f, env)
        except _ERRORS:
            continue  # the draft keeps what it has; the relations decide


def _present(env: dict, name: str) -> bool:
    return env.get(name) is not None


def values_of(env: dict, name: str) -> Any:
    """An input's array, or a list attribute's values as a 1-D array, int64 (ints) or float64
    (floats: Upsample-7's scales), None where absent: what the elementwise and distinct fixes
    rewrite, either kind alike."""
    x = env.get(name)
    if not isinstance(x, (list, tuple)):
        return x
    return np.asarray(x, dtype=np.float64 if any(isinstance(v, float) for v in x) else np.int64).reshape(-1)


def is_attribute(spec: SpecVersion, name: str) -> bool:
    return all(p.name != name for p in spec.inputs)


def store(d: Draft, name: str, x: np.ndarray) -> None:
    """Put rewritten values back: into the input, or into the ints attribute as a list."""
    if is_attribute(d.spec, name):
        _set_list(d, name, x.reshape(-1).tolist())
    else:
        d.set_input(name, x)


def _fix_length(draw, d: Draft, f: Form, env: dict) -> None:
    n = int(f.expr(env))
    if n >= 0:
        old = list(env[f.target])[:n]
        element = _ELEMENTS[d.spec.attribute(f.target).type]
        _set_list(d, f.target, old + [draw(element) for _ in range(n - len(old))])


# a new element of a list attribute, as the default steps draw them
_ELEMENTS = {"ints": st.integers(-4, 4), "floats": st.floats(-4, 4, allow_nan=False, width=32),
             "strings": st.text("abc", min_size=1, max_size=3)}


def hold_lengths(draw, d: Draft, fs: tuple[Form, ...], kept: Kept) -> bool:
    """A length form broken again by what later phases rewrote (TfIdfVectorizer: one ngram_indexes
    per n-gram that the repaired, sorted ngram_counts give) fixed again; True when one was."""
    fixed = False
    for f in fs:
        env = _env(d)
        if (f.kind == "length" and not _kept_all(kept, f.target) and _present(env, f.target) and _applies(f, env)
                and not _holds(f, env)):
            try:
                _fix_length(draw, d, f, env)
                fixed = True
            except _ERRORS:
                continue
    return fixed


def hold_sorted(d: Draft, fs: tuple[Form, ...], kept: Kept) -> None:
    """A list attribute that must be in ascending order (TfIdfVectorizer's ngram_counts, the
    starts of its n-gram segments) sorted, once its values are repaired."""
    for f in fs:
        env = _env(d)
        if f.kind == "sorted" and not _kept_all(kept, f.target) and _present(env, f.target) and _applies(f, env):
            _set_list(d, f.target, sorted(env[f.target]))


def _fix_permutation(draw, d: Draft, f: Form, env: dict) -> None:
    n = int(f.expr(env))
    if n >= 0:
        _set_list(d, f.target, draw(st.permutations(list(range(n)))))


def _set_list(d: Draft, name: str, value: list[int]) -> None:
    """An empty list cannot be an attribute of an ONNX node (onnx.helper cannot type it): an
    optional one is left out instead, which the relation's `when` then judges."""
    kind = {"floats": float, "strings": str}.get(d.spec.attribute(name).type, int)
    if value or not dialects.is_onnx(d.spec.dialect):
        d.attributes[name] = [kind(v) for v in value]
    elif not d.spec.attribute(name).required:
        d.attributes.pop(name, None)


def _fix_broadcast(draw, d: Draft, f: Form, env: dict) -> None:
    x = env[f.target]
    if x.ndim != 1:
        return  # the values of a vector only: another rank is what a rank relation judges
    other = tuple(int(v) for v in np.asarray(f.expr(env)).reshape(-1))
    d.set_input(f.target, np.asarray(broadcastable_to(draw, other), dtype=np.int64).astype(x.dtype))


def broadcastable_to(draw, shape: tuple[int, ...]) -> list[int]:
    """A shape broadcastable with `shape`: its last dimensions (none to all), each itself or 1 (a
    1 also 2 or 3), and when all are kept up to two leading dimensions more."""
    keep = draw(st.integers(0, len(shape)))
    extra = draw(st.integers(0, 2)) if keep == len(shape) else 0
    lead = [draw(st.integers(1, 3)) for _ in range(extra)]
    return lead + [draw(st.sampled_from([s, 1] + ([2, 3] if s == 1 else []))) for s in shape[len(shape) - keep:]]


def _fix_dims(draw, d: Draft, f: Form, env: dict) -> None:
    y, c = env[f.target], int(f.value(env))
    named = np.asarray(f.expr(env)).reshape(-1).astype(np.int64)
    if c < 0 or not isinstance(y, np.ndarray):
        return
    shape = list(y.shape)
    for k in named.tolist():
        shape[k] = c
    if tuple(shape) != y.shape:
        _redraw(draw, d, f.target, tuple(shape))


# forms a fresh draft always draws anew, like the solver's ranges: a list the steps drew freely
# holds them only in its plainest values ([0, 1], a target of 1s)
_DRAWN_ANEW = ("permutation", "broadcast")
def _fix_spelled(draw, d: Draft, f: Form, env: dict) -> None:
    _set_list(d, f.target, [int(v) for v in f.expr(env)])


_FIXES = {"length": _fix_length, "permutation": _fix_permutation, "broadcast": _fix_broadcast, "dims": _fix_dims,
          "spelled": _fix_spelled}


def hold_dims(draw, d: Draft, fs: tuple[Form, ...], kept: Kept) -> None:
    """The last phase: a dims form still broken (no value of X named a dimension that is C, or
    no value could) gets the dimensions of Y it names set to C."""
    for f in fs:
        if f.kind != "dims" or _kept_all(kept, f.target):
            continue
        env = _env(d)
        if _present(env, f.target) and _applies(f, env) and not _holds(f, env):
            try:
                _fix_dims(draw, d, f, env)
            except _ERRORS:
                continue


def hold_distinct(draw, d: Draft, fs: tuple[Form, ...], kept: Kept, candidates: Candidates, *, drop: bool) -> bool:
    """Each distinct form broken: the elements whose key repeats one kept before them (the kept
    elements claim theirs first) get values of keys not taken yet, from the candidates that hold
    every other value term of X, then from those a dims form will make hold; elements no key is
    left for are dropped (a 1-D X only). drop: a 1-D X may instead lose its repeats, drawn (both
    hold the relation; dropping keeps lists short, as models write them). True when some X
    lost elements that way: its terms that read its size must be held again."""
    dropped = False
    for f in fs:
        if f.kind != "distinct":
            continue
        env = _env(d)
        x = values_of(env, f.target)
        if not isinstance(x, np.ndarray) or x.size < 2 or not _applies(f, env) or _holds(f, env):
            continue
        try:
            dropped |= _make_distinct(draw, d, f, env, x, kept.get(f.target), candidates, drop)
        except _ERRORS:
            continue
    return dropped


def _make_distinct(draw, d: Draft, f: Form, env: dict, x: np.ndarray, mark, candidates: Candidates,
                   drop: bool) -> bool:
    keys = np.asarray(f.expr(env)).reshape(-1).tolist()
    if len(keys) != x.size:
        return False
    stay = np.broadcast_to(np.asarray(False if mark is None else mark, dtype=bool), x.shape).reshape(-1)
    claimed = {keys[k] for k in range(x.size) if stay[k]}
    repeats = []
    for k in range(x.size):
        if not stay[k]:
            (repeats.append(k) if keys[k] in claimed else claimed.add(keys[k]))
    if not repeats:
        return False
    if drop and x.ndim == 1 and draw(st.booleans()):
        store(d, f.target, np.delete(x, repeats))
        return True
    flat = x.reshape(-1).copy()
    for strict in (True, False):
        pool = candidates(env, f.target, strict)
        pool_keys = probe(f.expr, env, f.target, x, pool).tolist() if pool.size else []
        repeats = [k for k in repeats if not _give_unused_key(draw, flat, k, pool, pool_keys, claimed)]
        if not repeats:
            break
    if repeats and x.ndim == 1:
        flat = np.delete(flat, repeats)  # no key left for them: fewer elements
    elif repeats:
        return False
    store(d, f.target, flat if repeats else flat.reshape(x.shape))
    return bool(repeats)


def _give_unused_key(draw, flat: np.ndarray, k: int, pool: np.ndarray, pool_keys: list, claimed: set) -> bool:
    free = [j for j, key in enumerate(pool_keys) if key not in claimed]
    if not free:
        return False
    j = free[draw(st.integers(0, len(free) - 1))]
    flat[k] = pool[j]
    claimed.add(pool_keys[j])
    return True


# ------------------------------------------------------------------ breaking
def breakers(spec: SpecVersion, candidates: Candidates) -> dict[str, Callable]:
    """Relation id -> breaker(draw, draft) for the relations with list forms (see the module text)."""
    by_relation: dict[str, list[Form]] = {}
    for f in forms(spec):
        by_relation.setdefault(f.relation, []).append(f)
    return {rid: _breaker(fs, candidates) for rid, fs in by_relation.items()}


def _breaker(fs: list[Form], candidates: Candidates) -> Callable:
    def breaker(draw, d: Draft) -> None:
        env = _env(d)
        # an absent list attribute is given by its breaker (its `when` is then judged afresh)
        usable = [f for f in fs if (f.kind in _ATTRIBUTE_KINDS and not _present(env, f.target))
                  or (_present(env, f.target) and _applies(f, env))]
        if not usable:
            return
        f = usable[draw(st.integers(0, len(usable) - 1))]
        try:
            _BREAKS[f.kind](draw, d, f, env, candidates)
        except _ERRORS:
            return  # left unbroken: the case is not kept
    return breaker


_ATTRIBUTE_KINDS = ("length", "permutation", "spelled")


def _break_length(draw, d: Draft, f: Form, env: dict, candidates: Candidates) -> None:
    """One element more or (where one is left) fewer than E; an absent list is 0 .. E-1 first."""
    n = int(f.expr(env))
    old = list(env[f.target]) if env.get(f.target) is not None and len(env[f.target]) == n else list(range(n))
    if n >= 2 and draw(st.booleans()):
        del old[draw(st.integers(0, n - 1))]
    else:
        old.insert(draw(st.integers(0, n)), n)
    _set_list(d, f.target, old)


def _break_permutation(draw, d: Draft, f: Form, env: dict, candidates: Candidates) -> None:
    """Length E kept, one entry repeating another or just outside 0 .. E-1."""
    n = int(f.expr(env))
    if n < 1:
        return
    cur = env.get(f.target)
    perm = list(cur) if cur is not None and sorted(cur) == list(range(n)) else draw(st.permutations(list(range(n))))
    k = draw(st.integers(0, n - 1))
    if n >= 2 and draw(st.booleans()):
        perm[k] = perm[(k + draw(st.integers(1, n - 1))) % n]
    else:
        perm[k] = draw(st.sampled_from([n, -1]))
    _set_list(d, f.target, perm)


def _break_distinct(draw, d: Draft, f: Form, env: dict, candidates: Candidates) -> None:
    """One element given the key of another: a value of the candidates with that key (the same
    axis written another way), else that element's own value; a 1-D X of one element gets a
    second, a copy of the first."""
    x = values_of(env, f.target)
    if x is None or x.size == 0:
        return
    if x.size == 1:
        if x.ndim != 1:
            return
        store(d, f.target, np.concatenate([x, x]))
        return
    keys = np.asarray(f.expr(env)).reshape(-1).tolist()
    i = draw(st.integers(0, x.size - 1))
    j = (i + draw(st.integers(1, x.size - 1))) % x.size
    pool = candidates(env, f.target, True)
    same = [v for v, key in zip(pool.tolist(), probe(f.expr, env, f.target, x, pool).tolist()) if key == keys[i]]
    flat = x.reshape(-1).copy()
    flat[j] = same[draw(st.integers(0, len(same) - 1))] if same and draw(st.booleans()) else flat[i]
    store(d, f.target, flat.reshape(x.shape))


def _break_dims(draw, d: Draft, f: Form, env: dict, candidates: Candidates) -> None:
    """One dimension of Y that X names set to C + 1."""
    y, c = env[f.target], int(f.value(env))
    named = np.asarray(f.expr(env)).reshape(-1).astype(np.int64).tolist()
    if not named or c < 0:
        return
    shape = list(y.shape)
    shape[named[draw(st.integers(0, len(named) - 1))]] = c + 1
    _redraw(draw, d, f.target, tuple(shape))


def _break_broadcast(draw, d: Draft, f: Form, env: dict, candidates: Candidates) -> None:
    """X's values with one entry aligned to a dimension of E that is not 1 set to neither that
    dimension nor 1 (X lengthened with leading 1s to reach it); E all 1s cannot clash."""
    other = [int(v) for v in np.asarray(f.expr(env)).reshape(-1)]
    x = env[f.target]
    clash = [k for k in range(1, len(other) + 1) if other[-k] != 1]
    if not clash or x.ndim != 1:
        return
    k = draw(st.sampled_from(clash))
    target = [1] * max(0, k - x.size) + [int(v) for v in x.tolist()]
    target[-k] = other[-k] + 1 if other[-k] >= 1 else 2
    d.set_input(f.target, np.asarray(target, dtype=np.int64).astype(x.dtype))


def _break_sorted(draw, d: Draft, f: Form, env: dict, candidates: Candidates) -> None:
    """Two unequal entries swapped (a list of one value throughout cannot be broken)."""
    values = list(env.get(f.target) or ())
    pairs = [(i, j) for i in range(len(values)) for j in range(i + 1, len(values)) if values[i] < values[j]]
    if pairs:
        i, j = pairs[draw(st.integers(0, len(pairs) - 1))]
        values[i], values[j] = values[j], values[i]
        _set_list(d, f.target, values)


def _break_spelled(draw, d: Draft, f: Form, env: dict, candidates: Candidates) -> None:
    """E with one entry one larger (an absent list is given first): the length kept."""
    want = [int(v) for v in f.expr(env)]
    if want:
        want[draw(st.integers(0, len(want) - 1))] += 1
        _set_list(d, f.target, want)


_BREAKS = {"length": _break_length, "permutation": _break_permutation, "distinct": _break_distinct, "sorted": _break_sorted,
           "dims": _break_dims, "broadcast": _break_broadcast, "spelled": _break_spelled}
