"""OpenVINO movement, normalization, image and matrix operations specified from their documents
(issue 16): their oracles checked by properties the documents imply (inverse pairs, identities,
brute-force loops), not by stored outputs; the slice-length arithmetic of SliceScatter's relation
against NumPy's own slicing; and a Python factory's refusal counted as OpenVINO's error."""
from __future__ import annotations

import numpy as np
import pytest

from opconform import oracle, specs
from opconform.specs import expr

RNG = np.random.default_rng(16)


def run(spec_id: str, inputs: list, attributes: dict | None = None, policies: dict | None = None) -> np.ndarray:
    return oracle.evaluate(specs.load(spec_id), inputs, attributes or {}, policies=policies)[0]


def ints(*values: int) -> np.ndarray:
    return np.array(values, np.int64)


@pytest.mark.parametrize("shape, block, pads", [((2, 3, 4), (1, 2, 3), (0, 1, 2)), ((1, 5), (1, 3), (0, 1)),
                                                 ((3, 2, 2, 3), (1, 1, 2, 3), (0, 0, 2, 0))])
def test_batch_to_space_undoes_space_to_batch(shape, block, pads):
    data = RNG.standard_normal(shape).astype(np.float32)
    begin = ints(*pads)
    end = ints(*[(-(s + p) % b) for s, p, b in zip(shape, pads, block)])  # pad each dimension to a multiple
    end[0] = 0
    spread = run("openvino::SpaceToBatch-2", [data, ints(*block), begin, end])
    back = run("openvino::BatchToSpace-2", [spread, ints(*block), begin, end])
    np.testing.assert_array_equal(back, data)


def test_roll_sums_the_shifts_of_a_repeated_axis_and_undoes_itself():
    data = np.arange(24, dtype=np.int32).reshape(2, 3, 4)
    twice = run("openvino::Roll-7", [data, ints(1, 2), ints(-1, 2)])
    np.testing.assert_array_equal(twice, np.roll(data, 3, axis=2))
    rolled = run("openvino::Roll-7", [data, ints(5, -7), ints(0, 1)])
    np.testing.assert_array_equal(run("openvino::Roll-7", [rolled, ints(-5, 7), ints(0, 1)]), data)


def test_shuffle_channels_by_the_complementary_group_is_the_identity():
    data = RNG.standard_normal((2, 12, 3)).astype(np.float32)
    once = run("openvino::ShuffleChannels-1", [data], {"axis": 1, "group": 3})
    assert not np.array_equal(once, data)
    np.testing.assert_array_equal(run("openvino::ShuffleChannels-1", [once], {"axis": -2, "group": 4}), data)


def test_reverse_sequence_twice_is_the_identity_on_any_axes():
    data = RNG.standard_normal((3, 2, 5)).astype(np.float32)
    attrs = {"batch_axis": 0, "seq_axis": -1}
    lengths = ints(1, 5, 3)
    once = run("openvino::ReverseSequence-1", [data, lengths], attrs)
    np.testing.assert_array_equal(once[1], data[1, :, ::-1])
    np.testing.assert_array_equal(run("openvino::ReverseSequence-1", [once, lengths], attrs), data)


def test_scatter_elements_update_mean_is_the_floored_mean_of_a_loop():
    data = RNG.integers(-20, 20, (3, 4)).astype(np.int32)
    indices = RNG.integers(-4, 4, (3, 6))
    updates = RNG.integers(-20, 20, (3, 6)).astype(np.int32)
    for use_init in (True, False):
        got = run("openvino::ScatterElementsUpdate-12", [data, indices, updates, ints(1)],
                  {"reduction": "mean", "use_init_val": use_init})
        want = data.copy()
        for i in range(3):
            for k in set(int(j) % 4 for j in indices[i]):
                values = [int(u) for j, u in zip(indices[i], updates[i]) if int(j) % 4 == k]
                values += [int(data[i, k])] if use_init else []
                want[i, k] = sum(values) // len(values)
        np.testing.assert_array_equal(got, want)


def test_slice_scatter_slice_lengths_are_numpys():
    """The relation updates_shape computes the slice's shape with the relation language (clamping
    per axis, then scattered over the dimensions): it must be NumPy's for any bounds and steps."""
    spec = specs.load("openvino::SliceScatter-15")
    shape_of = expr.compiled("E")
    for _ in range(300):
        data = np.zeros(tuple(RNG.integers(0, 5, 3)))
        axes = RNG.permutation(3)[: RNG.integers(1, 4)]
        start, stop = (RNG.choice([RNG.integers(-7, 8), 2 ** 31 - 1, -2 ** 31], size=len(axes)) for _ in range(2))
        step = RNG.choice([-3, -2, -1, 1, 2, 3], size=len(axes))
        index = [slice(None)] * 3
        for a, b, e, s in zip(axes, start, stop, step):
            index[a] = slice(int(b), int(e), int(s))
        want = data[tuple(index)].shape
        args = [data, np.zeros(want), start.astype(np.int32), stop.astype(np.int32), step.astype(np.int32), axes - 3]
        assert tuple(int(v) for v in shape_of(specs.environment(spec, args, {}))) == want
        assert specs.first_broken(spec, args, {}) is None


def test_lrn_window_readings_agree_for_odd_sizes_only():
    data = RNG.standard_normal((1, 6, 2)).astype(np.float64)
    attrs = {"alpha": 0.5, "beta": 0.75, "bias": 1.0}
    for size, same in ((3, True), (4, False)):
        a, b = (run("openvino::LRN-1", [data, ints(1)], dict(attrs, size=size), {"window": w}) for w in ("document", "reference"))
        assert np.allclose(a, b) == same


def test_group_normalization_groups_have_zero_mean_and_unit_variance():
    data = RNG.standard_normal((2, 6, 5)) * 3 + 1
    out = run("openvino::GroupNormalization-12", [data, np.ones(6), np.zeros(6)], {"num_groups": 3, "epsilon": 1e-12})
    groups = out.reshape(2, 3, -1)
    np.testing.assert_allclose(groups.mean(axis=2), 0, atol=1e-12)
    np.testing.assert_allclose(groups.var(axis=2), 1, rtol=1e-9)


def test_normalize_l2_empty_axes_readings():
    data = np.array([2.0, -3.0, 0.0], np.float32)
    attrs = {"eps": 1e-12, "eps_mode": "max"}
    formula = run("openvino::NormalizeL2-1", [data, ints()], attrs, {"empty_axes": "formula"})
    itself = run("openvino::NormalizeL2-1", [data, ints()], attrs, {"empty_axes": "itself"})
    np.testing.assert_allclose(formula, [1, -1, 0])
    np.testing.assert_array_equal(itself, [1, 1, 0])


def test_inverse_times_the_matrix_is_the_identity():
    a = RNG.standard_normal((3, 4, 4)) + 4 * np.eye(4)
    inv = run("openvino::Inverse-14", [a])
    np.testing.assert_allclose(inv @ a, np.broadcast_to(np.eye(4), a.shape), atol=1e-12)
    adj = run("openvino::Inverse-14", [a], {"adjoint": True})
    np.testing.assert_allclose(adj @ np.swapaxes(a, -1, -2), np.broadcast_to(np.eye(4), a.shape), atol=1e-12)


def test_grey_pixels_convert_to_equal_channels_in_every_layout():
    y = np.array([[[[16], [100]], [[235], [50]]]], np.float32)
    grey = np.clip(1.164 * (y[..., 0] - 16), 0, 255)
    u = v = np.full((1, 1, 1, 1), 128, np.float32)
    single = np.concatenate([y, np.full((1, 1, 2, 1), 128, np.float32)], axis=1)
    for op, planes in (("NV12toRGB", [y, np.full((1, 1, 1, 2), 128, np.float32)]), ("I420toBGR", [y, u, v]),
                       ("NV12toBGR", [single]), ("I420toRGB", [single])):
        out = run(f"openvino::{op}-8", planes)
        for c in range(3):
            np.testing.assert_allclose(out[..., c], grey, rtol=1e-6)


@pytest.mark.backend
def test_a_factory_refusing_planes_is_openvinos_error():
    pytest.importorskip("openvino")
    import dataclasses

    from opconform.backends import get
    from opconform.generator import sampling

    spec = specs.load("openvino::I420toRGB-8")
    case = sampling.generate(spec, 1, 3, kind="valid", expect=oracle.expectation)[0]
    y = np.zeros((1, 2, 2, 1), np.uint8)
    lone_u = dataclasses.replace(case, inputs=(y, np.zeros((1, 1, 1, 1), np.uint8), None), constant_inputs=())
    outcome = get("openvino-native").execute(spec, lone_u)
    assert outcome.status == "error", outcome
