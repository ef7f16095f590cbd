"""What the strategies reach by construction, measured over a few hundred draws per spec version
of the foundation issue (marked slow: about ten seconds per spec).

Each test names what it measures; the numbers are printed with `pytest -s`."""
from __future__ import annotations

import itertools

import numpy as np
import pytest

from opconform import dtypes
from opconform.generator import values
from opconform.generator.families.default import generatable
from tests.helpers_generator import SPEC_IDS, broken_exactly, drawn, load_or_fail, valid_and_invalid

pytestmark = pytest.mark.slow
DRAWS = 400
UNIQUE = [s for s in SPEC_IDS if "Unique" in s]
GATHERND = [s for s in SPEC_IDS if "GatherND" in s]

# GatherND relations that cannot break alone: rank(data) = 0 makes b < min(q, r) false as well,
# and rank(indices) = 0 leaves shape(indices)[-1] (the tuple length) undefined. They are still
# the first broken relation of their cases, which is what the expected error names.
NEVER_ALONE = {"data_rank", "indices_rank"}


def cases_of(spec_id):
    """DRAWS valid and DRAWS invalid cases."""
    return drawn(spec_id, DRAWS, 0, kind="valid") + drawn(spec_id, DRAWS, 0, kind="invalid")


@pytest.mark.parametrize("spec_id", SPEC_IDS)
def test_every_element_type_of_every_input(spec_id):
    spec = load_or_fail(spec_id)
    valid, _ = valid_and_invalid(cases_of(spec_id))
    for i, port in enumerate(spec.inputs):
        seen = {dtypes.name_of(c.inputs[i].dtype) for c in valid if c.inputs[i] is not None}
        assert set(generatable(port.types)) <= seen, f"{port.name}: never {sorted(set(port.types) - seen)}"


@pytest.mark.parametrize("spec_id", SPEC_IDS)
def test_rank_zero_and_empty_tensors_where_admitted(spec_id):
    spec = load_or_fail(spec_id)
    valid, _ = valid_and_invalid(cases_of(spec_id))
    for i, port in enumerate(spec.inputs):
        xs = [c.inputs[i] for c in valid if c.inputs[i] is not None]
        if port.rank_min == 0 and port.name != "axis":
            assert any(x.ndim == 0 for x in xs), f"{port.name}: no rank-0 tensor"
        if port.name in ("X", "data", "indices"):
            assert any(x.size == 0 for x in xs), f"{port.name}: no empty tensor"


@pytest.mark.parametrize("spec_id", SPEC_IDS)
def test_every_edge_value_class_of_every_float_and_int_type(spec_id):
    """Over valid cases, the data input of each element type holds every edge class of that type
    (3 x DRAWS valid cases: up to 16 element types share them)."""
    spec = load_or_fail(spec_id)
    valid = sum((drawn(spec_id, DRAWS, s, kind="valid") for s in range(3)), ())
    by_type: dict[str, set[str]] = {}
    for c in valid:
        x = c.inputs[0]
        by_type.setdefault(dtypes.name_of(x.dtype), set()).update(values.classes_in(x))
    missing = {t: sorted(values.edge_classes(t) - seen) for t, seen in by_type.items() if values.edge_classes(t) - seen}
    assert not missing, f"edge classes never drawn, by element type: {missing}"


@pytest.mark.parametrize("spec_id", [s for s in SPEC_IDS if s != "openvino::GatherND-5" and s != "openvino::GatherND-8"])
def test_negative_axes_and_indices(spec_id):
    spec = load_or_fail(spec_id)
    valid, _ = valid_and_invalid(cases_of(spec_id))
    if "Unique" in spec_id:
        axes = [int(np.asarray(c.inputs[1]).reshape(-1)[0]) for c in valid if len(c.inputs) > 1 and c.inputs[1] is not None]
        axes += [c.attributes["axis"] for c in valid if "axis" in c.attributes]
        assert any(a < 0 for a in axes) and any(a >= 0 for a in axes)
    else:
        assert any((c.inputs[1] < 0).any() for c in valid if c.inputs[1].size)


@pytest.mark.parametrize("spec_id", SPEC_IDS)
def test_every_subset_of_optional_outputs(spec_id):
    spec = load_or_fail(spec_id)
    valid, _ = valid_and_invalid(cases_of(spec_id))
    optional = [j for j, p in enumerate(spec.outputs) if p.optional]
    seen = {tuple(c.outputs_requested[j] for j in optional) for c in valid}
    assert seen == set(itertools.product((False, True), repeat=len(optional)))
    assert all(all(c.outputs_requested[j] for j, p in enumerate(spec.outputs) if not p.optional) for c in valid)


@pytest.mark.parametrize("spec_id", SPEC_IDS)
def test_every_combination_of_optional_inputs(spec_id):
    spec = load_or_fail(spec_id)
    valid, _ = valid_and_invalid(cases_of(spec_id))
    optional = [i for i, p in enumerate(spec.inputs) if p.optional]
    seen = {tuple(c.inputs[i] is not None for i in optional) for c in valid}
    assert seen == set(itertools.product((False, True), repeat=len(optional)))


@pytest.mark.parametrize("spec_id", SPEC_IDS)
def test_every_attribute_omitted_and_explicit(spec_id):
    spec = load_or_fail(spec_id)
    valid, _ = valid_and_invalid(cases_of(spec_id))
    for a in spec.attributes:
        assert any(a.name not in c.attributes for c in valid), f"{a.name} never omitted"
        assert any(a.name in c.attributes for c in valid), f"{a.name} never set"
        if a.default is not None:
            assert any(c.attributes.get(a.name) == a.default for c in valid), f"{a.name} never set to its default"
        for v in a.allowed or ():
            assert any(c.attributes.get(a.name) == v for c in valid), f"{a.name} never {v!r}"


@pytest.mark.parametrize("spec_id", SPEC_IDS)
def test_every_error_relation_broken_exactly(spec_id):
    """Every `error` relation is the first broken one in some case; alone, unless NEVER_ALONE says why not."""
    spec = load_or_fail(spec_id)
    _, invalid = valid_and_invalid(cases_of(spec_id))
    alone, first = set(), set()
    for c in invalid:
        broken = broken_exactly(spec, c)
        assert broken and broken[0] == c.expected.relation == c.label.split(";")[0].removeprefix("breaks:")
        first.add(broken[0])
        if len(broken) == 1:
            alone.add(broken[0])
    errors = [r.id for r in spec.relations if r.on_violation == "error"]
    assert set(errors) <= first, f"never broken: {sorted(set(errors) - first)}"
    not_alone = set(errors) - alone
    assert not_alone <= NEVER_ALONE, f"never broken alone: {sorted(not_alone)}"
    print(f"\n{spec_id}: {len(invalid)} invalid cases; broken alone: {len(alone)}/{len(errors)} relations; "
          f"only with others: {sorted(not_alone)}")


@pytest.mark.parametrize("spec_id", UNIQUE)
def test_unique_values_shaped_for_the_operator(spec_id):
    spec = load_or_fail(spec_id)
    valid, _ = valid_and_invalid(cases_of(spec_id))
    dup = distinct = nans = zeros = slices = 0
    for c in valid:
        x = c.inputs[0]
        if x.size < 3 or x.dtype == object:
            continue
        flat = x.reshape(-1)
        with np.errstate(invalid="ignore"):
            f = flat.astype(np.complex128 if x.dtype.kind == "c" else np.float64) if x.dtype.kind in "fcV" or x.dtype.itemsize <= 2 and x.dtype.kind not in "biu" else flat
        n_unique = len({(v + 0) if v == v else "nan" for v in f.tolist()})
        dup += n_unique <= flat.size // 2
        distinct += n_unique == flat.size and not np.isnan(np.asarray(f, dtype=np.complex128)).any()
        if x.dtype.kind == "f" or dtypes.get(dtypes.name_of(x.dtype)).kind == "float":
            ff = np.asarray(f, dtype=np.float64)
            nans += np.isnan(ff).sum() >= 2
            zeros += bool(((ff == 0) & np.signbit(ff)).any() and ((ff == 0) & ~np.signbit(ff)).any())
        axis = c.attributes.get("axis") if spec.dialect == "onnx" else (None if c.inputs[1] is None else int(np.asarray(c.inputs[1]).reshape(-1)[0]))
        if axis is not None and x.shape[axis] >= 2:
            rows = np.moveaxis(x, axis, 0).reshape(x.shape[axis], -1)
            slices += len({r.tobytes() for r in rows}) < x.shape[axis]
    print(f"\n{spec_id}: of {len(valid)} valid: many duplicates {dup}, all distinct {distinct}, "
          f"duplicated NaNs {nans}, both signed zeros {zeros}, repeated slices along axis {slices}")
    assert min(dup, distinct, nans, zeros, slices) >= 3


@pytest.mark.parametrize("spec_id", GATHERND)
def test_gathernd_indices_at_both_ends_of_every_bound_and_every_batch_dims(spec_id):
    spec = load_or_fail(spec_id)
    valid, _ = valid_and_invalid(cases_of(spec_id))
    low = high = 0
    batch_dims = set()
    negative = spec.dialect == "onnx"
    for c in valid:
        b = spec.resolved_attributes(c.attributes).get("batch_dims", 0)
        batch_dims.add(b)
        data, idx = c.inputs
        if not idx.size or not idx.shape[-1]:
            continue
        bounds = np.asarray(data.shape[b:b + idx.shape[-1]])
        cols = idx.reshape(-1, idx.shape[-1]).astype(np.int64)
        low += bool(((cols == (-bounds if negative else 0)) & (bounds > 1)).any())
        high += bool(((cols == bounds - 1) & (bounds > 1)).any())
    has_batch = any(a.name == "batch_dims" for a in spec.attributes)
    print(f"\n{spec_id}: of {len(valid)} valid: lowest index {low}, highest index {high}, batch_dims {sorted(batch_dims)}")
    assert low >= 5 and high >= 5
    if has_batch:
        assert batch_dims == set(range(0, 4)), sorted(batch_dims)  # smoke profile: rank <= 4, so b <= 3
