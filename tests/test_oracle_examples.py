"""Every spec file validates, and the oracle reproduces every worked example stored in it.

Parametrized from the spec library itself, so an operator added later is covered without
editing this file. Examples of a version without an oracle are not collected (the coverage
table reports missing oracles); a file that does not load fails `test_spec_file_validates`.
"""
from __future__ import annotations

import pytest

from helpers_library import loadable_specs
from opconform import oracle, specs
from opconform.oracle.examples import check_example


def _loadable_versions():
    return [v for s in loadable_specs() for v in s.versions]


def _example_params():
    params = []
    for v in _loadable_versions():
        try:
            if not oracle.has_oracle(v):
                continue
        except Exception as e:  # an oracle module that fails to import is a failure to show, not to hide
            params.append(pytest.param(v, None, repr(e), id=f"{v.id}:import"))
            continue
        for ex in v.examples:
            params.append(pytest.param(v, ex, "", id=f"{v.id}:{ex.name}"))
    return params


@pytest.mark.parametrize("path", specs.spec_files(), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_spec_file_validates(path):
    spec = specs.load_file(path)
    assert spec.versions


@pytest.mark.parametrize("spec, example, import_error", _example_params())
def test_oracle_reproduces_example(spec, example, import_error):
    assert not import_error, f"oracle module of {spec.id} does not import: {import_error}"
    r = check_example(spec, example)
    assert r.passed, f"{spec.id} example {example.name} ({example.source}): {r.message}"
