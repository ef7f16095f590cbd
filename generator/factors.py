"""The categorical factors of a spec version, and the constraints between their values.

    >>> from opconform import specs
    >>> from opconform.generator.factors import factors, constraints
    >>> fs = factors(specs.load("onnx::Unique-11"))
    >>> [f.name for f in fs]
    ['type:T', 'attr:axis', 'attr:sorted', 'outputs']
    >>> allowed = constraints(specs.load("onnx::Unique-11"))   # a predicate over partial assignments

A *factor* is one categorical choice a case makes, derived from the spec's declarations alone
(nothing here is written per operator). Its values are concrete (an element type name, an
attribute value, True/False, a tuple of bools) or a `Class`: a set of values the case drawer picks
one from, for choices with no finite list (an axis relative to the rank, a float attribute).

| factor | kind | values |
| --- | --- | --- |
| `type:<T>` | type | every element type of type variable T that NumPy can hold (`opconform.dtypes`); one factor per type variable used by an input, shared by its ports |
| `type:<port>` | type | the same, for an input port with its own list of types (no type variable) |
| `values:<input>` | values | for an input an output converts (`converted_from`): the value classes of its element types (`values.value_classes`: zero, -0.0, NaN, +-inf, subnormal, max, lowest, just past the narrower type, -1, empty tensor, ...) |
| `attr:<name>` | attribute | see below; `OMITTED` too unless the attribute is required |
| `input:<name>` | presence | True, False: whether an optional (non-variadic) input is given |
| `outputs` | outputs | `Case.outputs_requested` tuples: required outputs always asked, every subset of the optional ones (up to 4 optional; past that: none, each alone, all); all-False is left out |

Attribute values, by declaration:
- `allowed` list: every allowed value (enums, flags such as `sorted: [0, 1]`, Cast's `to`).
- int read with `rank(...)` by one of the spec's relations (its range or a written relation, e.g.
  `-rank(X) <= axis <= rank(X) - 1`): the classes `NEGATIVE` and `NON_NEGATIVE`, each kept only if
  some rank admits it (probed with the spec's own relations).
- int with a fixed range: every value when it spans at most 8, else both bounds and `INTERIOR`;
  a half-open range: its bound and `ABOVE_MIN` (or `BELOW_MAX`).
- other ints: -1, 0, 1 and the default (sign classes of a count, diagonal, index...).
- float: the default and `NON_DEFAULT` (a fixed range adds its bounds; a `domain` keeps
  `NON_DEFAULT` inside it and weights its bounds, see generator/domains.py).
- bool: True, False.
- anything else (free strings, lists, tensors): `GIVEN` (a drawn value) against `OMITTED`.
Concrete values a relation that reads only this attribute rules out (`periodic in (0, 1)`,
`p >= 1`) are dropped. A factor left with fewer than two values is no factor: nothing to cover.

Constraints (`constraints(spec)`): each relation whose `when` and `check` read only factor
quantities -- attributes, `dtype(input)`, `present(input)`, and symbols built from those -- is
compiled into a test over a partial assignment (factor name -> value). It is checked once every
factor it reads is assigned; it rules an assignment out when its guard holds and its check does
not. A value it cannot judge (a `Class`, the element type of an absent input) leaves it
unjudged, so the relation stays a filter at draw time, as every relation on shapes or values
does. Relations no assignment can break (the implicit `<input>_type`, `<attr>_allowed`, ...)
are dropped, so a constraint's scope stays small. A `values:<input>` factor adds one constraint:
the class is one the element type has, and some member of it keeps every relation defined under
the row's element types and attributes (generator/value_classes.py probes the relations: NaN ->
int32 is undefined by Cast's `float_to_int_in_range`, so no valid row pairs them).
"""
from __future__ import annotations

import ast
import copy
import functools
import itertools
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Mapping

import numpy as np

from opconform import containers, dtypes, specs
from opconform.generator import element_edges as values, value_classes
from opconform.model import Attribute, Port, Relation, SpecVersion
from opconform.specs import expr


# ------------------------------------------------------------------ values
@dataclass(frozen=True)
class Class:
    """A factor value that stands for a set of concrete values; the case drawer picks one."""

    name: str

    def __repr__(self) -> str:
        return f"<{self.name}>"


OMITTED = Class("omitted")  # the attribute is not set (its default, if any, applies)
GIVEN = Class("given")  # the attribute is set to a drawn value
NEGATIVE = Class("negative")  # an axis counted from the back: -rank <= value < 0
NON_NEGATIVE = Class("non-negative")  # an axis counted from the front: 0 <= value < rank
ABOVE_MIN = Class("above-min")  # a value above the lower bound of a half-open range
BELOW_MAX = Class("below-max")  # a value below the upper bound of a half-open range
INTERIOR = Class("interior")  # a value strictly inside a wide fixed range
NON_DEFAULT = Class("non-default")  # a value other than the default

CLASSES = (OMITTED, GIVEN, NEGATIVE, NON_NEGATIVE, ABOVE_MIN, BELOW_MAX, INTERIOR, NON_DEFAULT)

_SMALL_RANGE = 8  # a fixed int range this wide or narrower: every value is a factor value
_MAX_OUTPUT_SUBSETS = 4  # optional outputs up to this many: every subset


@dataclass(frozen=True)
class Factor:
    """One categorical choice of a case: `name` (`type:T`, `attr:axis`, `input:B`, `outputs`),
    its `values` in a fixed order, `kind` (type, attribute, presence, outputs) and `target`
    (the type variable or port, attribute, input, or '' for outputs)."""

    name: str
    values: tuple[Any, ...]
    kind: str = ""
    target: str = ""

    def __post_init__(self) -> None:
        if not self.values:
            raise ValueError(f"factor {self.name!r} has no values")


# ------------------------------------------------------------------ factors
def factors(spec: SpecVersion) -> list[Factor]:
    """The categorical factors of a spec version, in spec order: types, attributes, presence of
    optional inputs, outputs asked. Only factors with at least two values."""
    return [f for f in _all_factors(spec) if len(f.values) >= 2]


# attribute types declared as the operator has them but never drawn: no value of them can be
# written by opconform (Constant's sparse_value: the core has no sparse tensors); graphs are drawn
# whole by the control_flow family (a body is no factor's value)
UNDRAWN = ("sparse_tensor", "graph")


def _all_factors(spec: SpecVersion) -> list[Factor]:
    """Every factor, single-valued ones included (they bind constants in constraints)."""
    out = list(_type_factors(spec))
    out += [Factor(value_classes.factor_name(p), value_classes.factor_values(representable(p.types)), "values", p.name)
            for p in value_classes.converted_inputs(spec)]
    unary = _unary_constraints(spec)
    out += [_attribute_factor(spec, a, unary.get(a.name, ())) for a in spec.attributes if a.type not in UNDRAWN]
    out += [Factor(f"input:{p.name}", (True, False), "presence", p.name)
            for p in spec.inputs if p.optional and not p.variadic]
    out.append(outputs_factor(spec))
    return out


def representable(types: Iterable[str]) -> tuple[str, ...]:
    """The element types among `types` that NumPy can hold here, so a case can carry them (a
    sequence, optional or map type: its tensors' elements)."""
    return tuple(t for t in types if (t in dtypes.BY_NAME and dtypes.get(t).numpy is not None)
                 or (containers.is_container_type(t) and containers.drawable(t)))


def _type_factors(spec: SpecVersion) -> Iterable[Factor]:
    seen: set[str] = set()
    for p in spec.inputs:
        key = p.type_var or p.name
        if key in seen:
            continue
        seen.add(key)
        yield Factor(f"type:{key}", representable(p.types) or tuple(p.types), "type", key)


def type_factor_name(port: Port) -> str:
    """The factor that holds an input port's element type."""
    return f"type:{port.type_var or port.name}"


OUTPUT_SET = "output_set"  # the constraint (and draw-time test) a spec's output sets become
_OUTPUTS = "__outputs"  # the variable holding the outputs asked, a tuple of booleans


def output_set_check(spec: SpecVersion) -> str | None:
    """The spec's output sets as one test in the relation language over the attributes and
    `__outputs` (None: any subset may be asked)."""
    parts = []
    for o in spec.output_sets:
        asked = tuple(p.name in o.asked for p in spec.outputs)
        parts.append(f"({_OUTPUTS} == {asked!r}" + (f" and ({o.when}))" if o.when else ")"))
    return " or ".join(parts) or None


def output_set_allowed(spec: SpecVersion, asked: tuple[bool, ...], env: Mapping[str, Any]) -> bool:
    """Whether a node asking `asked` holds one of the spec's output sets under `env` (a draft's
    relation environment); True for a spec without output sets or an unevaluable `when`."""
    check = output_set_check(spec)
    if check is None:
        return True
    try:
        return bool(expr.compiled(check)({**env, _OUTPUTS: tuple(asked)}))
    except (expr.ExprError, TypeError):
        return True


def example_outputs(spec: SpecVersion, inputs, attributes: Mapping[str, Any], listed: int | None) -> tuple[bool, ...]:
    """The outputs a worked example's case asks for: every output, or for a spec with output
    sets the allowed set (under the example's attributes) of `listed` outputs, else the largest."""
    every = (True,) * len(spec.outputs)
    if not spec.output_sets:
        return every
    env = specs.environment(spec, list(inputs), dict(attributes))
    sets = [v for v in outputs_factor(spec).values if output_set_allowed(spec, v, env)]
    if not sets:
        return every
    return next((v for v in sets if sum(v) == listed), max(sets, key=sum))


def outputs_factor(spec: SpecVersion) -> Factor:
    if spec.output_sets:  # only the sets the spec lists
        sets = [tuple(p.name in o.asked for p in spec.outputs) for o in spec.output_sets]
        return Factor("outputs", tuple(dict.fromkeys(sets)), "outputs", "")
    optional = [i for i, p in enumerate(spec.outputs) if p.optional]
    if len(optional) <= _MAX_OUTPUT_SUBSETS:
        choices = list(itertools.product((True, False), repeat=len(optional)))
    else:  # past a few optional outputs, every subset would swamp the other factors
        n = len(optional)
        choices = [(True,) * n, (False,) * n] + [tuple(i == j for j in range(n)) for i in range(n)]
    values = []
    for choice in choices:
        asked = [True] * len(spec.outputs)
        for i, on in zip(optional, choice):
            asked[i] = on
        if any(asked):  # a node that computes nothing is no test
            values.append(tuple(asked))
    return Factor("outputs", tuple(values), "outputs", "")


def _attribute_factor(spec: SpecVersion, a: Attribute, unary: tuple[Callable[[Any], bool], ...]) -> Factor:
    values = _attribute_values(spec, a)
    # values a relation on this attribute alone rules out are no valid choice (classes are kept)
    values = [v for v in values if isinstance(v, Class) or all(ok(v) for ok in unary)]
    if not a.required:
        values.append(OMITTED)
    return Factor(f"attr:{a.name}", tuple(_distinct(values)), "attribute", a.name)


def _attribute_values(spec: SpecVersion, a: Attribute) -> list[Any]:
    if a.allowed is not None:
        return list(a.allowed)
    if a.type == "bool":
        return [True, False]
    if a.type == "int":
        lo, hi = _fixed_range(a)
        if lo is not None and hi is not None:
            return list(range(lo, hi + 1)) if hi - lo < _SMALL_RANGE else [lo, hi, INTERIOR]
        if lo is not None:
            return [lo, ABOVE_MIN]
        if hi is not None:
            return [hi, BELOW_MAX]
        uses = _Uses(spec, a.name)
        if uses.against_rank:
            return _axis_classes(spec, a, uses)
        if uses.as_truth_value:  # `x if transA else y`: a flag
            return [0, 1]
        if a.range is not None and any(isinstance(b, str) for b in a.range):
            return [GIVEN]  # a bound read from another attribute (max_gram_length >= min_gram_length): drawn within it
        return sorted({-1, 0, 1} | ({a.default} if isinstance(a.default, int) else set()))
    if a.type == "float":
        lo, hi = _fixed_range(a)
        bounds = [b for b in (lo, hi) if b is not None]
        if a.default is None:
            return bounds + [GIVEN]
        return [a.default] + bounds + [NON_DEFAULT]
    return [GIVEN]


def _fixed_range(a: Attribute) -> tuple[Any, Any]:
    if a.range is None or any(isinstance(b, str) for b in a.range):
        return None, None
    return a.range


def _distinct(values: Iterable[Any]) -> list[Any]:
    """Values without repeats, first occurrence kept; True and 1 stay apart (they compare equal)."""
    out: list[Any] = []
    for v in values:
        if not any(type(v) is type(w) and v == w for w in out):
            out.append(v)
    return out


# --------------------------------------------------------- reading relations
_RANK_FUNCTIONS = frozenset({"rank", "ranks", "normalize_axis"})


class _Uses:
    """How the spec's relations and symbols use one attribute (through the symbols they read)."""

    def __init__(self, spec: SpecVersion, attribute: str):
        self.spec, self.attribute = spec, attribute
        self._symbol_reads: dict[str, tuple[frozenset[str], frozenset[str]]] = {}
        self.against_rank = False  # compared with a rank (`-rank(X) <= axis`), or normalize_axis(axis, .)
        self.as_truth_value = False  # the test of `if`, an operand of and/or/not
        texts = [t for r in spec.relations for t in (r.check, r.when) if t] + list(spec.symbols.values())
        for text in texts:
            for node in ast.walk(expr.parse(text)):
                self._look(node)

    def _look(self, node: ast.AST) -> None:
        if isinstance(node, ast.Compare):
            parts = [node.left, *node.comparators]
            mine = [self.reads_me(p) for p in parts]
            ranked = [self._mentions_rank(p) for p in parts]
            if any(m and not r for m, r in zip(mine, ranked)) and any(r and not m for m, r in zip(mine, ranked)):
                self.against_rank = True
        elif isinstance(node, ast.Call) and getattr(node.func, "id", None) == "normalize_axis" and node.args:
            self.against_rank |= self.reads_me(node.args[0])
        tests = []
        if isinstance(node, ast.IfExp):
            tests = [node.test]
        elif isinstance(node, ast.BoolOp):
            tests = list(node.values)
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            tests = [node.operand]
        self.as_truth_value |= any(isinstance(t, ast.Name) and self._is_me(t.id) for t in tests)

    def _is_me(self, name: str) -> bool:
        """The attribute itself, or a symbol that is just another name for it."""
        return name == self.attribute or self.spec.symbols.get(name, "").strip() == self.attribute

    def _reads(self, node: ast.AST) -> tuple[frozenset[str], frozenset[str]]:
        names, calls = _names_and_calls(node)
        for n in names & set(self.spec.symbols):
            n2, c2 = self._symbol(n)
            names, calls = names | n2, calls | c2
        return names, calls

    def _symbol(self, name: str) -> tuple[frozenset[str], frozenset[str]]:
        if name not in self._symbol_reads:
            self._symbol_reads[name] = (frozenset(), frozenset())  # a symbol reading itself adds nothing
            self._symbol_reads[name] = self._reads(expr.parse(self.spec.symbols[name]))
        return self._symbol_reads[name]

    def reads_me(self, node: ast.AST) -> bool:
        return self.attribute in self._reads(node)[0]

    def _mentions_rank(self, node: ast.AST) -> bool:
        return bool(self._reads(node)[1] & _RANK_FUNCTIONS)


def _names_and_calls(node: ast.AST) -> tuple[frozenset[str], frozenset[str]]:
    calls = {n.func.id for n in ast.walk(node) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}
    names = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)} - calls
    return frozenset(names), frozenset(calls)


def _axis_classes(spec: SpecVersion, a: Attribute, uses: _Uses) -> list[Any]:
    """NEGATIVE and NON_NEGATIVE, each kept when, at some rank, the relations reading the
    attribute hold for it (-1 and 0 stand for the classes; inputs are zeros of that rank)."""
    relevant = {r.id for r in spec.relations if any(uses.reads_me(expr.parse(t)) for t in (r.check, r.when) if t)}
    out = []
    for cls, probe in ((NEGATIVE, -1), (NON_NEGATIVE, 0)):
        if any(_holds_at_rank(spec, relevant, a.name, probe, rank) for rank in range(1, 5)):
            out.append(cls)
    return out or [NEGATIVE, NON_NEGATIVE]  # no rank admits either: leave it to the drawer


def _holds_at_rank(spec: SpecVersion, relevant: set[str], name: str, value: int, rank: int) -> bool:
    inputs = []
    for p in spec.inputs:
        r = max(rank, p.rank_min) if p.rank_max is None else min(max(rank, p.rank_min), p.rank_max)
        inputs += [np.zeros((2,) * r, np.float32)] * (2 if p.variadic else 1)
    try:
        statuses = specs.check_all(spec, inputs, {name: value})
    except Exception:  # a probe the relations cannot take says nothing against the class
        return True
    return all(s.state != "broken" for s in statuses if s.id in relevant)


# ---------------------------------------------------------------- constraints
class _Opaque:
    """A value a constraint cannot judge (a Class, the type of an absent input): every comparison
    or use raises, so the relation counts as unevaluable, and only `present()` sees it."""

    def _fail(self, *_: Any) -> Any:
        raise TypeError("a class of values, not a value")

    __eq__ = __ne__ = __lt__ = __le__ = __gt__ = __ge__ = __bool__ = __index__ = __int__ = __float__ = _fail
    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = __neg__ = __len__ = __iter__ = _fail
    __hash__ = object.__hash__


_UNJUDGED = _Opaque()


@dataclass(frozen=True)
class Constraint:
    """One relation of the spec as a test over factor values: `holds(assignment)` is False only
    when every factor of `scope` is assigned and the relation is broken."""

    id: str  # the relation's id
    on_violation: str  # the relation's: "error" or "undefined"
    scope: tuple[str, ...]  # the factor names it reads
    test: Callable[[Mapping[str, Any]], bool]  # over an assignment that covers `scope`

    def holds(self, assignment: Mapping[str, Any]) -> bool:
        if any(name not in assignment for name in self.scope):
            return True
        return self.test(assignment)


@dataclass(frozen=True)
class Constraints:
    """The constraints of a spec version as one predicate over partial assignments
    (factor name -> value): `allowed(assignment)` is False when a constraint whose scope is
    assigned is broken. `scope`: every factor some constraint reads (for covering arrays)."""

    items: tuple[Constraint, ...] = ()

    @property
    def scope(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(name for c in self.items for name in c.scope))

    def __call__(self, assignment: Mapping[str, Any]) -> bool:
        return all(c.holds(assignment) for c in self.items)

    def broken(self, assignment: Mapping[str, Any]) -> list[str]:
        """Ids of the constraints the assignment breaks."""
        return [c.id for c in self.items if not c.holds(assignment)]


def constraints(spec: SpecVersion, *, kinds: tuple[str, ...] = ("error", "undefined")) -> Constraints:
    """The spec's relations that read only factor quantities, as a predicate over partial
    assignments. `kinds`: which relations (by `on_violation`) a valid case must keep; both by
    default, since a valid case breaks neither."""
    binder = _Binder(spec)
    items = []
    for r in spec.relations:
        if r.on_violation not in kinds:
            continue
        c = binder.constraint(r)
        if c is not None and not _never_broken(c, binder):
            items.append(c)
    check = output_set_check(spec)
    c = binder.constraint(Relation(OUTPUT_SET, check, "undefined")) if check is not None else None
    if c is not None:  # every case asks one of the sets, whichever relations it keeps or breaks
        items.append(c)
    if set(kinds) >= {"error", "undefined"}:  # the probe keeps every relation, of either kind
        items += [_values_constraint(spec, binder, p) for p in value_classes.converted_inputs(spec)
                  if value_classes.factor_name(p) in binder.factors]
    return Constraints(tuple(items))


def _values_constraint(spec: SpecVersion, binder: "_Binder", port: Port) -> Constraint:
    """`values:<port>`: the class is one of the element type's, with a member the relations leave
    defined under the attributes and element types the assignment gives (see value_classes)."""
    attr_names, input_names = value_classes.reads(spec, port)
    inputs = {p.name: p for p in spec.inputs}
    attributes = {f"attr:{n}": n for n in sorted(attr_names)}
    types = {n: type_factor_name(inputs[n]) for n in sorted(input_names)}
    presence = {n: f"input:{n}" for n in sorted(input_names) if inputs[n].optional}
    own_type, own_values = type_factor_name(port), value_classes.factor_name(port)
    reads = [own_type, own_values, *attributes, *types.values(), *presence.values()]
    scope = tuple(dict.fromkeys(n for n in reads if n in binder.factors))

    def test(assignment: Mapping[str, Any]) -> bool:
        get = lambda name: assignment.get(name, binder.constants.get(name, _UNJUDGED))  # noqa: E731
        dtype, cls = get(own_type), get(own_values)
        if not isinstance(dtype, str) or not isinstance(cls, str):
            return True
        if cls not in values.value_classes(dtype):
            return False
        attrs = {}
        for factor, name in attributes.items():
            v = get(factor)
            if isinstance(v, Class) and v is not OMITTED or v is _UNJUDGED:
                return True  # a class of attribute values: left to the draw-time filter
            if v is not OMITTED:
                attrs[name] = v
        given = {}
        for name, factor in types.items():
            present = get(presence[name]) if name in presence else True
            if present is _UNJUDGED or (present is True and not isinstance(get(factor), str)):
                return True
            given[name] = get(factor) if present is True else None
        return cls in value_classes.allowed_members(spec, port.name, dtype, attrs, given)

    return Constraint(f"{own_values}_defined", "undefined", scope, test)


def _unary_constraints(spec: SpecVersion) -> dict[str, tuple[Callable[[Any], bool], ...]]:
    """attribute -> tests of relations that read that attribute and nothing else a case chooses."""
    binder = _Binder(spec, attributes_only=True)
    out: dict[str, list[Callable[[Any], bool]]] = {}
    for r in spec.relations:
        c = binder.constraint(r)
        if c is not None and len(c.scope) == 1 and c.scope[0].startswith("attr:"):
            name = c.scope[0]
            out.setdefault(name[len("attr:"):], []).append(lambda v, c=c, name=name: c.test({name: v}))
    return {k: tuple(v) for k, v in out.items()}


def _never_broken(c: Constraint, binder: "_Binder", limit: int = 20_000) -> bool:
    """True when no combination of the scope's values breaks the constraint (checked where the
    combinations are few): such a relation constrains nothing and would only widen the scope."""
    domains = [binder.domain(name) for name in c.scope]
    if int(np.prod([len(d) for d in domains], dtype=np.float64)) > limit:
        return False
    return all(c.test(dict(zip(c.scope, combo))) for combo in itertools.product(*domains))


@functools.lru_cache(maxsize=8192)
def _rewritten(text: str, inputs: frozenset[str], attributes: frozenset[str],
               chosen: frozenset[str] = frozenset()) -> tuple[str, frozenset[str]] | None:
    """(text with dtype(x) and present(x) as variables, the names it reads), or None where it reads
    the structure of an attribute (rank(axis), size(alpha)): the same for every binder of a spec,
    and rewriting costs a deep copy of the tree, so it is done once per text. `chosen`: list
    attributes whose values are all listed (`allowed`): their length is a factor quantity (RNN's
    len(activations) against the direction)."""
    # a copy: expr.parse caches its trees, and the rewriter edits the tree it is given
    tree = _Rewriter(set(inputs), set(attributes)).visit(copy.deepcopy(expr.parse(text)))
    names, _ = _names_and_calls(tree)
    for call in ast.walk(tree):  # rank(axis), size(alpha): the structure of a value, not the value
        if (isinstance(call, ast.Call) and getattr(call.func, "id", None) in _STRUCTURE_FUNCTIONS
                and _names_and_calls(call)[0] & (attributes - chosen)):
            return None
    return ast.unparse(tree), frozenset(names)


class _Binder:
    """Turns a relation into a Constraint: rewrites `dtype(input)` and `present(name)` into
    variables, checks every other name is a factor quantity, and binds the variables from an
    assignment. Factors with one value bind as constants."""

    def __init__(self, spec: SpecVersion, attributes_only: bool = False):
        self.spec = spec
        self.attributes_only = attributes_only  # every attribute a variable, inputs unknown
        self.inputs = {p.name: p for p in spec.inputs}
        self.attributes = {a.name: a for a in spec.attributes}
        every = [] if attributes_only else _all_factors(spec)
        self.factors = {f.name: f for f in every if len(f.values) >= 2}
        self.constants = {f.name: f.values[0] for f in every if len(f.values) == 1}
        self._symbols: dict[str, tuple[str, frozenset[str]] | None] = {}

    def domain(self, factor: str) -> tuple[Any, ...]:
        return self.factors[factor].values

    def _attribute_scope(self, name: str) -> frozenset[str]:
        factor = f"attr:{name}"
        return frozenset({factor}) if self.attributes_only or factor in self.factors else frozenset()

    def _variable_scope(self, name: str) -> frozenset[str] | None:
        """The factors a variable of a rewritten expression depends on; None: not a factor quantity."""
        if name in self.attributes:
            # a list, tensor or free-text value is drawn, not chosen: only its presence is a factor's
            scalar = self.attributes[name].type in _SCALAR_ATTRIBUTES and self.attributes[name].type != "string" \
                or self.attributes[name].allowed is not None
            return self._attribute_scope(name) if scalar else None
        if name in self.spec.symbols:
            sym = self._symbol(name)
            return None if sym is None else sym[1]
        if name == _OUTPUTS:
            return frozenset({"outputs"}) if "outputs" in self.factors else frozenset()
        if name.startswith("__present_") and name[len("__present_"):] in self.attributes:
            return self._attribute_scope(name[len("__present_"):])
        for prefix in ("__dtype_", "__present_"):
            port = self.inputs.get(name[len(prefix):]) if name.startswith(prefix) else None
            if port is not None and not self.attributes_only:
                deps = {f"input:{port.name}"} if port.optional else set()
                if prefix == "__dtype_":
                    deps.add(type_factor_name(port))
                return frozenset(d for d in deps if d in self.factors)
        return None  # an input read as a tensor (shape, values), or an unknown name

    def _rewrite(self, text: str) -> tuple[str, frozenset[str]] | None:
        """(rewritten text, factors read), or None when the text reads more than factors."""
        chosen = frozenset(n for n, a in self.attributes.items() if a.allowed is not None and a.type in ("ints", "floats", "strings"))
        rewritten = _rewritten(text, frozenset(self.inputs), frozenset(self.attributes), chosen)
        if rewritten is None:
            return None
        text, names = rewritten
        deps: set[str] = set()
        for name in sorted(names - {"True", "False", "None"}):
            scope = self._variable_scope(name)
            if scope is None:
                return None
            deps |= scope
        return text, frozenset(deps)

    def _symbol(self, name: str) -> tuple[str, frozenset[str]] | None:
        if name not in self._symbols:
            self._symbols[name] = None  # a symbol reading itself is no factor quantity
            self._symbols[name] = self._rewrite(self.spec.symbols[name])
        return self._symbols[name]

    def constraint(self, r: Relation) -> Constraint | None:
        check = self._rewrite(r.check)
        when = self._rewrite(r.when) if r.when is not None else ("True", frozenset())
        if check is None or when is None:
            return None
        deps = check[1] | when[1]
        if not deps:
            return None  # reads no factor: it holds or not whatever the case chooses
        order = {name: i for i, name in enumerate(self.factors)}
        scope = tuple(sorted(deps, key=lambda n: (order.get(n, len(order)), n)))  # factor order, not set order
        symbols = self._symbols_for(check[0], when[0])
        test = _compile_test(self, expr.compiled(check[0]), expr.compiled(when[0]), symbols)
        return Constraint(r.id, r.on_violation, scope, test)

    def _symbols_for(self, *texts: str) -> tuple[tuple[str, Callable], ...]:
        """The (rewritten, compiled) symbols the texts need, in spec order (a symbol may use earlier ones)."""
        needed: set[str] = set()
        todo = list(texts)
        while todo:
            for name in expr.names(todo.pop()):
                if name in self.spec.symbols and name not in needed:
                    needed.add(name)
                    todo.append(self._symbols[name][0])
        return tuple((name, expr.compiled(self._symbols[name][0])) for name in self.spec.symbols if name in needed)

    def environment(self, assignment: Mapping[str, Any]) -> dict[str, Any]:
        env: dict[str, Any] = {}
        for name, a in self.attributes.items():
            v = self._value(assignment, f"attr:{name}")
            value = a.default if v is OMITTED else _UNJUDGED if isinstance(v, Class) else v
            env[name] = value
            env[f"__present_{name}"] = value is not None  # as in a case: a default counts as present
        env[_OUTPUTS] = self._value(assignment, "outputs")
        if not self.attributes_only:
            for p in self.spec.inputs:
                present = assignment.get(f"input:{p.name}", _UNJUDGED) if p.optional else True
                env[f"__present_{p.name}"] = present
                env[f"__dtype_{p.name}"] = self._value(assignment, type_factor_name(p)) if present is True else _UNJUDGED
        return env

    def _value(self, assignment: Mapping[str, Any], factor: str) -> Any:
        if factor in assignment:
            return assignment[factor]
        return self.constants.get(factor, _UNJUDGED)


_SCALAR_ATTRIBUTES = frozenset({"int", "float", "bool", "string"})
# functions that read the structure of a tensor; on an attribute (a Class stands for it) they
# would answer for the placeholder, so a relation using them is no factor's
_STRUCTURE_FUNCTIONS = frozenset({
    "rank", "shape", "size", "dtype", "len", "ranks", "shapes", "dtypes", "values", "asarray", "float64",
    "isnan", "numeric_text", "integer_text", "within", "distinct_rows", "distinct_along", "unique_count",
    "einsum_terms", "einsum_problem", "tuple", "sorted",
})


def _compile_test(binder: _Binder, check: Callable, when: Callable, symbols: tuple[tuple[str, Callable], ...]):
    def test(assignment: Mapping[str, Any]) -> bool:
        env = binder.environment(assignment)
        try:
            for name, fn in symbols:
                env[name] = fn(env)
            if not _truth(when(env)):
                return True
            return _truth(check(env))
        except (expr.ExprError, TypeError):
            return True  # unjudged here: the relation stays a filter at draw time

    return test


def _truth(v: Any) -> bool:
    if isinstance(v, np.ndarray):
        return bool(np.all(v))
    return bool(v)


class _Rewriter(ast.NodeTransformer):
    """dtype(x) -> __dtype_x for inputs x, present(x) -> __present_x for inputs and attributes:
    the quantities a factor fixes. Any other use of an input is left, and makes the expression
    no factor's."""

    def __init__(self, inputs: set[str], attributes: set[str]):
        self.inputs, self.attributes = inputs, attributes

    def visit_Call(self, node: ast.Call) -> ast.AST:
        if isinstance(node.func, ast.Name) and len(node.args) == 1 and isinstance(node.args[0], ast.Name):
            fn, arg = node.func.id, node.args[0].id
            if (fn == "dtype" and arg in self.inputs) or (fn == "present" and arg in self.inputs | self.attributes):
                return ast.copy_location(ast.Name(f"__{fn}_{arg}", ast.Load()), node)
        return self.generic_visit(node)
