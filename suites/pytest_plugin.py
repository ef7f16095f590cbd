"""pytest plugin: `pytest --pyargs opconform.suites --backend NAME` runs the conformance suites as
pytest items, one per spec version x backend (see suites/test_conformance.py).

Options:
  --backend NAME[,NAME...]   backends to certify (as for `opconform run --backend`)
  --spec PATTERN             spec ids to include (globs, comma-separated; default: every spec version
                             that has an oracle and a generator strategy)
  --examples N               Hypothesis examples per item (default 30)
  --opconform-profile NAME   generator profile: smoke, ci, certify (default smoke)
  --isolate                  run each case in a worker process (the runner's): a crash or hang is a
                             crash/timeout verdict, not the end of the session
  --case-timeout SECONDS     with --isolate: per-case timeout (default 60)
  --baseline FILE            a baseline from `opconform baseline`: spec versions whose status there
                             is "fail" for that backend become expected failures (xfail)
"""
from __future__ import annotations

import pytest

from opconform.specs.loader import check_pattern

ITEM_FIXTURES = ("opconform_backend", "opconform_spec")


def pytest_addoption(parser):
    group = parser.getgroup("opconform")
    group.addoption("--backend", action="store", default=None,
                    help="opconform backend(s) to certify, comma-separated (e.g. reference, onnxruntime)")
    group.addoption("--spec", action="store", default=None, dest="opconform_spec",
                    help="opconform spec ids to run, globs, comma-separated (e.g. 'onnx::Gather*')")
    group.addoption("--examples", action="store", type=int, default=30, dest="opconform_examples",
                    help="Hypothesis examples per spec version x backend (default 30)")
    group.addoption("--opconform-profile", action="store", default="smoke", help="generator profile (default smoke)")
    group.addoption("--isolate", action="store_true", dest="opconform_isolate",
                    help="run cases in a worker process: a crash or hang becomes a crash/timeout verdict")
    group.addoption("--case-timeout", action="store", type=float, default=60.0, dest="opconform_case_timeout",
                    help="with --isolate: seconds per case before the worker is killed (default 60)")
    group.addoption("--baseline", action="store", default=None, dest="opconform_baseline",
                    help="baseline YAML: spec versions it lists as failing are expected failures (xfail)")


def _spec_ids(pattern: str | None) -> list[str]:
    """Spec versions the suites can check: those with an oracle (expected outputs) and a strategy,
    chosen as `opconform run --spec` chooses them (specs.selection). Spec files the pattern cannot
    match are not loaded, so one broken file does not block the rest."""
    from opconform import generator, oracle, specs

    chosen, malformed = specs.selection(pattern)
    if malformed:
        raise pytest.UsageError(str(next(iter(malformed.values()))))
    return sorted(v.id for v in chosen if oracle.has_oracle(v) and generator.has_strategy(v))


_BASELINE = pytest.StashKey[object]()


def pytest_configure(config):
    """Check --spec and read the baseline once, up front: a glob that matches nothing (a typo would
    drop those specs silently) or a malformed file is a usage error (exit 4), in one line."""
    try:
        check_pattern(config.getoption("opconform_spec", None))
    except ValueError as e:
        raise pytest.UsageError(str(e)) from None
    path = config.getoption("opconform_baseline", None)
    if not path:
        return
    from opconform.suites import baseline

    try:
        config.stash[_BASELINE] = baseline.load(path)
    except baseline.BaselineError as e:
        raise pytest.UsageError(str(e)) from None


def _backend_name(ref: str) -> str:
    """The name results and baselines use for a backend given as NAME, entry point or module:Class."""
    from opconform import backends
    from opconform.backends.base import BackendMissing

    try:
        return backends.get(ref).name
    except BackendMissing as e:
        raise pytest.UsageError(str(e)) from None


def _marks(base, backend: str, spec_id: str) -> list:
    entry = base.entry(backend, spec_id) if base is not None else None
    if entry is None or entry.status != "fail":
        return []
    verdicts = sorted({k.verdict.value for k in entry.failing.values()})
    reasons = sorted({k.reason for k in entry.failing.values() if k.reason})
    why = f"baseline: {len(entry.failing)} known failure(s) ({', '.join(verdicts)})" + (f": {'; '.join(reasons)}" if reasons else "")
    return [pytest.mark.xfail(reason=why, strict=False)]


def pytest_generate_tests(metafunc):
    if not all(f in metafunc.fixturenames for f in ITEM_FIXTURES):
        return
    config = metafunc.config
    names = [b.strip() for b in (config.getoption("backend") or "").split(",") if b.strip()]
    if not names:
        metafunc.parametrize(ITEM_FIXTURES, [pytest.param(None, None, id="no-backend")])
        return
    ids = _spec_ids(config.getoption("opconform_spec"))
    if not ids:
        raise pytest.UsageError(f"--spec {config.getoption('opconform_spec')!r}: no spec version with an oracle and a strategy matches")
    base = config.stash.get(_BASELINE, None)
    known = {b: _backend_name(b) for b in names} if base is not None else {}
    # sorted, deterministic ids: every pytest-xdist worker must collect the same items in the same order
    metafunc.parametrize(ITEM_FIXTURES, [
        pytest.param(b, s, id=f"{b}:{s}", marks=_marks(base, known.get(b, b), s)) for b in names for s in ids
    ])
