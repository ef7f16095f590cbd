"""The spec loader refuses malformed files with one line naming file, field and expectation."""
from pathlib import Path

import numpy as np
import pytest

from opconform import specs
from opconform.model import SpecError
from opconform.specs import expr


def write(tmp_path: Path, name: str, text: str) -> Path:
    p = tmp_path / f"{name}.yaml"
    p.write_text(text)
    return p


GOOD = """
operator: Foo
dialect: onnx
versions:
  - since: 1
    source: {document: test}
    type_vars: {T: [float32]}
    inputs: [{name: X, type: T, rank: [1, null]}]
    outputs: [{name: Y, type: T}]
    attributes:
      axis: {type: int, default: 0}
    relations:
      - {id: axis_ok, check: "-rank(X) <= axis < rank(X)", on_violation: error}
"""


def test_good_file_loads(tmp_path):
    s = specs.load_file(write(tmp_path, "Foo", GOOD))
    v = s.version(1)
    assert v.id == "onnx::Foo-1"
    ids = [r.id for r in v.relations]
    assert ids == ["X_type", "X_rank", "axis_ok"]
    assert specs.first_broken(v, [np.zeros((2,), np.float32)], {"axis": 1}).id == "axis_ok"
    assert specs.first_broken(v, [np.zeros((2,), np.float32)], {"axis": -1}) is None
    assert specs.first_broken(v, [np.zeros((2,), np.int32)], {}).id == "X_type"


@pytest.mark.parametrize(
    "mutation, expected",
    [
        (("dialect: onnx", "dialect: tflite"), "field dialect: got 'tflite', expected one of 'onnx', 'onnx_ml', 'onnx_training', 'openvino'"),
        (("on_violation: error", "on_violation: maybe"), "field versions[0].relations[0].on_violation"),
        (("rank(X) <= axis", "rank(X) <= axs"), "unknown name(s) ['axs']"),
        (("rank(X) <= axis", "__import__('os') <= axis"), "calls '__import__'"),
        (("type: T, rank", "type: U, rank"), "field type: got 'U', expected one of the type_vars"),
        (("default: 0", "default: 0, bogus: 1"), "field versions[0].attributes.axis: unknown field(s)"),
        (("operator: Foo", "operator: Bar"), "expected the file name 'Foo'"),
        (("since: 1", "since: one"), "field versions[0].since: got 'one', expected integer"),
        (("versions:", "versions: 3\nx:"), "field "),
        # draw hints (docs/spec-format.md, "Draw hints")
        (("outputs: [{name: Y, type: T}]", "outputs: [{name: Y, type: T, values: {typical: [0, 1]}}]"),
         "field values: only an input is drawn from a range"),
        (("inputs: [{name: X, type: T, rank: [1, null]}]", "inputs: [{name: X, type: T, rank: [1, null], values: {typical: [3, 1]}}]"),
         "field values.typical: got [3, 1], expected lo <= hi"),
        (("inputs: [{name: X, type: T, rank: [1, null]}]", "inputs: [{name: X, type: T, rank: [1, null], values: {typical: [0, 'n']}}]"),
         "unknown name(s) ['n']"),
        (("outputs: [{name: Y, type: T}]", "outputs: [{name: Y, type: T, arity: '2'}]"),
         "field arity: only a variadic output has an arity"),
        (("axis: {type: int, default: 0}", "axis: {type: int, default: 0, tensor: {type: T, shape: [1]}}"),
         "field tensor: got an attribute of type 'int', expected type tensor"),
        (("    relations:", "    output_sets: [{asked: [Z]}]\n    relations:"), "field asked: got ['Z'], expected output names ['Y']"),
    ],
)
def test_malformed_file_is_refused_with_one_line(tmp_path, mutation, expected):
    text = GOOD.replace(*mutation)
    assert text != GOOD
    path = write(tmp_path, "Foo", text)
    with pytest.raises(SpecError) as e:
        specs.load_file(path)
    msg = str(e.value)
    assert str(path) in msg and expected in msg
    assert "\n" not in msg


def test_not_yaml(tmp_path):
    with pytest.raises(SpecError, match=r"Foo.yaml: not valid YAML at line"):
        specs.load_file(write(tmp_path, "Foo", "operator: [unclosed\n"))


@pytest.mark.parametrize(
    "text",
    ["x.__class__", "[y for y in x]", "lambda: 1", "open('f')", "f(x=1)", "x if"],
)
def test_expression_language_refuses_python(text):
    with pytest.raises(expr.ExprError):
        expr.parse(text)


def test_expression_language_evaluates():
    env = {"x": np.array([[1, 5], [2, 3]]), "b": 1}
    assert expr.evaluate("shape(x)[:b] == (2,)", env) is True
    assert expr.evaluate("all((x >= 1) & (x < 6))", env) is True
    assert expr.evaluate("1 <= shape(x)[-1] <= rank(x) - b", env) is False
    assert expr.evaluate("broadcastable((2, 1), (1, 3))", env) is True
    assert expr.evaluate("shape(x)[0] if b else 7", env) == 2


# ------------------------------------------------------------------ --spec patterns: one implementation
def _library(tmp_path: Path) -> list[Path]:
    onnx = tmp_path / "onnx"
    onnx.mkdir()
    good = write(onnx, "Foo", GOOD + GOOD.split("versions:\n", 1)[1].replace("since: 1", "since: 7"))
    bad = write(onnx, "Bar", GOOD.replace("operator: Foo", "operator: Bar").replace("on_violation: error", "on_violation: maybe"))
    return [bad, good]


@pytest.mark.parametrize("pattern, ids", [
    (None, ["onnx::Foo-1", "onnx::Foo-7"]),
    ("onnx::Foo", ["onnx::Foo-1", "onnx::Foo-7"]),  # dialect::Operator names every version
    ("onnx::Foo-7", ["onnx::Foo-7"]),
    (" onnx::Foo-1 , onnx::Nothing* ", ["onnx::Foo-1"]),  # comma-separated, spaces ignored
    ("onnx::F*-[0-5]", ["onnx::Foo-1"]),
])
def test_selection_matches_ids_and_operators(tmp_path, pattern, ids):
    versions, malformed = specs.selection(pattern, _library(tmp_path))
    assert [v.id for v in versions] == ids
    assert not malformed or pattern is None  # only a pattern that could name Bar reads it


def test_selection_reports_a_malformed_file_only_when_the_pattern_could_name_it(tmp_path):
    files = _library(tmp_path)
    versions, malformed = specs.selection("onnx::Bar-1", files)
    assert versions == [] and list(malformed) == [files[0]] and "on_violation" in str(malformed[files[0]])
    assert specs.selection("onnx::Foo*", files)[1] == {}


def test_every_spec_pattern_user_selects_the_same_versions():
    """The runner, the pytest plugin, `opconform validate` and specs.select choose through
    specs.selection: the same versions for the same pattern."""
    from opconform.oracle import validation
    from opconform.suites import plan, pytest_plugin

    for pattern in ("onnx::Abs", "onnx::Gather*-1[0-9],onnx::Abs-13", "openvino::*"):
        want = [v.id for v in specs.selection(pattern)[0]]
        assert want, pattern
        assert [v.id for v in specs.select(pattern)] == want
        assert [v.id for v in plan.select(pattern)[0]] == want
        assert [r.spec.id for r in validation.validate(pattern).versions] == want
        assert set(pytest_plugin._spec_ids(pattern)) <= set(want)
