"""What a failure looks like: the kind of difference between an output a backend returned and the
one expected, and the symptom key failure groups are made by (reports/groups.py, suites/shrink.py).

    kind(got, expected, rules) -> None when they match, else one of KINDS, e.g. "order",
                                   "precision(float32)", "overflow(32-bit)", "count-fewer"
    output_kinds(got, alternatives, names, rules_of) -> (("Y", "order"), ("indices", "values"))
    Symptom(...).key                                -> "Y: order | T=float32, sorted=1, outputs=Y+indices"

Two failures with the same key look alike to a reader: the same outputs differ in the same way on
the same categorical row (element types, attribute values or classes, outputs asked). The verdict
alone (mismatch) puts a sort-order bug, a 64-bit value narrowed to 32 bits and an output left
uninitialised in one group; the key keeps them apart.

The kinds, checked in this order (the first that fits names the output):
- element-type: another element type; missing: the output did not come back;
- shapes: rank (another number of dimensions), shape-empty (an output that must be empty, a
  dimension 0, has another shape: a backend mishandling empty inputs answers with a different wrong
  shape run to run, so one kind for all of them), shape-zeros (every dimension 0), count-more / count-fewer (one dimension longer or
  shorter: duplicates kept or merged), shape-permuted (the right dimensions in another order),
  shape-dims (several dimensions differ);
- values, same shape and type: order (the right elements in other places: the sorted elements
  agree), nan (more or fewer NaNs than expected: NaNs in other places are moved elements), signed-zero (-0.0 for +0.0 or
  back, in some), precision(T) (every differing element is the expected one rounded to the
  narrower float type T, saturated at T's largest value or flushed to zero below its smallest
  normal: a float64 computed in float32), overflow(N-bit) (every differing integer equals the
  expected one modulo 2**N, or sits on a type's limit: wrap-around or saturation; floats: an
  infinity or a float type's largest value for a larger or infinite expected value),
  uninitialised (some value far outside anything the output holds: garbage from an unwritten
  buffer), zeros (every differing element is 0), precision (every differing float within 0.1%),
  values (anything else).

Refusals have kinds too: "refused", or "refused-type" where the backend's message says it does
not take the element type (onnx.reference's "Issues with types", "type mismatch"); type refusals
group across spec versions by the refused element types (is_type_refusal).

Core module: NumPy, ml_dtypes (through opconform.dtypes) and opconform.compare only; every test
over elements is vectorised (array-api-tests style), never a Python loop over elements.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable, Sequence

import ml_dtypes
import numpy as np

from opconform import containers, dtypes
from opconform.compare import DEFAULT, Rules, check, differing, kind as element_kind, type_name

SHAPE_KINDS = ("rank", "shape-empty", "shape-zeros", "count-more", "count-fewer", "shape-permuted", "shape-dims",
               "structure")
VALUE_KINDS = ("order", "nan", "signed-zero", "precision", "overflow", "uninitialised", "zeros", "values")
KINDS = ("element-type", "missing", *SHAPE_KINDS, *VALUE_KINDS)
REFUSED, REFUSED_TYPE = "refused", "refused-type"

# float types a wider float may have been computed in, widest first: the first that explains every
# differing element names the kind (values flushed to zero alone fit them all; the widest is likeliest)
NARROWER_FLOATS = ("float32", "bfloat16", "float16")
NARROWER_INT_BITS = (8, 16, 32)
CLOSE = 1e-3  # relative difference under which a differing float reads as a precision loss
WILD_FLOAT = 1e6  # a float this many times larger than the output's largest magnitude looks uninitialised
TINY_FLOAT = 1e-30  # a non-zero float below this, where the output holds none, looks uninitialised

# a backend's words for "I do not take this element type" (onnx.reference wraps a kernel's
# TypeError as "Issues with types"; its type checks say "type mismatch")
_TYPE_REFUSAL = re.compile(
    r"issues with types|type mismatch|unsupported (element |data )?type|"
    r"not (implemented|supported) for (the )?(element |data )?type|does not support (the )?(element |data )?type",
    re.IGNORECASE)

TEXT = {
    "element-type": "another element type",
    "missing": "the output did not come back",
    "rank": "another number of dimensions",
    "shape-empty": "an output that must be empty (a dimension 0) has another shape",
    "shape-zeros": "every dimension 0 (an empty output where the expected one is not, or is empty in fewer dimensions)",
    "count-more": "more elements along one dimension (duplicates kept?)",
    "count-fewer": "fewer elements along one dimension (distinct values merged?)",
    "shape-permuted": "the right dimensions in another order",
    "shape-dims": "several dimensions differ",
    "structure": "a sequence of another length, an optional empty or not, other map keys, or a part of another shape",
    "order": "the right elements in the wrong order",
    "nan": "NaN handling: NaN on one side only",
    "signed-zero": "-0.0 and +0.0 confused",
    "precision": "values rounded",
    "overflow": "integers wrapped around or saturated, or floats overflowed",
    "uninitialised": "values far outside anything expected (an unwritten buffer?)",
    "zeros": "zeros where values were expected",
    "values": "wrong values",
    REFUSED: "refused a valid case",
    REFUSED_TYPE: "refused the element type",
    # failures without outputs to compare: the verdict is the kind
    "accepted-invalid": "returned outputs where the spec requires an error",
    "crash": "the backend's process died",
    "timeout": "no answer within the time limit",
    "slow": "time or memory grows past what the spec states",
    "harness-error": "opconform itself failed on the case (not the backend)",
}


def describe(kind_text: str) -> str:
    """A reader's words for a kind: 'precision(float32)' -> 'values rounded as in float32'."""
    base, _, arg = kind_text.partition("(")
    arg = arg.rstrip(")")
    if base == "precision" and arg:
        return f"values rounded as if computed in {arg}"
    if base == "overflow" and arg:
        return f"integers wrapped around or saturated as in {arg} arithmetic"
    return TEXT.get(base, kind_text)


# ------------------------------------------------------------------ one output
def kind(got: object, expected: object, rules: Rules = DEFAULT) -> str | None:
    """None when `got` matches `expected` under `rules`, else the kind of difference (KINDS; a
    precision or overflow kind names the narrower type: 'precision(float32)', 'overflow(32-bit)').
    A sequence, optional or map: its type, its structure, or its parts' values (opconform.compare)."""
    if containers.is_container(got) or containers.is_container(expected):
        found = check(got, expected, rules)
        return None if found is None else {"element type": "element-type", "shape": "structure"}.get(found.kind, "values")
    a, e = np.asarray(got), np.asarray(expected)
    if type_name(a.dtype) != type_name(e.dtype):
        return "element-type"
    if a.shape != e.shape:
        return shape_kind(a.shape, e.shape)
    mask = differing(a, e, rules)
    if not mask.any():
        return None
    return _value_kind(a, e, mask, rules)


def shape_kind(got: Sequence[int], expected: Sequence[int]) -> str:
    """Which rule a wrong shape breaks (SHAPE_KINDS)."""
    got, expected = tuple(got), tuple(expected)
    if len(got) != len(expected):
        return "rank"
    if 0 in expected:
        return "shape-empty"
    if not any(got) and any(expected):
        return "shape-zeros"
    if sorted(got) == sorted(expected):
        return "shape-permuted"
    off = [(g, e) for g, e in zip(got, expected) if g != e]
    if len(off) == 1:
        return "count-more" if off[0][0] > off[0][1] else "count-fewer"
    return "shape-dims"


def _value_kind(a: np.ndarray, e: np.ndarray, mask: np.ndarray, rules: Rules) -> str:
    if _same_elements(a, e, rules):
        return "order"
    k, own = element_kind(e.dtype), type_name(e.dtype)
    if k in ("float", "complex"):
        if k == "complex":
            a, e = np.concatenate([a.real.ravel(), a.imag.ravel()]), np.concatenate([e.real.ravel(), e.imag.ravel()])
            mask = differing(a, e, Rules(rules.tolerance, rules.signed_zero))
        with np.errstate(invalid="ignore"):  # widening a signalling NaN raises "invalid"; it stays NaN
            a, e = a.astype(np.float64), e.astype(np.float64)
        return _float_kind(a, e, mask, own)
    if k in ("int", "uint"):
        return _int_kind(a, e, mask)
    return "values"


def _same_elements(a: np.ndarray, e: np.ndarray, rules: Rules) -> bool:
    """Whether the elements agree once both sides are sorted: only their places differ."""
    if a.size < 2:
        return False
    try:
        sa, se = np.sort(a, axis=None), np.sort(e, axis=None)
    except TypeError:  # strings mixing bytes and str do not sort; they are never "order" then
        return False
    return not differing(sa, se, rules).any()


def _float_kind(a: np.ndarray, e: np.ndarray, mask: np.ndarray, own: str) -> str:
    g, x = a[mask], e[mask]
    # NaN handling is wrong where the output holds more or fewer NaNs than expected; the right NaNs
    # in other places are moved elements like any other (OpenVINO's Unique over an axis orders the
    # rows of a float64 input computed in float32 differently, and its NaNs move with them: keyed
    # "nan", no shrunk case of it showed the kind again)
    if np.count_nonzero(np.isnan(a)) != np.count_nonzero(np.isnan(e)):
        return "nan"
    if ((g == 0) & (x == 0)).any():
        return "signed-zero"
    # rounded: every element fits T, and some is a finite non-zero value rounded or saturated (an
    # infinity alone is an overflow, a zero alone a flush: neither says which type)
    rounded_some = (np.isfinite(g) & (g != 0)).any()
    for narrow in NARROWER_FLOATS:
        if rounded_some and _narrower_than(narrow, own) and _rounded_to(narrow, g, x).all():
            return f"precision({narrow})"
    with np.errstate(invalid="ignore", over="ignore"):
        limits = np.array([_float_max(t) for t in (*NARROWER_FLOATS, own) if _float_max(t) is not None])
        overflowed = (np.isinf(g) & np.isfinite(x)) | (
            np.isin(np.abs(g), limits) & (np.sign(g) == np.sign(x)) & (np.abs(x) >= np.abs(g)))
        if overflowed.all():
            return "overflow"
        scale = _largest_finite(e)
        tiny = np.abs(e[np.isfinite(e) & (e != 0)])
        smallest = tiny.min() if tiny.size else np.inf
        wild = np.isfinite(g) & ((np.abs(g) > WILD_FLOAT * (scale + 1)) |
                                 ((g != 0) & (np.abs(g) < TINY_FLOAT) & (smallest >= TINY_FLOAT)))
        if wild.any():
            return "uninitialised"
        if (g == 0).all() and (np.abs(x) < float(np.finfo(np.float32).smallest_normal)).all():
            return "precision"  # subnormals flushed to zero
        if (g == 0).all():
            return "zeros"
        if (np.abs(g - x) <= CLOSE * np.abs(x)).all():
            return "precision"
    return "values"


def _narrower_than(narrow: str, own: str) -> bool:
    bits = {"float16": 16, "bfloat16": 16, "float32": 32, "float64": 64}
    return own in bits and bits[narrow] < bits[own]


def _float_max(name: str) -> float | None:
    try:
        return float(ml_dtypes.finfo(dtypes.numpy_dtype(name)).max)
    except (ValueError, TypeError, dtypes.UnknownElementType):
        return None


def _rounded_to(narrow: str, g: np.ndarray, x: np.ndarray) -> np.ndarray:
    """Per element: g is x rounded to the float type `narrow` (saturated at its largest value, or
    overflowing to an infinity; flushed to zero below its smallest normal value)."""
    t = dtypes.numpy_dtype(narrow)
    info = ml_dtypes.finfo(t)
    big, small = float(info.max), float(info.smallest_normal)
    with np.errstate(over="ignore", invalid="ignore"):
        rounded = x.astype(t).astype(np.float64)
        saturated = np.clip(x, -big, big)
    return ((g == rounded) | (np.isfinite(x) & (g == saturated)) | (np.isinf(x) & (g == np.copysign(big, x)))
            | ((g == 0) & (np.abs(x) < small)))


def _largest_finite(e: np.ndarray) -> float:
    finite = np.abs(e[np.isfinite(e)])
    return float(finite.max()) if finite.size else 0.0


def _int_kind(a: np.ndarray, e: np.ndarray, mask: np.ndarray) -> str:
    g, x = a[mask], e[mask]
    bits = a.dtype.itemsize * 8
    # two's complement: the difference modulo 2**64 reads the same for signed and unsigned types
    diff = g.astype(np.int64).view(np.uint64) - x.astype(np.int64).view(np.uint64) if a.dtype.kind == "i" \
        else g.astype(np.uint64) - x.astype(np.uint64)
    gf, xf = g.astype(np.float64), x.astype(np.float64)
    # narrowed: the value kept modulo 2**n and read back as an n-bit integer, so it lies in the n-bit
    # range; an output of zeros alone is "zeros", not a wrap of multiples of 2**n
    for n in reversed(NARROWER_INT_BITS):
        if n < bits and not (diff & np.uint64((1 << n) - 1)).any() and (g != 0).any() \
                and ((gf >= -(2.0 ** (n - 1))) & (gf <= 2.0 ** n - 1)).all():
            return f"overflow({n}-bit)"
    if (np.isin(gf, _int_limits()) & (np.abs(xf) > np.abs(gf))).all() or _saturated_own(g, x, a.dtype).all():
        return "overflow"
    lo, hi = float(e.min()), float(e.max())
    margin = 8 * (hi - lo) + 64
    if ((gf < lo - margin) | (gf > hi + margin)).any():
        return "uninitialised"
    if (g == 0).all():
        return "zeros"
    return "values"


def _int_limits() -> np.ndarray:
    out = []
    for n in NARROWER_INT_BITS:
        out += [-(2.0 ** (n - 1)), 2.0 ** (n - 1) - 1, 2.0 ** n - 1]
    return np.array(out)


def _saturated_own(g: np.ndarray, x: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """g on its own type's limit where x is not: a sum that saturated instead of wrapping. x is in
    range (it is of the same type), so this says only that g sits on a limit x does not."""
    info = ml_dtypes.iinfo(dtype)  # NumPy's iinfo refuses ml_dtypes' int2/int4 (void-kind dtypes)
    return ((g == info.max) | (g == info.min)) & (x != g) & (np.abs(x.astype(np.float64)) > 2.0 ** (info.bits - 2))


# ------------------------------------------------------------------ outputs of a case
def output_kinds(got: Sequence[object | None], alternatives: Sequence[Sequence[object | None]], names: Sequence[str],
                 rules_of: Callable[[int], Rules]) -> tuple[tuple[str, str], ...]:
    """(output name, kind) for each asked output that differs, in slot order, against the
    alternative the outputs come closest to: as the verdict chooses (suites/verdicts.py), the one
    whose first difference is mildest (values, then shape, element type, missing), then the fewest
    differing outputs and elements. names: one per slot, "" for an output not asked. Empty when
    some alternative matches."""
    best: tuple[tuple[int, int, int], tuple[tuple[str, str], ...]] | None = None
    for alt in alternatives or ((),):
        found, elements = [], 0
        for j, name in enumerate(names):
            if not name:
                continue
            g = got[j] if j < len(got) else None
            want = alt[j] if j < len(alt) else None
            if g is None:
                found.append((name, "missing"))
                continue
            if want is None:
                found.append((name, "values"))
                continue
            k = kind(g, want, rules_of(j))
            if k is not None:
                found.append((name, k))
                elements += _differing_count(g, want, rules_of(j))
        score = (_severity(found[0][1]) if found else -1, len(found), elements)
        if best is None or score < best[0]:
            best = (score, tuple(found))
    return best[1] if best else ()


def _severity(kind_text: str) -> int:
    """How far a kind is from a match, in the verdicts' order: values, shape, element type, missing."""
    base = kind_text.partition("(")[0]
    return 3 if base == "missing" else 2 if base == "element-type" else 1 if base in SHAPE_KINDS else 0


def _differing_count(got: object, want: object, rules: Rules) -> int:
    if containers.is_container(got) or containers.is_container(want):
        mask = differing(got, want, rules)
        return containers.length(want) + 1 if mask is None else int(mask.sum())
    a, e = np.asarray(got), np.asarray(want)
    if a.shape != e.shape or type_name(a.dtype) != type_name(e.dtype):
        return int(e.size) + 1
    return int(differing(a, e, rules).sum())


def refusal_kind(message: str) -> str:
    """REFUSED_TYPE where a backend's refusal says it does not take an element type, else REFUSED."""
    return REFUSED_TYPE if _TYPE_REFUSAL.search(message or "") else REFUSED


# ------------------------------------------------------------------ the key
@dataclass(frozen=True)
class Symptom:
    """What one failure looks like. kinds: (output name, kind) per differing output, or one
    ("", kind) for a failure without outputs (refused, crash, accepted); row: (factor, value text)
    of the case's categorical row (for invalid cases and type refusals: the element types only);
    relation: the broken relation of an invalid case."""

    kinds: tuple[tuple[str, str], ...]
    row: tuple[tuple[str, str], ...] = ()
    relation: str | None = None

    @property
    def key(self) -> str:
        what = "; ".join(f"{name}: {k}" if name else k for name, k in self.kinds) or "?"
        parts = [what]
        if self.relation:
            parts.append(f"relation {self.relation}")
        if self.row:
            parts.append(", ".join(f"{f}={v}" for f, v in self.row))
        return " | ".join(parts)

    @property
    def description(self) -> str:
        """One line for a reader: 'Y: the right elements in the wrong order; indices: wrong values'."""
        return "; ".join(f"{name}: {describe(k)}" if name else describe(k) for name, k in self.kinds)


# kinds one bug shows in turn: unwritten memory reads as zeros or as garbage, as the allocator
# hands it out, so a case's next run may show the other
_ALIKE = {"zeros": "unwritten", "uninitialised": "unwritten"}
_KIND_IN_KEY = re.compile(r"(?<=: )(zeros|uninitialised)\b|^(zeros|uninitialised)\b")


def alike(a: str | None, b: str | None) -> bool:
    """Whether two symptom keys name the same failure, kinds one bug shows in turn taken as one
    (what a shrunk case must reproduce: suites/shrink.py)."""
    if a is None or b is None:
        return a == b
    def norm(k: str) -> str:
        what, sep, rest = k.partition(" | ")
        return _KIND_IN_KEY.sub(lambda m: _ALIKE[m.group(0)], what) + sep + rest
    return norm(a) == norm(b)


def is_type_refusal(key: str) -> bool:
    """Whether a symptom key is a type refusal: such groups span spec versions (one per refused type)."""
    return key.startswith(REFUSED_TYPE + " ") or key == REFUSED_TYPE


def describe_key(key: str) -> str:
    """The reader's line for a recorded key (a key holds its kinds before the first ' | ')."""
    what = key.split(" | ", 1)[0]
    out = []
    for part in what.split("; "):
        name, sep, k = part.rpartition(": ")
        out.append(f"{name}: {describe(k)}" if sep else describe(k))
    return "; ".join(out)
