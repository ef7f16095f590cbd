"""The oracle: what a spec says the outputs are, in vectorized NumPy.

One module per operator: ``opconform.oracle.<dialect>.<operator lower-case>``, exposing

    def run(spec: SpecVersion, inputs: list, attributes: dict, policies: dict) -> tuple[np.ndarray, ...]

which receives inputs that satisfy every relation, attributes with defaults filled in and
every policy resolved, and returns every output of the spec version, in spec order.
"""
from __future__ import annotations

import importlib
import itertools
import sys
from types import ModuleType
from typing import Any, Mapping, Sequence

import numpy as np

from opconform import specs
from opconform.specs import dialects
from opconform.model import Alternative, Expectation, RelationBroken, SpecVersion
from opconform.oracle import strings

__all__ = ["evaluate", "expectation", "has_oracle", "judge", "judged", "module_for", "resolve_policies"]


def module_for(spec: SpecVersion) -> ModuleType:
    name = f"opconform.oracle.{spec.dialect}.{spec.operator.lower()}"
    loaded = sys.modules.get(name)  # what import_module would return, without its microseconds per call
    if loaded is not None:
        return loaded
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as e:
        if e.name != name:
            raise
        if spec.maps_to is not None:  # computes what another dialect's version computes: its kernel, through the mapping
            return importlib.import_module(f"opconform.oracle.{spec.dialect}.mapped")
        raise NotImplementedError(f"no oracle for {spec.id}: expected module {name}") from None


def has_oracle(spec: SpecVersion) -> bool:
    try:
        module_for(spec)
        return True
    except NotImplementedError:
        return False


def resolve_policies(spec: SpecVersion, policies: Mapping[str, str] | None) -> dict[str, str]:
    out = {p.name: p.default for p in spec.policies}
    for k, v in (policies or {}).items():
        p = next((p for p in spec.policies if p.name == k), None)
        if p is None:
            raise ValueError(f"{spec.id} has no policy {k!r}; expected one of {sorted(out)}")
        if v not in p.options:
            raise ValueError(f"{spec.id}: policy {k}={v!r}; expected one of {list(p.options)}")
        out[k] = v
    return out


def stored_attributes(spec: SpecVersion, attributes: Mapping[str, Any]) -> dict[str, Any]:
    """The attributes with defaults filled in, as a model stores them: an ONNX float attribute is
    float32 (AttributeProto.f), so epsilon = 1e-5 is 9.99999974737875e-06 to every backend, which
    float64 results show (BatchNormalization's 1 / sqrt(var + epsilon) differed by 4e-9)."""
    resolved = spec.resolved_attributes(dict(attributes))
    if not dialects.is_onnx(spec.dialect):
        return resolved
    for a in spec.attributes:
        v = resolved.get(a.name)
        if a.type == "float" and isinstance(v, (int, float)) and not isinstance(v, bool):
            resolved[a.name] = float(np.float32(v))
        elif a.type == "floats" and isinstance(v, (list, tuple)):
            resolved[a.name] = type(v)(float(np.float32(x)) for x in v)
    return resolved


def evaluate(
    spec_id: str | SpecVersion,
    inputs: Sequence[Any],
    attributes: Mapping[str, Any] | None = None,
    policies: Mapping[str, str] | None = None,
    output_count: int | None = None,
) -> tuple[np.ndarray, ...]:
    """Outputs of a spec version for these inputs, one array per output in spec order.

    `output_count`: how many outputs the node has, for a variadic output port whose count
    nothing else fixes (Split-13 without `split`); passed on only when given, so only the
    oracle modules that need it take an `output_count` keyword.

    Raises RelationBroken naming the relation when the inputs break one."""
    spec = spec_id if isinstance(spec_id, SpecVersion) else specs.load(spec_id)
    inputs = strings.as_str_inputs(inputs)
    attributes = dict(attributes or {})
    specs.require(spec, inputs, attributes)
    extra = {} if output_count is None else {"output_count": output_count}
    outs = _arrays(module_for(spec).run(spec, inputs, stored_attributes(spec, attributes), resolve_policies(spec, policies),
                                        **extra))
    strings.check_outputs(spec.id, outs)
    return outs


def _arrays(outs: Sequence[Any]) -> tuple[Any, ...]:
    """The outputs, a NumPy scalar as the 0-d array it stands for: NumPy answers a reduction of a
    vector (np.argmax) with np.int64, not an array, and a case holding that scalar read as one whose
    answer is no tensor (a tensors-only backend called it a sequence, optional or map: unsupported)."""
    return tuple(np.asarray(y) if isinstance(y, np.generic) else y for y in outs)


def expectation(spec: SpecVersion, inputs: Sequence[Any], attributes: Mapping[str, Any]) -> Expectation:
    """Everything the spec allows for these inputs: one alternative per distinct outcome
    over every combination of open choices, or the error the spec requires. Where some options
    make the inputs invalid (the operator module raises an error relation under them) and others
    do not, the others' outcomes with `refused_under` naming the options that refuse."""
    inputs = strings.as_str_inputs(inputs)
    try:
        specs.require(spec, inputs, dict(attributes))
    except RelationBroken as e:
        return Expectation("error" if e.on_violation == "error" else "undefined", relation=e.relation)
    mod = module_for(spec)
    resolved = stored_attributes(spec, attributes)
    names = [p.name for p in spec.policies]
    alternatives: list[Alternative] = []
    refused: RelationBroken | None = None
    refusing: list[dict[str, str]] = []  # the combinations of options under which the inputs are invalid
    # a module may name the policies that can matter for these inputs (Unique's seven): the
    # others keep their default instead of multiplying the runs by their options
    in_play = getattr(mod, "policies_in_play", None)
    live = None if in_play is None else in_play(spec, list(inputs), resolved)
    for combo in itertools.product(*[p.options if live is None or p.name in live else (p.default,) for p in spec.policies]):
        pol = dict(zip(names, combo))
        try:
            outs = _arrays(mod.run(spec, list(inputs), resolved, pol))
        except RelationBroken as e:
            # an oracle-side relation: one the relation language cannot state (the integer
            # overflow of a reduction's sums), raised by the operator module from its own arithmetic
            if e.on_violation != "error":
                return Expectation("undefined", relation=e.relation)
            # an error under these options only (Range's scalar_inputs: strict) leaves the others' outputs allowed
            refused = refused or e
            refusing.append(pol)
            continue
        strings.check_outputs(spec.id, outs)
        if not any(_same(outs, a.outputs) for a in alternatives):
            alternatives.append(Alternative(pol, outs))
    if refused is not None and not alternatives:
        return Expectation("error", relation=refused.relation)
    if refused is not None:
        # the options every refusing combination shares: the ones that make the inputs invalid
        under = {k: v for k, v in refusing[0].items() if all(c[k] == v for c in refusing)}
        return Expectation("outputs", tuple(alternatives), relation=refused.relation, refused_under=under)
    return Expectation("outputs", tuple(alternatives))


def judged(spec: SpecVersion) -> bool:
    """Whether some output of the spec version is random (`compare: judged`): its values are not
    compared with the expected ones but judged by the operator module's judge()."""
    return any(p.compare == "judged" for p in spec.outputs)


def judge(spec: SpecVersion, inputs: Sequence[Any], attributes: Mapping[str, Any], policies: Mapping[str, str] | None,
          outputs: Mapping[str, np.ndarray]) -> str:
    """'' when the outputs got (by output name; the ones not asked left out) are what the text allows
    for these inputs under these policies, else why not, in one line. The operator module's

        def judge(spec, inputs, attributes, policies, outputs) -> str

    states the exact properties (Dropout: output == mask * x / (1 - ratio)) and the statistical
    ones (the share of kept elements, by a test whose false-alarm rate the spec states)."""
    mod = module_for(spec)
    return mod.judge(spec, strings.as_str_inputs(inputs), spec.resolved_attributes(dict(attributes)),
                     resolve_policies(spec, policies), dict(outputs))


def _same(a: tuple, b: tuple) -> bool:
    from opconform import containers

    return len(a) == len(b) and all(containers.digest(x) == containers.digest(y) for x, y in zip(a, b))
