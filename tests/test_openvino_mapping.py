"""OpenVINO specs that map onto ONNX ones (`maps_to`): the mapping is well-formed against the ONNX
version it names, the oracle reuses the ONNX kernel through it (no per-operator module unless a
semantic difference needs one), and the differences that do have their own code compute what the
documents say, checked by properties rather than stored outputs."""
from __future__ import annotations

import numpy as np
import pytest

from helpers_library import loadable_specs
from opconform import dtypes, oracle, specs
from opconform.generator import sampling
from opconform.model import RelationBroken, SpecError
from opconform.oracle.openvino import mapped
from opconform.specs import expr

MAPPED = [v for s in loadable_specs("openvino") for v in s.versions if v.maps_to is not None]


def test_most_openvino_specs_map_onto_onnx():
    # opset16's detection, signal and generation operations (Proposal, PriorBox, RegionYolo, DFT over
    # several axes, Eye with batches, ...) have no ONNX operator computing the same: 60%, not 70%
    openvino = [v for s in loadable_specs("openvino") for v in s.versions]
    assert len(MAPPED) >= 0.6 * len(openvino), (len(MAPPED), len(openvino))


@pytest.mark.parametrize("spec", MAPPED, ids=lambda v: v.id)
def test_mapping_names_what_the_onnx_version_has(spec):
    onnx = specs.load(spec.maps_to.spec)
    assert onnx.dialect == "onnx"
    m = spec.maps_to
    if m.inputs is not None:
        assert len(m.inputs) <= len(onnx.inputs) or onnx.inputs[-1].variadic, m.inputs
    onnx_attributes = {a.name for a in onnx.attributes}
    assert set(m.attributes) <= onnx_attributes, set(m.attributes) - onnx_attributes
    if m.outputs is not None:
        assert set(m.outputs) <= {p.name for p in onnx.outputs}
    for text in list(m.attributes.values()) + [t for t in (m.inputs or ()) if t]:
        assert expr.names(text) <= {p.name for p in spec.inputs} | {a.name for a in spec.attributes} | set(spec.symbols), text
    assert len({d.id for d in m.differences}) == len(m.differences)


def test_an_operation_without_its_own_module_runs_the_onnx_kernel():
    plain = [v for v in MAPPED if oracle.module_for(v).__name__.endswith(".mapped")]
    assert len(plain) >= 50, len(plain)
    own = {v.operator for v in MAPPED} - {v.operator for v in plain}
    # the operations whose semantics differ from their ONNX counterpart keep code of their own
    assert own <= {"Divide", "Round", "Ceiling", "Floor", "Gather", "GatherND", "Tile", "MatMul", "ConvertLike", "Convert",
                   "Squeeze", "PReLU", "DepthToSpace", "SpaceToDepth", "Pad", "OneHot", "Unique",
                   "ReverseSequence", "TopK", "Broadcast", "ScatterElementsUpdate", "ScatterNDUpdate", "GroupNormalization", "MaxPool", "AvgPool",
                   "LRN", "MVN", "Col2Im", "NormalizeL2", "StridedSlice", "Interpolate",
                   "ROIPooling", "DeformableConvolution",  # bilinear method; locations shifted to the map's edge
                   "Constant"}, own  # the IR example gives no content: its type and shape are checked on zeros


@pytest.mark.parametrize("spec", [v for v in MAPPED if v.operator in ("Add", "ReduceSum", "Reshape", "Transpose", "Split", "Clamp", "IsInf")],
                         ids=lambda v: v.id)
def test_drawn_cases_run_through_the_mapping(spec):
    """The oracle's outputs are the ONNX kernel's on the spelt arguments, and have the element
    types and count the OpenVINO version declares."""
    cases = sampling.generate(spec, 8, 3, kind="valid")
    assert cases
    for case in cases:
        try:
            got = oracle.evaluate(spec, list(case.inputs), dict(case.attributes))
        except RelationBroken as e:
            assert e.on_violation == "undefined", e
            continue
        for port, y in zip(spec.outputs, got):
            assert dtypes.name_of(np.asarray(y).dtype) in port.types, (port.name, y.dtype)


def test_empty_axes_leave_a_reduction_the_identity():
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    for op in ("ReduceSum", "ReduceMax", "ReduceMean"):
        spec = specs.load(f"openvino::{op}-1")
        (y,) = oracle.evaluate(spec, [x, np.zeros(0, np.int64)], {"keep_dims": False})
        np.testing.assert_array_equal(y, x)
        (z,) = oracle.evaluate(spec, [x, np.array(1, np.int32)], {})  # keep_dims false by default: the axis goes
        assert z.shape == (2,)


def test_divide_floors_integers_by_default_and_truncates_without_pythondiv():
    rng = np.random.default_rng(5)
    a = rng.integers(-50, 50, 200).astype(np.int32)
    b = rng.integers(1, 9, 200).astype(np.int32) * rng.choice([-1, 1], 200).astype(np.int32)
    (q,) = oracle.evaluate("openvino::Divide-1", [a, b])
    r = a - q * b
    assert np.all((r == 0) | (np.sign(r) == np.sign(b))) and np.all(np.abs(r) < np.abs(b))  # floor: remainder takes b's sign
    (t,) = oracle.evaluate("openvino::Divide-1", [a, b], {"m_pythondiv": False})
    r = a - t * b
    assert np.all((r == 0) | (np.sign(r) == np.sign(a))) and np.all(np.abs(r) < np.abs(b))  # truncation: a's sign


def test_integer_math_rounds_or_truncates_the_real_result():
    x = np.arange(-20, 21, dtype=np.int32)
    real = np.sin(x.astype(np.float64))
    (rounded,) = oracle.evaluate("openvino::Sin-1", [x], policies={"integer_result": "round"})
    (truncated,) = oracle.evaluate("openvino::Sin-1", [x], policies={"integer_result": "truncate"})
    assert np.all(np.abs(rounded - real) <= 0.5) and np.all(np.abs(truncated) <= np.abs(real))
    assert np.all(np.abs(truncated - real) < 1)
    with pytest.raises(RelationBroken) as e:  # acos(2) is no integer
        oracle.evaluate("openvino::Acos-1", [np.array([2], np.int64)])
    assert e.value.on_violation == "undefined"


def test_gather_gives_zeros_for_indices_out_of_range_and_gathers_per_batch():
    data = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    idx = np.array([[0, 3, -1], [5, -4, 2]], np.int64)
    (y,) = oracle.evaluate("openvino::Gather-8", [data, idx, np.array(2, np.int64)], {"batch_dims": 1})
    assert y.shape == (2, 3, 3)
    for n in range(2):
        for j, i in enumerate(idx[n]):
            expected = data[n, :, i] if -4 <= i < 4 else np.zeros(3, np.float32)
            np.testing.assert_array_equal(y[n, :, j], expected)


def test_round_half_away_from_zero_and_to_even():
    x = np.arange(-40, 41, dtype=np.float32) / 4  # every quarter: halves included
    (away,) = oracle.evaluate("openvino::Round-5", [x], {"mode": "half_away_from_zero"})
    (even,) = oracle.evaluate("openvino::Round-5", [x], {"mode": "half_to_even"})
    halves = (x * 2) % 2 == 1
    np.testing.assert_array_equal(away[halves], np.sign(x[halves]) * np.ceil(np.abs(x[halves])))
    np.testing.assert_array_equal(even[halves] % 2, np.zeros(halves.sum(), np.float32))
    np.testing.assert_array_equal(away[~halves], even[~halves])


def test_clamp_bounds_take_the_data_type_on_the_onnx_side():
    spec = specs.load("openvino::Clamp-1")
    args, _ = mapped.onnx_arguments(spec, [np.zeros(3, np.int16)], {"min": -2.5, "max": 3.5})
    assert [a.dtype for a in args] == [np.int16] * 3
    assert (int(args[1]), int(args[2])) == (-2, 3)  # ceil(min), floor(max): the text's rule for integers


def test_a_malformed_mapping_is_refused_in_one_line(tmp_path):
    src = (specs.SPEC_ROOT / "openvino" / "Abs.yaml").read_text()
    bad = tmp_path / "openvino" / "Abs.yaml"
    bad.parent.mkdir()
    bad.write_text(src.replace("spec: onnx::Abs-13", "spec: onnx::Abs-13\n    attributes: {alpha: 'nope + 1'}"))
    with pytest.raises(SpecError) as e:
        specs.load_file(bad)
    assert "maps_to.attributes.alpha" in str(e.value) and "\n" not in str(e.value)


@pytest.mark.parametrize("shape", [(2, 8, 3), (2, 8, 3, 5), (1, 16, 2, 3, 2)])
def test_depth_to_space_undoes_space_to_depth_and_agrees_with_onnx_on_four_dimensions(shape):
    rng = np.random.default_rng(len(shape))
    x = rng.standard_normal([s * (2 if k >= 2 else 1) for k, s in enumerate(shape)]).astype(np.float32)
    for mode, onnx_mode in (("blocks_first", "DCR"), ("depth_first", "CRD")):
        (packed,) = oracle.evaluate("openvino::SpaceToDepth-1", [x], {"block_size": 2, "mode": mode})
        (back,) = oracle.evaluate("openvino::DepthToSpace-1", [packed], {"block_size": 2, "mode": mode})
        np.testing.assert_array_equal(back, x)
        if x.ndim == 4:
            (onnx,) = oracle.evaluate("onnx::DepthToSpace-13", [packed], {"blocksize": 2, "mode": onnx_mode})
            np.testing.assert_array_equal(onnx, x)
