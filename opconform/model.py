"""The core model every stage shares: Spec, Case, Outcome, Verdict, Result.

Stages import this module and earlier stages only. Nothing here knows how a spec
is parsed, how a case is drawn or how a backend runs; it only says what they are.
"""
from __future__ import annotations

import enum
import functools
import hashlib
import json
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

import numpy as np

from opconform.graphs import Graph, GraphSignature, is_graph_json
from opconform import containers, tensors


# --------------------------------------------------------------------- specs
@dataclass(frozen=True)
class Source:
    document: str
    section: str = ""
    url: str = ""


@dataclass(frozen=True)
class Port:
    """An input or output of an operator version."""

    name: str
    types: tuple[str, ...]  # canonical element type names this port admits
    type_var: str | None = None  # ONNX type constraint name (ports sharing it share a type)
    type_from_attribute: str | None = None  # output type chosen by an attribute (OpenVINO)
    type_map: Mapping[str, str] = field(default_factory=dict)  # attribute value -> element type
    rank_min: int = 0
    rank_max: int | None = None
    optional: bool = False
    variadic: bool = False
    min_arity: int = 1
    constant: bool = False  # must be a constant (initializer / ov Constant)
    text: str = ""
    converted_from: str | None = None  # output only: holds this input's values converted to its type
    # output only: how its elements are compared. "exact"; "numeric_text": a string output holding numbers
    # as text, compared by the value the text reads back to (suites/verdicts.py, docs/spec-format.md);
    # "judged": a random output (Dropout's in training): element type and shape compared, the values
    # judged by the operator oracle's judge() over all the outputs got (oracle.judge)
    compare: str = "exact"
    # inputs only: where the generator draws this input's values, not a validity rule (that is
    # the relations' job). For values that set sizes (a repeat count, a window length, a depth), so
    # that draws ask for tensors of a few elements, not 2**63 (see docs/spec-format.md)
    values: ValueRange | None = None
    # variadic outputs only: an expression of the inputs and attributes giving how many outputs
    # the port stands for when no expected outputs say it (a must-refuse case's model)
    arity: str | None = None
    # OpenVINO's stateful operations (ReadValue, Assign): not an argument of the node but the value
    # the variable `variable_id` holds when the inference starts (an input; absent: never set, or
    # reset) or ends (an output). A backend sets and reads it through its state API; a run of N
    # inferences is N cases, each one's input state the output state of the one before
    state: bool = False


@dataclass(frozen=True)
class ValueRange:
    """The values an input is drawn from: integers lo .. hi times `step` (bounds may be
    expressions of other inputs and attributes, e.g. OneHot's indices `[-depth - 2, depth + 1]`)."""

    lo: float | str
    hi: float | str
    step: float = 1.0  # float inputs: multiples of step (exact in binary when a power of two)
    text: str = ""

    @property
    def reads_others(self) -> bool:
        return isinstance(self.lo, str) or isinstance(self.hi, str)


@dataclass(frozen=True)
class Domain:
    """The values a numeric attribute is given a meaning for, and those models use."""

    min: float | None = None  # None: unbounded below
    max: float | None = None
    exclusive_min: bool = False
    exclusive_max: bool = False
    typical: tuple[float, float] | None = None  # [lo, hi] where models' values lie
    on_violation: str = "undefined"  # "error" only where the text says a value outside must be refused
    text: str = ""

    def contains(self, v: float) -> bool:
        above = self.min is None or (v > self.min if self.exclusive_min else v >= self.min)
        below = self.max is None or (v < self.max if self.exclusive_max else v <= self.max)
        return bool(above and below)


@dataclass(frozen=True)
class Attribute:
    name: str
    type: str  # int, float, string, bool, ints, floats, strings, tensor, graph, sparse_tensor (never drawn)
    required: bool = False
    default: Any = None  # None with required False: the attribute has no default
    allowed: tuple[Any, ...] | None = None
    range: tuple[Any, Any] | None = None  # (lo, hi), either None for open
    text: str = ""
    domain: Domain | None = None  # numeric attributes: meaningful and typical values
    # tensor attributes: the element types and the shape a drawn value has (ConstantOfShape's value);
    # declared types without a shape: any small shape (Constant's value)
    tensor_types: tuple[str, ...] = ()
    tensor_shape: tuple[int, ...] | None = None
    # graph attributes: the inputs and outputs the body must have (opconform/graphs.py)
    signature: GraphSignature | None = None


@dataclass(frozen=True)
class Relation:
    """A rule the source states between ranks, shapes, attributes and values."""

    id: str
    check: str  # expression in the relation language (opconform.specs.expr)
    on_violation: str  # "error": a conforming backend must refuse; "undefined": anything goes
    when: str | None = None  # guard: the relation applies only where this holds
    text: str = ""


@dataclass(frozen=True)
class Policy:
    """A choice the source leaves open."""

    name: str
    options: tuple[str, ...]
    default: str
    text: str = ""


@dataclass(frozen=True)
class Example:
    name: str
    inputs: tuple[np.ndarray | None, ...]
    attributes: Mapping[str, Any]
    outputs: tuple[np.ndarray, ...] | None  # None when an error is expected
    expect_error: str | None = None  # relation id
    policies: Mapping[str, str] = field(default_factory=dict)
    source: str = ""


@dataclass(frozen=True)
class Erratum:
    id: str
    text: str
    reading: str


@dataclass(frozen=True)
class KnownSharedBug:
    """A class of valid cases on which independent backends return the same outputs, and those
    outputs are wrong by the spec: a bug they share (a common ancestor, a common reading), named
    with the text that makes it a bug, so the cross-backend agreement check does not take it for a
    defect of the spec. `match` is a relation-language expression over inputs, attributes and symbols."""

    id: str
    text: str  # the source text (or issue) that makes these outputs wrong
    match: str  # relation-language expression: true for the cases this bug covers
    backends: tuple[str, ...] = ()  # the backends known to share it; () for any
    url: str = ""


@dataclass(frozen=True)
class Tolerance:
    rtol: float = 0.0
    atol: float = 0.0
    per_type: Mapping[str, tuple[float, float]] = field(default_factory=dict)

    def for_type(self, name: str) -> tuple[float, float]:
        return self.per_type.get(name, (self.rtol, self.atol))


@dataclass(frozen=True)
class OutputSet:
    """One set of outputs a node may ask for, where `when` holds (BatchNormalization-14: Y alone in
    inference, Y, running_mean and running_var in training). A spec with output sets is drawn with
    those only; other sets are not claimed either way."""

    asked: tuple[str, ...]
    when: str | None = None  # relation language over the attributes (and inputs)
    text: str = ""


@dataclass(frozen=True)
class StressInput:
    """How one input of a stress case is drawn at ladder size n: its element type, its shape (each
    dimension an int or an expression of n) and its values: "random", "distinct", "equal",
    "ascending", "descending", or an expression `below` (random integers in [0, below))."""

    type: str
    shape: tuple[int | str, ...]
    values: str = "random"
    below: str | None = None  # values "below": the bound, an expression of n


@dataclass(frozen=True)
class StressCase:
    """One worst case of a stress ladder: inputs by name (an input left out is absent), the
    attributes set, and the outputs asked (empty: all)."""

    name: str
    inputs: Mapping[str, StressInput]
    attributes: Mapping[str, Any] = field(default_factory=dict)
    outputs: tuple[str, ...] = ()
    text: str = ""


@dataclass(frozen=True)
class StressHint:
    """What the stress profile runs on a spec version: the growth of its time the spec states
    (`complexity`, in the ladder size n) and the worst-case inputs to time it on."""

    complexity: str  # a growth named in specs/schema.json: "n", "n log n", "n^2", ...
    cases: tuple[StressCase, ...]
    text: str = ""


@dataclass(frozen=True)
class Difference:
    """One way an operator differs from the operator of another dialect it maps onto: what the
    side-by-side diff lists and the errata of conversions are made of."""

    id: str
    kind: str  # attribute_name, attribute_default, attribute_form, input_form, layout, broadcast,
    #            element_types, shape_rule, error_behaviour, output_type, semantics
    text: str


@dataclass(frozen=True)
class DialectMapping:
    """`maps_to`: this version computes what another dialect's spec version computes, its
    arguments spelled from this version's. Each entry is an expression of the relation language
    over this version's inputs, attributes and symbols; the oracle runs the other version's
    operator module on them (oracle/openvino/mapped.py)."""

    spec: str  # the other spec version's id, e.g. onnx::Add-14
    inputs: tuple[str | None, ...] | None = None  # the other's inputs in order (None: absent); None: ours in order
    attributes: Mapping[str, str] = field(default_factory=dict)  # the other's attribute -> expression; absent: its default
    outputs: tuple[str, ...] | None = None  # for each of our outputs, the other's output name; None: in order
    differences: tuple[Difference, ...] = ()


@dataclass(frozen=True)
class Layer:
    """An IR <layer> example of an OpenVINO document: element types and shapes, values only where
    the document gives them. Checked by running the oracle on inputs filled with `fill` (or the
    given data) and comparing the output element types and shapes."""

    name: str
    inputs: tuple[tuple[str, tuple[int, ...], Any] | None, ...]  # (dtype, shape, data or None) or absent
    outputs: tuple[tuple[str, tuple[int, ...]], ...]
    attributes: Mapping[str, Any] = field(default_factory=dict)
    expect_error: str | None = None
    fill: float = 1
    source: str = ""


@dataclass(frozen=True)
class SpecVersion:
    """One version of one operator in one dialect: the unit everything else works on."""

    dialect: str
    operator: str
    since: int
    domain: str
    family: str | None
    source: Source
    inputs: tuple[Port, ...]
    outputs: tuple[Port, ...]
    attributes: tuple[Attribute, ...]
    symbols: Mapping[str, str]
    relations: tuple[Relation, ...]
    policies: tuple[Policy, ...]
    examples: tuple[Example, ...]
    errata: tuple[Erratum, ...]
    tolerance: Tolerance
    signed_zero: str = "equal"  # "equal": -0.0 matches 0.0; "distinct": the sign must match
    notes: str = ""
    known_shared_bugs: tuple[KnownSharedBug, ...] = ()  # cases where backends agree against the spec, and why
    output_sets: tuple[OutputSet, ...] = ()  # the sets of outputs a node may ask for (empty: any subset)
    stress: StressHint | None = None  # the stress profile's growth and worst cases (None: not stressed)
    maps_to: DialectMapping | None = None  # computes what another dialect's version computes (below)
    layers: tuple[Layer, ...] = ()  # the document's IR <layer> examples (shapes, element types)

    @property
    def id(self) -> str:
        return f"{self.dialect}::{self.operator}-{self.since}"

    def attribute(self, name: str) -> Attribute:
        for a in self.attributes:
            if a.name == name:
                return a
        raise KeyError(f"{self.id} has no attribute {name!r}")

    def relation(self, rid: str) -> Relation:
        for r in self.relations:
            if r.id == rid:
                return r
        raise KeyError(f"{self.id} has no relation {rid!r}")

    def resolved_attributes(self, given: Mapping[str, Any]) -> dict[str, Any]:
        """The given attributes, with every omitted one that has a default filled in."""
        out = {a.name: a.default for a in self.attributes if a.default is not None}
        out.update(given)
        return out


@dataclass(frozen=True)
class Spec:
    """All versions of one operator in one dialect: the content of one spec file."""

    dialect: str
    operator: str
    path: str
    versions: tuple[SpecVersion, ...]

    def version(self, since: int) -> SpecVersion:
        for v in self.versions:
            if v.since == since:
                return v
        raise KeyError(f"{self.dialect}::{self.operator} has no version {since}")


# --------------------------------------------------------------------- cases
@dataclass(frozen=True)
class Alternative:
    """Expected outputs under one assignment of the open choices (policies)."""

    policies: Mapping[str, str]
    outputs: tuple[np.ndarray, ...]


@dataclass(frozen=True)
class Expectation:
    """What the spec says must happen: outputs (any one alternative), an error, or anything."""

    kind: str  # "outputs" | "error" | "undefined"
    alternatives: tuple[Alternative, ...] = ()
    relation: str | None = None  # the broken relation, for "error" and "undefined"
    # "outputs" only: the policies under which the inputs are invalid (an option of a policy that
    # makes them so, Range's scalar_inputs: strict), so that refusing them passes too; `relation`
    # then names what they break
    refused_under: Mapping[str, str] | None = None

    def to_json(self) -> dict:
        out = {
            "kind": self.kind,
            "relation": self.relation,
            "alternatives": [
                {"policies": dict(a.policies), "outputs": [containers.encode(o) for o in a.outputs]}
                for a in self.alternatives
            ],
        }
        if self.refused_under is not None:
            out["refused_under"] = dict(self.refused_under)
        return out

    @classmethod
    def from_json(cls, d: Mapping) -> "Expectation":
        return cls(
            kind=d["kind"],
            relation=d.get("relation"),
            refused_under=d.get("refused_under"),
            alternatives=tuple(
                Alternative(dict(a["policies"]), tuple(containers.decode(o) for o in a["outputs"]))
                for a in d.get("alternatives", ())
            ),
        )


@dataclass(frozen=True)
class Case:
    """One concrete test: a spec version, attribute values, inputs, outputs asked, expectation."""

    spec_id: str
    attributes: Mapping[str, Any]  # only those set explicitly; omitted ones take defaults
    inputs: tuple[np.ndarray | None, ...]  # None: an absent optional input; a container (opconform.containers) for a non-tensor port
    outputs_requested: tuple[bool, ...]  # one per spec output
    expected: Expectation
    seed: int | None = None
    constant_inputs: tuple[bool, ...] = ()  # inputs fed as constants (initializers)
    label: str = ""  # what the generator aimed at ("valid", "breaks:<relation>", "example:<name>")

    @functools.cached_property
    def id(self) -> str:
        """Stable id from the content that defines the test (not the expectation); computed once
        per case (a run asks for it hundreds of thousands of times; a case's tensors are never
        changed in place, dataclasses.replace makes a new case)."""
        h = hashlib.sha256()
        h.update(
            json.dumps(
                {
                    "spec": self.spec_id,
                    "attributes": _jsonable(dict(self.attributes)),
                    "outputs": list(self.outputs_requested),
                    "constant": list(self.constant_inputs),
                },
                sort_keys=True,
            ).encode()
        )
        for x in self.inputs:
            h.update(b"|")
            if x is not None:
                h.update(containers.digest(x))
        return h.hexdigest()[:16]

    def to_json(self) -> dict:
        return {
            "id": self.id,
            "spec_id": self.spec_id,
            "attributes": _jsonable(dict(self.attributes)),
            "inputs": [None if x is None else containers.encode(x) for x in self.inputs],
            "outputs_requested": list(self.outputs_requested),
            "constant_inputs": list(self.constant_inputs),
            "expected": self.expected.to_json(),
            "seed": self.seed,
            "label": self.label,
        }

    @classmethod
    def from_json(cls, d: Mapping) -> "Case":
        return cls(
            spec_id=d["spec_id"],
            attributes={k: _from_jsonable(v) for k, v in d["attributes"].items()},
            inputs=tuple(None if x is None else containers.decode(x) for x in d["inputs"]),
            outputs_requested=tuple(d["outputs_requested"]),
            expected=Expectation.from_json(d["expected"]),
            seed=d.get("seed"),
            constant_inputs=tuple(d.get("constant_inputs", ())),
            label=d.get("label", ""),
        )


_PLAIN = (int, float, str, bool, type(None))  # taken by json as they are: most attribute values


def _jsonable(v: Any) -> Any:
    if type(v) in _PLAIN:
        return v
    if isinstance(v, Graph):
        return v.to_json()
    if isinstance(v, np.ndarray):
        return tensors.encode(v)
    if isinstance(v, (np.integer,)):
        return int(v)
    if isinstance(v, (np.floating,)):
        return float(v)
    if isinstance(v, bytes):
        return v.decode("utf-8", "replace")
    if isinstance(v, dict):
        return {k: _jsonable(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_jsonable(x) for x in v]
    return v


def _from_jsonable(v: Any) -> Any:
    """Inverse of _jsonable for an attribute value: a tensor attribute (ConstantOfShape's value)
    was written by tensors.encode and must replay as the array, not as that dict; a body, as the Graph."""
    if is_graph_json(v):
        return Graph.from_json(v)
    if isinstance(v, dict) and "dtype" in v and "shape" in v and ("b64" in v or "strings" in v):
        return tensors.decode(v)
    return v


# ------------------------------------------------------------------ outcomes
class Verdict(str, enum.Enum):
    PASS = "pass"
    MISMATCH = "mismatch"
    WRONG_SHAPE = "wrong-shape"
    WRONG_DTYPE = "wrong-dtype"
    MISSING_OUTPUT = "missing-output"
    ERROR = "error"  # refused a valid case
    ACCEPTED_INVALID = "accepted-invalid"  # returned outputs where the spec requires an error
    UNSUPPORTED = "unsupported"  # backend says it does not implement this type/attr/opset
    CRASH = "crash"
    TIMEOUT = "timeout"
    SLOW = "slow"  # right answers, but time or memory grows past what the spec states (stress profile)
    HARNESS_ERROR = "harness-error"  # opconform itself failed on the case: never blamed on the backend

    @property
    def is_failure(self) -> bool:
        """A finding about the backend. A harness error is not one: it is opconform's own defect
        (the project's tests fail on it instead)."""
        return self not in (Verdict.PASS, Verdict.UNSUPPORTED, Verdict.HARNESS_ERROR)

    @property
    def ran(self) -> bool:
        """Whether the backend answered the case (pass rates count only these)."""
        return self not in (Verdict.UNSUPPORTED, Verdict.HARNESS_ERROR)


@dataclass
class Outcome:
    """What a backend did with one case, before it is judged."""

    status: str  # "ok" | "error" | "unsupported" | "crash" | "timeout" | "harness-error" (opconform's own failure)
    outputs: Sequence[np.ndarray | None] = ()
    message: str = ""  # the backend's own error text, or how it died
    backend_seconds: float = 0.0  # time inside the backend's run call
    build_seconds: float = 0.0  # time building/compiling the model (0 when reused)
    # how the model that ran was compiled: "dynamic" (one compile with symbolic dimensions serves
    # the signature), "per-shape" (compiled for this case's input shapes), "" where not a compile
    compiled: str = ""


@dataclass
class Result:
    """One line of a results file: a case, its verdict, and everything needed to replay it."""

    case_id: str
    spec_id: str
    backend: str
    verdict: Verdict
    detail: str = ""  # "got X, expected Y [op(args)]"
    backend_message: str = ""
    matched_policies: Mapping[str, str] | None = None
    backend_seconds: float = 0.0
    harness_seconds: float = 0.0
    build_seconds: float = 0.0
    case: Mapping | None = None  # Case.to_json(), for replay and reports
    got: Sequence[Mapping | None] | None = None  # encoded outputs the backend returned
    extra: Mapping[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict:
        d = {
            "case_id": self.case_id,
            "spec_id": self.spec_id,
            "backend": self.backend,
            "verdict": self.verdict.value,
            "detail": self.detail,
            "backend_message": self.backend_message,
            "matched_policies": None if self.matched_policies is None else dict(self.matched_policies),
            "backend_seconds": self.backend_seconds,
            "harness_seconds": self.harness_seconds,
            "build_seconds": self.build_seconds,
            "case": self.case,
            "got": self.got,
            "extra": dict(self.extra),
        }
        return d

    @classmethod
    def from_json(cls, d: Mapping) -> "Result":
        return cls(
            case_id=d["case_id"],
            spec_id=d["spec_id"],
            backend=d["backend"],
            verdict=Verdict(d["verdict"]),
            detail=d.get("detail", ""),
            backend_message=d.get("backend_message", ""),
            matched_policies=d.get("matched_policies"),
            backend_seconds=d.get("backend_seconds", 0.0),
            harness_seconds=d.get("harness_seconds", 0.0),
            build_seconds=d.get("build_seconds", 0.0),
            case=d.get("case"),
            got=d.get("got"),
            extra=d.get("extra", {}),
        )


class SpecError(ValueError):
    """A spec file is malformed; the message names the file, the field and what was expected."""


class RelationBroken(ValueError):
    """Inputs break a relation of the spec; `relation` is its id."""

    def __init__(self, spec_id: str, relation: str, on_violation: str, message: str = ""):
        self.spec_id = spec_id
        self.relation = relation
        self.on_violation = on_violation
        super().__init__(f"{spec_id}: relation {relation!r} broken ({on_violation}){': ' + message if message else ''}")
