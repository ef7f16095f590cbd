"""OpenVINO's generation operations: Eye-9's diagonals and batches, RandomUniform-8's statistical
judge (the document's worked values pass it; a biased or out-of-range sample fails)."""
from __future__ import annotations

import numpy as np
import pytest

from opconform import oracle, specs
from opconform.oracle.openvino import randomuniform


def _eye(rows: int, cols: int, k: int, batch=None, output_type: str = "i32") -> np.ndarray:
    inputs = [np.array(rows, np.int64), np.array(cols, np.int64), np.array(k, np.int64),
              None if batch is None else np.array(batch, np.int64)]
    return np.asarray(oracle.evaluate(specs.load("openvino::Eye-9"), inputs, {"output_type": output_type})[0])


@pytest.mark.parametrize("rows, cols, k", [(3, 4, 0), (3, 4, 3), (3, 4, 4), (4, 3, -3), (4, 3, -4), (2, 5, -1), (0, 3, 1)])
def test_eye_puts_ones_where_column_i_plus_k_exists(rows, cols, k):
    got = _eye(rows, cols, k)
    want = np.array([[1 if j == i + k else 0 for j in range(cols)] for i in range(rows)], np.int32).reshape(rows, cols)
    np.testing.assert_array_equal(got, want)


def test_eye_repeats_the_matrix_over_the_batch_in_the_output_type():
    got = _eye(2, 3, 1, batch=[2, 1, 3], output_type="bf16")
    assert got.shape == (2, 1, 3, 2, 3) and str(got.dtype) == "bfloat16"
    assert (got == _eye(2, 3, 1, output_type="bf16")).all()


def _judge(output_type: str, low, high, y) -> str:
    spec = specs.load("openvino::RandomUniform-8")
    dtype = np.asarray(y).dtype
    inputs = [np.array(np.shape(y), np.int64), np.array(low, dtype), np.array(high, dtype)]
    return randomuniform.judge(spec, inputs, {"output_type": output_type}, {}, {"output": np.asarray(y)})


def test_the_documents_worked_values_lie_in_their_ranges():
    """Examples 1-3 of both alignments: the judge accepts them (9 and 6 values are too few for the
    distribution test to say much; they must at least lie in [minval, maxval))."""
    assert _judge("f32", 0, 1, np.array([[0.7011236, 0.30539632, 0.93931055], [0.9456035, 0.11694777, 0.50770056],
                                         [0.5197197, 0.22727466, 0.991374]], np.float32)) == ""
    assert _judge("f64", 2, 10, np.array([[5.65927959, 4.23122376], [2.67008206, 2.36423758]])) == ""
    assert _judge("i32", 50, 100, np.array([[65, 70, 56], [59, 82, 92]], np.int32)) == ""
    assert _judge("f32", 0, 1, np.array([[0.6789123, 0.31274895, 0.91842768], [0.9312087, 0.13456984, 0.49623574],
                                         [0.5082716, 0.23938411, 0.97856429]], np.float32)) == ""
    assert _judge("i32", 50, 100, np.array([[89, 73, 68], [95, 78, 61]], np.int32)) == ""


def test_a_uniform_sample_passes_and_a_biased_or_out_of_range_one_fails():
    rng = np.random.default_rng(0)
    assert _judge("f32", -2, 6, rng.uniform(-2, 6, 4000).astype(np.float32)) == ""
    assert _judge("f32", -2, 6, rng.uniform(-2, 2, 4000).astype(np.float32)) != ""
    assert _judge("i64", 3, 9, rng.integers(3, 9, 4000)) == ""
    assert _judge("i64", 3, 9, rng.integers(3, 8, 4000)) != ""  # never 8
    assert "outside" in _judge("i32", 3, 9, np.array([3, 9], np.int32))  # maxval is exclusive


def _document_draws(probs, uniforms, log_probs: bool, with_replacement: bool) -> list[list[int]]:
    """The document's algorithm with its listed 'randomly generated floats': the lowest class whose
    normalised CDF is >= the number (erratum cdf_comparison), the CDF lowered after each draw
    without replacement; in float32, the type of the examples' probs (whose e**21 vanishes next to
    e**50, the normalised CDF of Example 2's second row being [1, 1, 1] as the document shows)."""
    out = []
    for row, us in zip(probs, uniforms):
        p = np.exp(np.asarray(row, np.float32)) if log_probs else np.asarray(row, np.float32)
        cdf = np.cumsum(p, dtype=np.float32)
        picks = []
        for u in np.asarray(us, np.float32):
            c = int(np.argmax(cdf / cdf[-1] >= u))
            picks.append(c)
            if not with_replacement:
                cdf[c:] -= p[c]
        out.append(picks)
    return out


def test_the_documents_worked_draws_follow_the_cdf_read_as_greater_or_equal():
    assert _document_draws([[0.1, 0.5, 0.4]], [[0.2, 0.4, 0.6, 0.8, 1]], False, True) == [[1, 1, 1, 2, 2]]
    tenths = [round(0.1 * k, 1) for k in range(1, 11)]
    assert _document_draws([[-1, 1, 2], [50, 1, 21]], [tenths, tenths], True, True) == \
        [[1, 1, 2, 2, 2, 2, 2, 2, 2, 2], [0] * 10]
    # Example 3 says [[1, 2]], its own rule (and its note: "for sampled values <= 0.2, only the class
    # with idx 0 can be selected") gives [[1, 0]]: erratum example_3_result
    assert _document_draws([[0.1, 0.5, 0.4]], [[0.3, 0.2]], False, False) == [[1, 0]]


def _judge_multinomial(probs, y, with_replacement=True, log_probs=False) -> str:
    spec = specs.load("openvino::Multinomial-13")
    attrs = spec.resolved_attributes({"convert_type": "i32", "with_replacement": with_replacement, "log_probs": log_probs})
    inputs = [np.asarray(probs, np.float32), np.array(np.shape(y)[1], np.int32)]
    return oracle.judge(spec, inputs, attrs, None, {"output": np.asarray(y, np.int32)})


def test_multinomial_judge_counts_with_replacement_and_refuses_repeats_without():
    rng = np.random.default_rng(1)
    probs = [[0.1, 0.5, 0.4], [2.0, 0.0, 2.0]]
    good = np.stack([rng.choice(3, 3000, p=[0.1, 0.5, 0.4]), rng.choice(3, 3000, p=[0.5, 0.0, 0.5])])
    assert _judge_multinomial(probs, good) == ""
    assert _judge_multinomial(probs, np.stack([rng.choice(3, 3000, p=[0.3, 0.3, 0.4]), good[1]])) != ""
    assert _judge_multinomial(np.log([[0.1, 0.5, 0.4]]), good[:1], log_probs=True) == ""
    assert _judge_multinomial([[0.1, 0.5, 0.4]], [[1, 2]], with_replacement=False) == ""
    assert "twice" in _judge_multinomial([[0.1, 0.5, 0.4]], [[1, 1]], with_replacement=False)
