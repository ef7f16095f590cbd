"""Sequences, optionals and maps as values (opconform/containers.py; issues 15 and 19): the type
strings of the spec language, the round trips (results JSON, ONNX protos, test-data files), the
comparison's verdicts, the operators on them, and real backends running them."""
from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from opconform import compare, containers, oracle, specs
from opconform.containers import MapValue, OptionalValue, SequenceValue
from opconform.generator import generate, value_protos
from opconform.model import Case, Expectation, SpecError, Alternative

F32 = np.float32

# every spec version of the operators on these values
CONTAINER_SPECS = ["onnx::SequenceEmpty-11", "onnx::SequenceConstruct-11", "onnx::SequenceInsert-11",
                   "onnx::SequenceAt-11", "onnx::SequenceErase-11", "onnx::SequenceLength-11",
                   "onnx::SplitToSequence-11", "onnx::SplitToSequence-24", "onnx::ConcatFromSequence-11",
                   "onnx::Optional-15", "onnx::Optional-28", "onnx::OptionalHasElement-15",
                   "onnx::OptionalHasElement-18", "onnx::OptionalHasElement-28", "onnx::OptionalGetElement-15",
                   "onnx::OptionalGetElement-18", "onnx::OptionalGetElement-28",
                   "onnx_ml::ZipMap-1", "onnx_ml::DictVectorizer-1", "onnx_ml::CastMap-1"]


def _values() -> list:
    """One value of each kind, empty ones included."""
    seq = containers.sequence("float32", [np.array([1.5, np.nan], F32), np.zeros((2, 0), F32)])
    return [seq, containers.sequence("string", []), containers.optional("int64"),
            containers.optional("seq(tensor(float32))", seq), containers.optional("bool", np.array(True)),
            containers.map_of("string", "float32", ["a", "b"], [1.0, -0.0]),
            containers.map_of("int64", "string", [np.iinfo(np.int64).max, -1], ["x", ""]),
            SequenceValue("seq(map(int64,tensor(float32)))", (containers.map_of("int64", "float32", [3], [2.5]),))]


# ------------------------------------------------------------------ type strings
@pytest.mark.parametrize("text,canonical", [
    ("seq(tensor(float))", "seq(tensor(float32))"),
    ("optional(seq(tensor(double)))", "optional(seq(tensor(float64)))"),
    ("map(int64, string)", "map(int64,tensor(string))"),
    ("seq(map(string, float))", "seq(map(string,tensor(float32)))"),
    ("tensor(int8)", "int8"),
])
def test_onnx_type_strings_take_one_canonical_spelling(text, canonical):
    assert containers.canonical(text) == canonical
    assert containers.canonical(canonical) == canonical


@pytest.mark.parametrize("text,names", [("seq(tensor(floot))", "floot"), ("map(float, int64)", "map keys"),
                                        ("seq(tensor(float)", "unbalanced"), ("list(tensor(float))", "expected")])
def test_a_bad_type_string_is_refused_naming_it(text, names):
    with pytest.raises(containers.TypeStringError, match=r"\(") as e:
        containers.parse_type(text)
    assert names in str(e.value) and text in str(e.value)


def test_a_spec_port_of_an_unknown_container_type_is_one_line_naming_the_field(tmp_path):
    text = (Path(__file__).resolve().parents[1] / "specs/onnx/SequenceLength.yaml").read_text().replace("seq(tensor(uint8))", "seq(tensor(uint9))", 1)
    bad = tmp_path / "SequenceLength.yaml"
    bad.write_text(text)
    with pytest.raises(SpecError) as e:
        specs.load_file(bad)
    assert "input_sequence" in str(e.value) and "uint9" in str(e.value) and "\n" not in str(e.value)


# ------------------------------------------------------------------ round trips
@pytest.mark.parametrize("k", range(len(_values())))
def test_json_and_proto_round_trips_keep_every_bit(k, tmp_path):
    x = _values()[k]
    for back in (containers.decode(containers.encode(x)),
                 value_protos.from_proto(value_protos.to_proto(x, "v"), x.type)):
        assert containers.type_of(back) == x.type
        assert containers.digest(back) == containers.digest(x)
        assert compare.check(back, x) is None
    path = tmp_path / "input_0.pb"
    path.write_bytes(value_protos.to_proto(x, "v").SerializeToString())
    assert containers.digest(value_protos.read(path, x.type)) == containers.digest(x)
    assert value_protos.type_string(value_protos.type_proto(x.type)) == x.type


def test_a_case_holding_containers_replays_from_its_json_with_the_same_id():
    seq, opt = _values()[0], _values()[3]
    case = Case("onnx::OptionalGetElement-18", {}, (opt,), (True,),
                Expectation("outputs", (Alternative({}, (seq,)),)))
    back = Case.from_json(case.to_json())
    assert back.id == case.id and containers.digest(back.inputs[0]) == containers.digest(opt)
    assert containers.digest(back.expected.alternatives[0].outputs[0]) == containers.digest(seq)
    other = Case("onnx::OptionalGetElement-18", {}, (containers.optional("seq(tensor(float32))"),), (True,), case.expected)
    assert other.id != case.id  # an empty optional of the same type is another case


# ------------------------------------------------------------------ comparison
def test_the_comparison_of_containers_names_what_differs():
    a = containers.sequence("float32", [np.array([1.0], F32), np.array([2.0], F32)])
    assert compare.check(a, a) is None
    shorter = containers.sequence("float32", [np.array([1.0], F32)])
    assert compare.check(shorter, a).kind == "shape" and "sequence of 1, expected 2" in compare.check(shorter, a).message
    other_type = containers.sequence("float64", [np.array([1.0]), np.array([2.0])])
    assert compare.check(other_type, a).kind == "element type"
    assert compare.check(np.array([1.0], F32), a).kind == "element type"  # a tensor where a sequence is due
    wrong = containers.sequence("float32", [np.array([1.0], F32), np.array([2.5], F32)])
    found = compare.check(wrong, a)
    assert found.kind == "values" and "item [1]" in found.message and compare.differing(wrong, a).tolist() == [False, True]
    ragged = containers.sequence("float32", [np.array([1.0], F32), np.array([2.0, 2.0], F32)])
    assert compare.check(ragged, a).kind == "shape"
    full, empty = containers.optional("float32", np.array(1.0, F32)), containers.optional("float32")
    assert compare.check(empty, full).kind == "shape" and "empty" in compare.check(empty, full).message
    assert compare.check(full, empty).kind == "shape" and compare.check(empty, empty) is None
    m = containers.map_of("string", "float32", ["a", "b"], [1.0, 2.0])
    assert compare.check(containers.map_of("string", "float32", ["b", "a"], [2.0, 1.0]), m) is None  # a map has no order
    assert compare.check(containers.map_of("string", "float32", ["a", "c"], [1.0, 2.0]), m).kind == "shape"
    assert compare.check(containers.map_of("string", "float32", ["a", "b"], [1.0, 2.5]), m).kind == "values"
    tol = compare.Rules(compare.Tolerance(rtol=0.3, atol=0.0))
    assert compare.check(wrong, a, tol) is None  # the spec's tolerance applies to each tensor


def test_a_runtime_python_form_reads_back_as_its_declared_type():
    assert containers.from_python(None, "optional(tensor(int64))").has_element is False
    m = containers.from_python({"a": 1.0}, "map(string,tensor(float32))")  # Python floats carry no type
    assert m.values.dtype == np.float32 and m.type == "map(string,tensor(float32))"
    s = containers.from_python([np.zeros(2, F32)], "seq(tensor(float32))")
    assert isinstance(s, SequenceValue) and s.items[0].shape == (2,)
    with pytest.raises(TypeError, match="seq"):
        containers.from_python(np.zeros(2), "seq(tensor(float32))")
    assert isinstance(containers.guess_from_python([np.zeros(1, F32)]), SequenceValue)


# ------------------------------------------------------------------ the operators
def _ev(spec_id: str, inputs: list, attributes: dict | None = None, policies: dict | None = None):
    return oracle.evaluate(spec_id, inputs, attributes or {}, policies)


def test_sequence_operators_do_what_the_text_says():
    x = [np.full((1,), k, F32) for k in range(3)]
    seq = containers.sequence("float32", x)
    assert _ev("onnx::SequenceLength-11", [seq])[0] == 3
    assert _ev("onnx::SequenceAt-11", [seq, np.array(-1, np.int64)])[0].tolist() == [2.0]
    inserted = _ev("onnx::SequenceInsert-11", [seq, np.full((2,), 9, F32), np.array(-1, np.int32)])[0]
    assert [a.tolist() for a in inserted.items] == [[0.0], [1.0], [9.0, 9.0], [2.0]]  # before the last one
    assert [a.tolist() for a in _ev("onnx::SequenceErase-11", [seq])[0].items] == [[0.0], [1.0]]  # the last
    assert _ev("onnx::SequenceEmpty-11", [], {"dtype": 7})[0].type == "seq(tensor(int64))"
    stacked = _ev("onnx::ConcatFromSequence-11", [seq], {"axis": -1, "new_axis": 1})[0]
    assert stacked.shape == (1, 3) and stacked.dtype == F32
    parts = _ev("onnx::SplitToSequence-11", [np.arange(5, dtype=F32), np.array(2, np.int64)])[0]
    assert [p.tolist() for p in parts.items] == [[0, 1], [2, 3], [4]]  # the last chunk smaller
    empty_axis = _ev("onnx::SplitToSequence-11", [np.zeros((0, 3), F32), np.array(2, np.int64)])[0]
    assert empty_axis.items == ()  # ceil(0 / 2) chunks: none
    single = _ev("onnx::SplitToSequence-11", [np.arange(4, dtype=F32).reshape(2, 2)], {"keepdims": 0})[0]
    assert [p.shape for p in single.items] == [(2,), (2,)]


def test_must_refuse_positions_and_shapes_name_their_relation():
    seq = containers.sequence("float32", [np.zeros(1, F32)])
    for spec_id, inputs, relation in [
        ("onnx::SequenceAt-11", [seq, np.array(1, np.int64)], "position_in_range"),
        ("onnx::SequenceInsert-11", [seq, np.zeros(1, F32), np.array(2, np.int64)], "position_in_range"),
        ("onnx::SequenceInsert-11", [seq, np.zeros(1, np.int8)], "element_type_matches"),
        ("onnx::SequenceAt-11", [seq, np.zeros(2, np.int64)], "position_one_element"),
    ]:
        e = oracle.expectation(specs.load(spec_id), inputs, {})
        assert (e.kind, e.relation) == ("error", relation), spec_id
    ragged = containers.sequence("float32", [np.zeros((1, 2), F32), np.zeros((2, 3), F32)])
    e = oracle.expectation(specs.load("onnx::ConcatFromSequence-11"), [ragged], {"axis": 0})
    assert (e.kind, e.relation) == ("error", "shapes_agree")


def test_optionals():
    x = np.arange(3, dtype=np.int32)
    full = _ev("onnx::Optional-15", [x])[0]
    assert full.type == "optional(tensor(int32))" and full.value.tolist() == [0, 1, 2]
    empty = _ev("onnx::Optional-15", [], {"type": "seq(tensor(float32))"})[0]
    assert empty.type == "optional(seq(tensor(float32)))" and not empty.has_element
    assert _ev("onnx::OptionalHasElement-15", [empty])[0] == np.array(False)
    assert _ev("onnx::OptionalHasElement-18", [x])[0] == np.array(True)  # a tensor holds an element
    assert _ev("onnx::OptionalHasElement-18", [None])[0] == np.array(False)
    assert _ev("onnx::OptionalGetElement-18", [full])[0].tolist() == [0, 1, 2]
    assert oracle.expectation(specs.load("onnx::OptionalGetElement-15"), [empty], {}).kind == "undefined"
    e = oracle.expectation(specs.load("onnx::Optional-15"), [], {})
    assert (e.kind, e.relation) == ("error", "input_or_type")


def test_ml_map_operators():
    # the text's own example: vocabulary ["a", "c", "b", "z"], input {"a": 4, "c": 8} -> [4, 8, 0, 0]
    m = containers.map_of("string", "int64", ["a", "c"], [4, 8])
    y = _ev("onnx_ml::DictVectorizer-1", [m], {"string_vocabulary": ["a", "c", "b", "z"]})[0]
    assert y.tolist() == [4, 8, 0, 0] and y.dtype == np.int64
    texts = containers.map_of("int64", "string", [2], ["x"])
    for zero, want in (("empty", ["", "x"]), ("zero_text", ["0", "x"])):
        got = _ev("onnx_ml::DictVectorizer-1", [texts], {"int64_vocabulary": [1, 2]}, {"missing_string": zero})[0]
        assert got.tolist() == want
    z = _ev("onnx_ml::ZipMap-1", [np.array([[1, 2], [3, 4]], F32)], {"classlabels_int64s": [7, 5]})[0]
    assert z.type == "seq(map(int64,tensor(float32)))" and [mp.as_dict() for mp in z.items] == [{7: 1, 5: 2}, {7: 3, 5: 4}]
    e = oracle.expectation(specs.load("onnx_ml::ZipMap-1"), [np.zeros((1, 3), F32)], {"classlabels_strings": ["a"]})
    assert (e.kind, e.relation) == ("error", "columns_match_keys")
    c = containers.map_of("int64", "float32", [3, 1], [1.5, -2.0])
    dense = _ev("onnx_ml::CastMap-1", [c], {}, {"output_shape": "flat"})[0]
    assert dense.tolist() == [-2.0, 1.5]  # ascending keys
    integral = containers.map_of("int64", "float32", [3, 1], [4.0, -2.0])
    sparse = _ev("onnx_ml::CastMap-1", [integral], {"map_form": "SPARSE", "max_map": 5, "cast_to": "TO_INT64"})[0]
    assert sparse.tolist() == [[0, -2, 0, 4, 0]] and sparse.dtype == np.int64  # zero where no key
    cast = specs.load("onnx_ml::CastMap-1")
    assert oracle.expectation(cast, [c], {"map_form": "SPARSE", "max_map": 3}).relation == "keys_below_max_map"
    assert oracle.expectation(cast, [c], {"cast_to": "TO_INT64"}).kind == "undefined"  # 1.5: no rounding stated


# ------------------------------------------------------------------ generation
@pytest.mark.parametrize("spec_id", CONTAINER_SPECS)
def test_generated_cases_hold_the_types_their_ports_declare(spec_id):
    spec = specs.load(spec_id)
    valid = generate(spec, 6, seed=2, expect=oracle.expectation, kind="valid")
    assert valid, f"{spec_id}: no valid case drawn"
    with_outputs = [c for c in valid if c.expected.kind == "outputs"]
    assert with_outputs, f"{spec_id}: every valid draft's expectation is {[c.expected.kind for c in valid]}"
    for c in valid:
        for port, x in zip(spec.inputs, c.inputs):
            if x is not None and not port.variadic:
                assert containers.type_of(x) in port.types, (spec_id, port.name, containers.type_of(x))
    for c in with_outputs:
        for port, y in zip(spec.outputs, c.expected.alternatives[0].outputs):
            assert containers.type_of(y) in port.types, (spec_id, port.name, containers.type_of(y))
    invalid = generate(spec, 4, seed=2, expect=oracle.expectation, kind="invalid")
    assert all(c.expected.kind == "error" for c in invalid)


def test_a_case_with_containers_is_written_and_judged_from_its_files(tmp_path):
    """`opconform generate`'s layout holds SequenceProto / MapProto files; an answer written the
    same way is read back by `opconform judge` and passes when it is the expected value."""
    import onnx

    from opconform.generator.writers import onnx_testdir
    from opconform.suites import judge, verdicts

    for spec_id in ("onnx::SequenceInsert-11", "onnx_ml::ZipMap-1"):
        spec = specs.load(spec_id)
        case = next(c for c in generate(spec, 6, seed=4, expect=oracle.expectation, kind="valid")
                    if c.expected.kind == "outputs")
        where = tmp_path / spec.operator
        entry = onnx_testdir.write(spec, case, where)
        assert entry["outputs"], spec_id
        answers = tmp_path / "answers" / spec.operator / judge.DATA_SET
        answers.mkdir(parents=True)
        for f in (where / judge.DATA_SET).glob("output_*.pb"):
            shutil.copy(f, answers / f.name)
        model = onnx.load(str(where / "model.onnx"))
        answer = judge.read_answer(spec, case, model, tmp_path / "answers" / spec.operator)
        assert not answer.problems
        verdict, detail, _ = verdicts.judge(spec, case, answer.outcome)
        assert verdict.value == "pass", detail


# ------------------------------------------------------------------ real backends
@pytest.mark.backend
@pytest.mark.parametrize("name", ["onnxruntime", "reference"])
def test_backends_take_sequences_and_return_them(name):
    pytest.importorskip("onnxruntime" if name == "onnxruntime" else "onnx")
    from opconform import backends
    from opconform.suites import verdicts

    b = backends.get(name)
    spec = specs.load("onnx::SequenceInsert-11")
    cases = [c for c in generate(spec, 10, seed=5, expect=oracle.expectation, kind="valid") if c.expected.kind == "outputs"]
    got = [verdicts.judge(spec, c, b.execute(spec, c))[0].value for c in cases]
    assert "pass" in got and set(got) <= {"pass", "unsupported"}, got  # complex sequences: onnxruntime has no kernel


@pytest.mark.backend
def test_a_backend_without_containers_calls_them_unsupported():
    from opconform.backends.base import Backend

    class TensorsOnly(Backend):
        name = "tensors-only"

    why = TensorsOnly().accepts(specs.load("onnx::SequenceAt-11"))
    assert why and "sequence" in why
    assert TensorsOnly().accepts(specs.load("onnx::Abs-13")) is None


def test_the_report_shows_a_container_part_by_part():
    from opconform.reports import tensorview

    want = containers.sequence("float32", [np.array([1.0], F32), np.array([2.0], F32)])
    got = containers.sequence("float32", [np.array([1.0], F32), np.array([2.5], F32)])
    mask = compare.differing(got, want)
    v = tensorview.view(got, mask)
    assert v.dtype == "seq(tensor(float32))" and [label for label, _ in v.rows] == ["[0]", "[1]"]
    assert [cell.differs for _, cells in v.rows for cell in cells] == [False, True]
    d = tensorview.diff(want, got, mask)
    assert d.count == 1 and d.listing[0][0] == "[1]"
    short = tensorview.diff(want, containers.sequence("float32", []), None)
    assert short.count == -1 and "sequence of 0, expected 2" in short.note
    assert tensorview.view(containers.optional("int64")).summary.endswith("empty")


def test_a_failure_group_names_a_container_difference():
    from opconform import symptoms

    want = containers.sequence("float32", [np.zeros(1, F32)])
    assert symptoms.kind(containers.sequence("float32", []), want) == "structure"
    assert symptoms.kind(containers.sequence("float64", [np.zeros(1)]), want) == "element-type"
    assert symptoms.kind(containers.sequence("float32", [np.ones(1, F32)]), want) == "values"
    assert symptoms.kind(want, want) is None and symptoms.describe("structure")
