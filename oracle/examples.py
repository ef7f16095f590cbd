"""Checks the oracle against the worked examples stored in spec files.

Used by `opconform validate` and by the test suite. An example passes when the oracle
reproduces every expected output under the spec's own comparison rules, those the runner judges
backends by (opconform.compare: same element type, same shape, same values; any NaN matches any
NaN, and -0.0 matches 0.0 unless the spec says signed zeros are distinct), or, for an example that
expects an error, when the oracle refuses it naming that relation. A spec version may widen
"same values" with its `tolerance` (per element type).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from opconform import compare
from opconform.model import Example, RelationBroken, SpecVersion


@dataclass(frozen=True)
class ExampleResult:
    spec_id: str
    example: str
    passed: bool
    message: str = ""


def check_example(spec: SpecVersion, example: Example) -> ExampleResult:
    from opconform import oracle

    def result(passed: bool, message: str = "") -> ExampleResult:
        return ExampleResult(spec.id, example.name, passed, message)

    try:
        with np.errstate(all="ignore"):
            got = oracle.evaluate(spec, list(example.inputs), dict(example.attributes), dict(example.policies))
    except RelationBroken as e:
        if example.expect_error == e.relation:
            return result(True)
        if example.expect_error:
            return result(False, f"refused by relation {e.relation!r}, expected relation {example.expect_error!r}")
        return result(False, f"refused by relation {e.relation!r}, expected outputs")
    except Exception as e:  # a crashing oracle is a failed example to report, whatever it raised
        return result(False, f"oracle raised {type(e).__name__}: {e}")
    if example.expect_error:
        return result(False, f"returned outputs, expected relation {example.expect_error!r} to be broken")
    expected = example.outputs or ()
    variadic = bool(spec.outputs) and spec.outputs[-1].variadic  # the last port stands for the rest
    if len(got) != len(spec.outputs) and not (variadic and len(got) >= len(spec.outputs) - 1):
        return result(False, f"oracle returned {len(got)} outputs, the spec has {len(spec.outputs)}")
    names = [p.name for p in spec.outputs] + [f"{spec.outputs[-1].name}[{k}]" for k in range(1, len(got))]
    for name, g, e in zip(names, got, expected):
        if e is None:  # the example does not state this output
            continue
        msg = mismatch(np.asarray(g), e, spec)
        if msg:
            return result(False, f"output {name}: {msg}")
    return result(True)


def mismatch(got: np.ndarray, expected: np.ndarray, spec: SpecVersion) -> str:
    """'' when `got` equals `expected` as the spec demands (opconform.compare under the spec's
    rules; strings as exact text, even for a `numeric_text` port: the oracle's own text is pinned);
    else what differs, in one line."""
    found = compare.check(got, expected, compare.Rules.of(spec))
    return found.message if found else ""
