"""A seed gives the same cases in any process, whatever Hypothesis profile is loaded and whatever
local modules are imported (Hypothesis harvests literals from those; generate() must not)."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest
from hypothesis import settings

from opconform import oracle, specs
from opconform.generator import generate

SPEC_IDS = ["onnx::GatherND-13", "onnx::Cast-21", "onnx::Unique-11", "onnx::Split-18", "openvino::Unique-10"]

_SCRIPT = """
import json, sys
from opconform import oracle, specs
from opconform.generator import generate
from opconform.tensors import encode
out = {}
for sid in sys.argv[1:]:
    cases = generate(specs.load(sid), 12, seed=2024, profile="ci", expect=oracle.expectation)
    out[sid] = [[c.id, [None if x is None else encode(x) for x in c.inputs]] for c in cases]
print(json.dumps(out, sort_keys=True))
"""


def _summary() -> dict:
    from opconform.tensors import encode

    out = {}
    for sid in SPEC_IDS:
        cases = generate(specs.load(sid), 12, seed=2024, profile="ci", expect=oracle.expectation)
        out[sid] = [[c.id, [None if x is None else encode(x) for x in c.inputs]] for c in cases]
    return json.loads(json.dumps(out, sort_keys=True))


@pytest.fixture
def other_profile():
    previous = settings.get_current_profile_name()
    settings.register_profile("generator-determinism-other", max_examples=5, derandomize=False, deadline=None)
    settings.load_profile("generator-determinism-other")
    yield
    settings.load_profile(previous)


def test_generate_ignores_the_loaded_profile_and_the_process(other_profile):
    fresh = subprocess.run([sys.executable, "-c", _SCRIPT, *SPEC_IDS], capture_output=True, text=True, check=True)
    want = json.loads(fresh.stdout)
    got = _summary()
    assert all(len(got[sid]) == 12 for sid in SPEC_IDS)
    for sid in SPEC_IDS:
        assert got[sid] == want[sid], sid
