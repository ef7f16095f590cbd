"""The spec format's `stress:` block (specs/loader.py) and the ladder inputs drawn from it
(generator/stress.py)."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from opconform import specs
from opconform.generator import stress_draw, stress_sizes
from opconform.model import SpecError, StressCase, StressInput

GOOD = """
operator: Foo
dialect: onnx
versions:
  - since: 1
    source: {document: test}
    type_vars: {T: [float32, int64]}
    inputs:
      - {name: X, type: T, rank: [1, null]}
      - {name: I, types: [int64], optional: true}
    outputs: [{name: Y, type: T}, {name: Z, type: T, optional: true}]
    attributes:
      axis: {type: int, default: 0}
    stress:
      complexity: n log n
      cases:
        - {name: distinct, inputs: {X: {type: float32, shape: [n], values: distinct}}}
        - {name: rows, attributes: {axis: 1}, outputs: [Y], inputs: {X: {type: int64, shape: ["n // 10", 10]}, I: {type: int64, shape: [3], values: {below: "n // 100 + 1"}}}}
"""


def load(tmp_path: Path, text: str):
    p = tmp_path / "Foo.yaml"
    p.write_text(text)
    return specs.load_file(p).version(1)


def test_the_stress_block_loads(tmp_path):
    s = load(tmp_path, GOOD).stress
    assert s.complexity == "n log n"
    assert [c.name for c in s.cases] == ["distinct", "rows"]
    rows = s.cases[1]
    assert rows.inputs["X"] == StressInput("int64", ("n // 10", 10), "random", None)
    assert rows.inputs["I"].values == "below" and rows.inputs["I"].below == "n // 100 + 1"
    assert rows.attributes == {"axis": 1} and rows.outputs == ("Y",)


def test_a_spec_without_the_block_is_not_stressed(tmp_path):
    assert load(tmp_path, GOOD[:GOOD.index("    stress:")]).stress is None


@pytest.mark.parametrize("mutation, expected", [
    (("complexity: n log n", "complexity: n^1.5"), "field versions[0].stress.complexity: got 'n^1.5'"),
    (("inputs: {X: {type: float32, shape: [n], values: distinct}}", "inputs: {W: {type: float32, shape: [n]}}"),
     "stress.cases[0] (distinct): field inputs.W: no such input"),
    (("{X: {type: float32, shape: [n], values: distinct}}", "{X: {type: int8, shape: [n]}}"),
     "field inputs.X.type: got 'int8', expected one of ['float32', 'int64']"),
    (("{X: {type: float32, shape: [n], values: distinct}}", "{I: {type: int64, shape: [n]}}"),
     "field inputs: lacks the required input(s) ['X']"),
    (("shape: [n], values: distinct", "shape: [m], values: distinct"), "unknown name(s) ['m']"),
    (("shape: [n], values: distinct", "shape: [n], values: shuffled"), "field versions[0].stress.cases[0].inputs.X.values"),
    (("attributes: {axis: 1}", "attributes: {axes: 1}"), "field attributes.axes: no such attribute"),
    (("outputs: [Y]", "outputs: [W]"), "field outputs: got ['W'], expected output names ['Y', 'Z']"),
    (("name: rows", "name: distinct"), "field name: 'distinct' appears twice"),
])
def test_a_malformed_stress_block_is_refused_with_one_line(tmp_path, mutation, expected):
    text = GOOD.replace(*mutation)
    assert text != GOOD
    with pytest.raises(SpecError) as e:
        load(tmp_path, text)
    assert expected in str(e.value) and "\n" not in str(e.value)


def test_the_ladder_is_geometric_from_1e2_to_1e7():
    sizes = stress_sizes()
    assert sizes[0] == 100 and sizes[-1] == 10**7 and len(sizes) == 11
    assert all(3.1 < b / a < 3.2 for a, b in zip(sizes, sizes[1:]))
    assert stress_sizes(10, 1000, 1) == [10, 100, 1000]
    with pytest.raises(ValueError, match="stress ladder"):
        stress_sizes(0, 10)


def test_worst_cases_are_drawn_as_the_spec_names_them(tmp_path):
    v = load(tmp_path, GOOD)
    (x,), attributes, asked = stress_draw(v, v.stress.cases[0], 1000, seed=3)
    assert x.dtype == np.float32 and x.shape == (1000,)
    assert sorted(x.tolist()) == list(range(1000)) and x.tolist() != list(range(1000))  # distinct, shuffled
    assert asked == (True, True) and attributes == {}
    (x, i), attributes, asked = stress_draw(v, v.stress.cases[1], 1000, seed=3)
    assert x.shape == (100, 10) and x.dtype == np.int64
    assert i.shape == (3,) and i.min() >= 0 and i.max() < 11
    assert asked == (True, False) and attributes == {"axis": 1}
    again = stress_draw(v, v.stress.cases[1], 1000, seed=3)[0]
    assert all(np.array_equal(a, b) for a, b in zip((x, i), again))  # same seed, same inputs


@pytest.mark.parametrize("values, expected", [("ascending", [0, 1, 2, 3]), ("descending", [3, 2, 1, 0]), ("equal", [1, 1, 1, 1])])
def test_ordered_and_equal_values(values, expected):
    v = specs.load("onnx::Unique-11")
    case = StressCase("c", {"X": StressInput("float32", ("n",), values)})
    assert stress_draw(v, case, 4)[0][0].tolist() == expected


def test_distinct_values_a_type_cannot_hold_exactly_are_refused():
    v = specs.load("onnx::Unique-11")
    case = StressCase("c", {"X": StressInput("float16", ("n",), "distinct")})
    with pytest.raises(ValueError, match="4000 distinct values do not fit float16 exactly"):
        stress_draw(v, case, 4000)


def test_every_stressed_library_spec_draws_valid_inputs_at_the_foot_of_the_ladder():
    from opconform import oracle

    stressed = [v for v in specs.all_versions() if v.stress is not None]
    assert {"onnx::Unique-11", "onnx::GatherND-11", "onnx::GatherND-12", "onnx::GatherND-13"} <= {v.id for v in stressed}
    for v in stressed:
        for case in v.stress.cases:
            inputs, attributes, _ = stress_draw(v, case, 316)
            assert specs.first_broken(v, inputs, attributes) is None, (v.id, case.name)
            assert oracle.evaluate(v, inputs, attributes)
