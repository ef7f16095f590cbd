"""The fast paths of a result line give the same result as the plain ones: a case encoded once at
generation and spliced into the line, and the backend's signature remembered per quick key."""
import itertools
import json

import numpy as np
import pytest

from opconform import backends, specs
from opconform.generator import generate
from opconform.oracle import expectation
from opconform.model import Outcome
from opconform.suites import described, plan, record
from opconform.generator import case_variants as variants


def _cases(spec_id="onnx::Abs-13", n=4, kind="valid"):
    spec = specs.load(spec_id)
    return spec, generate(spec, n, 0, profile="smoke", expect=expectation, kind=kind)


def _outcomes(backend, spec, case):
    """What the backend did, and made-up failures: a refusal, wrong values, a crash."""
    done = backend.execute(spec, case)
    yield done
    yield Outcome("error", message="refused it")
    yield Outcome("crash", message="SIGSEGV")
    if done.outputs:
        yield Outcome("ok", [None if o is None else np.zeros_like(o) + 7 for o in done.outputs], compiled="dynamic")


@pytest.mark.parametrize("spec_id", ["onnx::Abs-13", "onnx::Clip-13", "onnx::SequenceInsert-11", "onnx::Unique-11"])
def test_spliced_case_json_and_fields_read_back_as_the_plain_line(spec_id):
    """A case encoded and described at generation (plan.encode_case) gives, for any outcome, the
    line the plain path makes: the case's JSON and its fields of `extra` spliced in, its call in the
    detail, the symptom and shard beside them."""
    spec, cases = _cases(spec_id)
    backend = backends.get("reference")
    for case in cases:
        for outcome in _outcomes(backend, spec, case):
            plain = record.Judged.of(record.make(spec, case, outcome, backend.name, shard="1/2"))
            encoded = plan.encode_case(case, spec)
            fast = record.Judged.of(record.make(spec, case, outcome, backend.name, shard="1/2", encoded=encoded))
            got, want = json.loads(fast.line), json.loads(plain.line)
            assert fast.line.endswith(b"\n") and fast.line.count(b"\n") == 1
            assert got == want and got["case"]["id"] == case.id == fast.case_id
            assert fast.result() == want
            assert (fast.expected_kind, fast.message) == (plain.expected_kind, plain.message)
            assert encoded[2].call in got["detail"] and got["extra"]["shard"] == "1/2"
        errored = record.Judged.of(record.harness_error(spec, case, backend.name, "boom", encoded=plan.encode_case(case, spec)))
        assert errored.result() == json.loads(record.Judged.of(record.harness_error(spec, case, backend.name, "boom")).line)


def test_a_described_call_names_each_input_and_attribute():
    spec, cases = _cases("onnx::Clip-13")
    case = cases[0]
    call = described.describe_call(spec, case)
    assert call.startswith("Clip-13(input: ") and call == described.describe(spec, case).call
    for x in case.inputs:
        assert (x is None) or f"{np.asarray(x).dtype.name}[{','.join(map(str, np.shape(x)))}]" in call


@pytest.mark.parametrize("kind", ["valid", "invalid"])
def test_remembered_signature_equals_the_builders(kind):
    spec, cases = _cases("onnx::GatherND-13", 6, kind)
    cases += [v for c in cases for v in variants(spec, c, 3, 0, size="smoke", expect=expectation)]
    backend = backends.get("reference")
    keys = [backend._signature_of(spec, case) for case in cases]
    assert keys == [backend._signature_of(spec, case) for case in cases]  # from the memo
    signatures = [backend.signature(spec, case) for case in cases]
    # the model key (the builder's signature, or a valid case's quick key, which determines it)
    # groups the cases exactly as the builder's signature does: one model per signature
    for a, b in itertools.combinations(range(len(cases)), 2):
        assert (keys[a] == keys[b]) == (signatures[a] == signatures[b]), (cases[a].id, cases[b].id)
    assert len(set(signatures)) > 1


@pytest.mark.parametrize("kind", ["valid", "invalid"])
def test_the_parents_group_key_gives_the_workers_model_key(kind):
    """The runner sends each case's group key (plan.group_key) with its batch, and the worker uses it
    instead of computing the quick key again: the model key is the same either way."""
    spec, cases = _cases("onnx::GatherND-13", 6, kind)
    told, computed = backends.get("reference"), backends.get("reference")
    for case in cases:
        assert told._signature_of(spec, case, plan.group_key(spec.id, case)) == computed._signature_of(spec, case)
