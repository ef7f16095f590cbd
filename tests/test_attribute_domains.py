"""Attribute domains (spec field `domain`): the schema and loader take and refuse it with one line,
valid cases draw inside it (default and boundary weighted), must-refuse ones step just outside it
only where the text makes leaving it an error."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from opconform import specs
from opconform.generator import domains, pins
from opconform.generator.factors import NON_DEFAULT
from opconform.model import SpecError

FOO = """
operator: Foo
dialect: onnx
versions:
  - since: 1
    source: {document: test}
    type_vars: {T: [float32]}
    inputs: [{name: X, type: T}]
    outputs: [{name: Y, type: T}]
    attributes:
      eps: {type: float, default: 1.0e-5, domain: DOMAIN}
"""


def load(tmp_path: Path, domain: str, attribute: str | None = None):
    text = FOO.replace("DOMAIN", domain)
    if attribute is not None:
        text = text.replace("eps: {type: float, default: 1.0e-5,", attribute)
    p = tmp_path / "Foo.yaml"
    p.write_text(text)
    return specs.load_file(p).version(1)


def test_domain_loads_and_becomes_a_relation(tmp_path):
    v = load(tmp_path, "{min: 0, exclusive_min: true, typical: [1.0e-12, 1.0e-1], text: positive}")
    dom = v.attribute("eps").domain
    assert (dom.min, dom.exclusive_min, dom.typical, dom.on_violation) == (0, True, (1e-12, 0.1), "undefined")
    r = v.relation("eps_domain")
    assert (r.check, r.on_violation, r.text) == ("0 < eps", "undefined", "positive")
    x = np.zeros(2, np.float32)
    assert specs.first_broken(v, [x], {"eps": 0.0}).id == "eps_domain"
    assert specs.first_broken(v, [x], {"eps": 1e-3}) is None


def test_typical_only_domain_adds_no_relation(tmp_path):
    v = load(tmp_path, "{typical: [0.1, 2.0]}")
    assert "eps_domain" not in [r.id for r in v.relations]


@pytest.mark.parametrize("domain, attribute, expected", [
    ("{min: zero}", None, "field versions[0].attributes.eps.domain.min: got 'zero', expected number"),
    ("{lowest: 0}", None, "field versions[0].attributes.eps.domain: unknown field(s)"),
    ("{min: 0, on_violation: maybe}", None, "field versions[0].attributes.eps.domain.on_violation: got 'maybe'"),
    ("{min: 1, max: 0}", None, "field domain: got min 1 > max 0"),
    ("{min: 0, typical: [1, 0]}", None, "field domain.typical: got [1, 0]"),
    ("{min: 1}", None, "field domain: the default 1e-05 is outside it"),
    ("{exclusive_min: true}", None, "field domain.exclusive_min: set without domain.min"),
    ("{min: 0}", "eps: {type: string, default: a,", "field domain: got an attribute of type 'string'"),
])
def test_bad_domain_is_refused_with_one_line(tmp_path, domain, attribute, expected):
    with pytest.raises(SpecError) as e:
        load(tmp_path, domain, attribute)
    msg = str(e.value)
    assert "\n" not in msg and "Foo.yaml" in msg and expected in msg, msg


def test_every_float_attribute_of_the_library_has_a_domain_holding_its_default():
    for v in specs.all_versions():
        for a in v.attributes:
            if a.type == "float":
                assert a.domain is not None, f"{v.id}: {a.name} has no domain"
                assert a.default is None or a.domain.contains(a.default), (v.id, a.name)


def _epsilons(profile_cases) -> list[float]:
    return [float(c.attributes["epsilon"]) for c in profile_cases
            if "epsilon" in c.attributes and c.label.startswith("valid")]


def test_layer_normalization_epsilon_in_the_domain_and_a_non_default_one_drawn():
    from opconform.suites import plan

    r = plan.cases_for("onnx::LayerNormalization-17", "ci", 11)
    assert r.error is None
    eps = _epsilons(r.cases)
    dom = specs.load("onnx::LayerNormalization-17").attribute("epsilon").domain
    assert eps and all(dom.contains(e) for e in eps), sorted(set(eps))
    # values models use: the default, the boundary 0, or inside the typical range
    lo, hi, default = (float(np.float32(v)) for v in (*dom.typical, 1e-5))  # attributes are float32
    assert all(e in (default, 0.0) or lo <= e <= hi for e in eps), sorted(set(eps))
    assert any(lo <= e <= hi and e != default for e in eps)  # a non-default epsilon is checked


def test_non_default_pin_draws_inside_the_domain():
    v = specs.load("onnx::LayerNormalization-17")
    a = v.attribute("epsilon")
    from opconform.generator.families.default import attribute_value

    strategy = pins.class_values(a, NON_DEFAULT, None, attribute_value(a))
    seen = []

    @settings(max_examples=60, derandomize=True, database=None)
    @given(strategy)
    def check(e):
        seen.append(e)
        assert e != a.default and a.domain.contains(e)

    check()
    assert len(set(seen)) > 5


@given(st.data())
@settings(max_examples=40, derandomize=True, database=None)
def test_outside_is_just_past_the_bounds(data):
    lrn = specs.load("onnx::LRN-13")
    bias = lrn.attribute("bias")  # min 0, exclusive
    v = data.draw(domains.outside(bias))
    assert not bias.domain.contains(v) and -1.0 <= v <= 0.0


def test_domain_breaker_only_where_leaving_it_is_an_error(tmp_path):
    undefined = load(tmp_path, "{min: 0}")
    assert domains.breakers(undefined) == {}
    error = load(tmp_path, "{min: 0, on_violation: error}")
    assert list(domains.breakers(error)) == ["eps_domain"]
    from opconform.generator import generate

    cases = [c for c in generate(error, 12, seed=3, kind="invalid") if c.label.startswith("breaks:eps_domain")]
    assert cases and all(c.expected.kind == "error" for c in cases)
    assert all(not error.attribute("eps").domain.contains(c.attributes["eps"]) for c in cases)


FLOAT_ATTRIBUTES = sorted({(v.id, a.name) for v in specs.all_versions() for a in v.attributes
                           if a.type == "float" and a.domain is not None})


@pytest.mark.parametrize("spec_id, name", FLOAT_ATTRIBUTES[:: max(1, len(FLOAT_ATTRIBUTES) // 12)])
@given(st.data())
@settings(max_examples=60, derandomize=True, database=None)
def test_float_attribute_draws_are_float32_values(spec_id, name, data):
    """ONNX stores float attributes as float32: a drawn 0.01 is 0.0099999998 in the model, so an
    expectation computed from 0.01 was wrong (LRN-13's expected output differed from the oracle on
    the model's own attributes)."""
    v = data.draw(domains.inside(specs.load(spec_id).attribute(name)))
    assert v == float(np.float32(v)), f"{spec_id} {name}={v!r} is not a float32 value"
