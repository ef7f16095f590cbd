"""Building a batch's models ahead (Backend.ahead): IREE compiles several signatures' models in one
iree-compile, and every case still gets exactly what compiling its model alone gives (its outputs,
or its compile errors, or its crash); a worker that dies building ahead costs no case anything."""
import os
import stat
import sys

import numpy as np
import pytest
from onnx import TensorProto, helper

from helpers_runner import planned_cases, run_planned
from opconform import backends, specs
from opconform.backends import iree as iree_module
from opconform.backends.testing import broken
from test_pool_deaths import SPEC, _cases

# Softsign-1 has no conversion in IREE: its functions fail inside a joint compile that Abs's pass
MIXED = "onnx::Abs-13,onnx::Softsign-1,onnx::Add-14"


def _iree():
    pytest.importorskip("iree.compiler")
    pytest.importorskip("iree.runtime")
    backend = backends.get("iree")
    backend.cache = None  # compiled for real every time: these tests count and compare compiles (kept ones: test_compile_cache.py)
    return backend


def _items():
    cases = planned_cases(MIXED)
    by_spec = {sid: specs.load(sid) for sid in MIXED.split(",")}
    # interleaved, as a batch of several specs' signature groups would not be: the joint compile
    # must not depend on the order
    return [(by_spec[c.spec_id], c) for c in sorted(cases, key=lambda c: c.id)]


def _answers(backend, items):
    out = []
    for spec, case in items:
        o = backend.execute(spec, case)
        out.append((o.status, o.message, [None if x is None else (x.dtype.str, x.shape, x.tobytes()) for x in o.outputs]))
    return out


@pytest.mark.backend
def test_iree_compiles_a_batch_together_and_answers_as_one_by_one():
    alone = _iree()
    items = _items()
    expected = _answers(alone, items)
    # Softsign's refusals, where this IREE still has no conversion, are what a joint compile must
    # give back to the right models; the comparison holds either way
    assert any(s == "ok" for s, _, _ in expected)

    together = _iree()
    compiles = []
    run_compiler = together._run_compiler
    together._run_compiler = lambda mlir, limit: compiles.append(mlir.count(b"func.func")) or run_compiler(mlir, limit)
    parts = []
    together.ahead(items, progress=lambda: parts.append(len(together._ahead)))
    signatures = len(together._ahead)
    assert signatures >= 4
    # progress after each part of at most AHEAD_CHUNK models (the pool gives each part a timeout)
    assert parts and parts[-1] == signatures and all(b - a <= 8 for a, b in zip([0] + parts, parts))
    # several functions per compile: fewer compiles than signatures, the first of them joint
    assert compiles and compiles[0] > 1 and len(compiles) < signatures
    assert _answers(together, items) == expected
    assert together.models_built == alone.models_built


@pytest.mark.backend
def test_a_compiler_dying_on_a_joint_compile_leaves_each_model_its_own_answer(tmp_path):
    """iree-compile cannot be made to die on demand: a wrapper that kills itself on any module
    with two functions or more stands in for it. The group is split down to single models, each
    compiled as load() compiles it alone."""
    together = _iree()
    real = together._compile_tool
    wrapper = tmp_path / "iree-compile"
    wrapper.write_text("#!/bin/sh\n"
                       "input=$(cat)\n"
                       "if [ $(printf '%s' \"$input\" | grep -c 'func.func @m') -gt 1 ]; then kill -SEGV $$; fi\n"
                       f"printf '%s' \"$input\" | exec {real} \"$@\"\n")
    wrapper.chmod(wrapper.stat().st_mode | stat.S_IEXEC)
    items = [(s, c) for s, c in _items() if s.id != "onnx::Softsign-1"][:12]
    expected = _answers(_iree(), items)
    together._compile_tool = str(wrapper)
    together.ahead(items)
    assert len(together._ahead) >= 2
    assert _answers(together, items) == expected


def test_compile_errors_go_to_the_function_whose_line_they_name():
    text = "module {\n  func.func @m0(%a: i32) {\n    op\n  }\n  func.func @m3(%a: i32) {\n    bad\n  }\n}\n"
    stderr = ("<stdin>:6:5: error: failed to legalize operation 'bad'\n"
              "<stdin>:6:5: note: see current operation\n"
              "<unknown>:0: error: something else\n")
    found = iree_module._errors_by_function(text, stderr)
    assert found == {"m3": ["<stdin>:6:5: error: failed to legalize operation 'bad'"],
                     None: ["<unknown>:0: error: something else"]}


def test_a_worker_dying_while_building_ahead_costs_no_case(tmp_path):
    """The broken backend's "die-ahead" kills the worker in Backend.ahead, before any case of the
    batch runs: no case is blamed, and the batch runs again without building ahead."""
    order = ["pass", "pass", "die-ahead", "pass"]
    cases = _cases(len(order))
    got, lost, stats = run_planned(SPEC, cases, order, tmp_path)
    assert not lost, lost
    assert got == {c.id: [broken.expected_verdict(c, b)] for c, b in zip(cases, order)}
    assert stats.ahead_deaths == 1 and stats.crashes == 0 and stats.harness_deaths == 0
