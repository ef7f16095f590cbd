"""The fast paths of a result line give the same result as the plain ones: a case encoded once at
generation and spliced into the line, and the backend's signature remembered per quick key."""
import itertools
import json

import pytest

from opconform import backends, specs
from opconform.generator import generate
from opconform.oracle import expectation
from opconform.suites import plan, record
from opconform.generator import case_variants as variants


def _cases(spec_id="onnx::Abs-13", n=4, kind="valid"):
    spec = specs.load(spec_id)
    return spec, generate(spec, n, 0, profile="smoke", expect=expectation, kind=kind)


def test_spliced_case_json_reads_back_as_the_encoded_case():
    spec, cases = _cases()
    backend = backends.get("reference")
    for case in cases:
        outcome = backend.execute(spec, case)
        plain = record.Judged.of(record.make(spec, case, outcome, backend.name))
        fast = record.Judged.of(record.make(spec, case, outcome, backend.name, encoded=plan.encode_case(case)))
        got, want = json.loads(fast.line), json.loads(plain.line)
        assert fast.line.endswith(b"\n") and fast.line.count(b"\n") == 1
        assert got == want and got["case"]["id"] == case.id == fast.case_id
        assert fast.result() == want


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
