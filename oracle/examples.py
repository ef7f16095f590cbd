"""Checks the oracle against the worked examples stored in spec files.

Used by `opconform validate` and by the test suite. An example passes when the oracle
reproduces every expected output exactly (same element type, same shape, same bits; any NaN
matches any NaN, and -0.0 matches 0.0 where the spec says signed zeros are equal), or, for an
example that expects an error, when the oracle refuses it naming that relation. A spec version
may widen "exactly" with its `tolerance` (per element type).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from opconform import dtypes
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
    if len(got) != len(spec.outputs):
        return result(False, f"oracle returned {len(got)} outputs, the spec has {len(spec.outputs)}")
    for port, g, e in zip(spec.outputs, got, expected):
        if e is None:  # the example does not state this output
            continue
        msg = mismatch(np.asarray(g), e, spec)
        if msg:
            return result(False, f"output {port.name}: {msg}")
    return result(True)


def mismatch(got: np.ndarray, expected: np.ndarray, spec: SpecVersion) -> str:
    """'' when `got` equals `expected` as the spec demands; else what differs, in one line."""
    gname, ename = dtypes.name_of(got.dtype), dtypes.name_of(expected.dtype)
    if gname != ename:
        return f"got element type {gname}, expected {ename}"
    if got.shape != expected.shape:
        return f"got shape {got.shape}, expected {expected.shape}"
    rtol, atol = spec.tolerance.for_type(ename)
    ok = equal_elements(got, expected, rtol, atol, spec.signed_zero == "equal")
    if bool(np.all(ok)):
        return ""
    bad = np.argwhere(~ok)
    at = tuple(int(i) for i in bad[0])
    return f"got {got[at]!r}, expected {expected[at]!r} at {at} ({len(bad)} of {ok.size} differ)"


def equal_elements(got: np.ndarray, expected: np.ndarray, rtol: float, atol: float, zeros_equal: bool) -> np.ndarray:
    """Element-wise equality: bit-exact unless a tolerance is given; NaN matches NaN."""
    kind = dtypes.get(dtypes.name_of(expected.dtype)).kind
    if kind == "string":
        flat = np.frompyfunc(lambda a, b: a == b, 2, 1)(got.reshape(-1), expected.reshape(-1))
        return flat.astype(bool).reshape(expected.shape)
    if kind == "complex":
        part = got.real.dtype
        return (equal_elements(got.real.astype(part), expected.real.astype(part), rtol, atol, zeros_equal)
                & equal_elements(got.imag.astype(part), expected.imag.astype(part), rtol, atol, zeros_equal))
    if kind != "float":
        return got == expected
    g = got.astype(np.float64)
    e = expected.astype(np.float64)
    both_nan = np.isnan(g) & np.isnan(e)
    if rtol or atol:
        with np.errstate(invalid="ignore"):
            close = np.isclose(g, e, rtol=rtol, atol=atol) | (g == e)
        return close | both_nan
    width = got.dtype.itemsize
    bits = np.dtype(f"u{width}") if width in (1, 2, 4, 8) else None
    same = got.view(bits) == expected.view(bits) if bits is not None else g == e
    if zeros_equal:
        same |= (g == 0) & (e == 0)
    return same | both_nan
