"""ONNX TfIdfVectorizer: each row's occurrences of the pool's n-grams (sizes min_gram_length ..
max_gram_length), every skip distance 1 .. max_skip_count + 1 (1-grams once), gathered at their
output coordinates and weighted by mode. Items are compared through integer codes (one
numpy.unique over X and the pool); per (size, skip distance) the windows of all rows are matched
against all n-grams of that size at once."""
import numpy as np

from opconform.model import RelationBroken


def run(spec, inputs, attributes, policies):
    x = inputs[0]
    rows = x.reshape(1, -1) if x.ndim == 1 else x
    strings = attributes.get("pool_strings") is not None
    pool = np.asarray(attributes["pool_strings"] if strings else attributes["pool_int64s"], dtype=object if strings else np.int64)
    items = np.concatenate([rows.reshape(-1).astype(pool.dtype), pool])
    _, codes = np.unique(items.astype(str) if strings else items, return_inverse=True)
    xc, pc = codes[: rows.size].reshape(rows.shape), codes[rows.size:]
    sizes, grams = _ngrams(attributes["ngram_counts"], pool.size)
    freq = _counts(xc, pc, sizes, grams, attributes)
    if policies["duplicate_ngrams"] == "last":
        freq = freq * _last_of_equal(pc, sizes, grams)
    index = np.asarray(attributes["ngram_indexes"], dtype=np.int64)
    width = int(index.max()) + 1
    to_output = np.zeros((index.size, width), dtype=np.float64)
    to_output[np.arange(index.size), index] = 1.0  # n-gram j -> its output coordinate
    mode, w = attributes["mode"], attributes.get("weights")
    if policies["weights_index"] == "output_order" and mode != "TF" and w is not None:
        if width > len(w):
            raise RelationBroken(spec.id, "weights_index", "undefined", "an output coordinate past the weights")
        counts = freq.astype(np.float64) @ to_output
        y = (counts > 0 if mode == "IDF" else counts) * np.asarray(w, dtype=np.float64)[:width]
    else:
        per_gram = (freq > 0 if mode == "IDF" else freq).astype(np.float64)
        if mode != "TF" and w is not None:
            per_gram = per_gram * np.asarray(w, dtype=np.float64)
        y = per_gram @ to_output
    y = y.astype(np.float32)
    return (y.reshape(-1) if x.ndim == 1 else y,)


def _ngrams(starts, total: int) -> tuple[np.ndarray, list[tuple[int, int]]]:
    """(size of each pool n-gram in pool order, (start, size) of each): segment i holds the
    (i + 1)-grams from starts[i] to the next start, floor(items / n) of them."""
    ends = list(starts[1:]) + [total]
    grams = [(s + k * (i + 1), i + 1) for i, (s, e) in enumerate(zip(starts, ends)) for k in range(max(e - s, 0) // (i + 1))]
    return np.asarray([n for _, n in grams], dtype=np.int64), grams


def _counts(xc: np.ndarray, pc: np.ndarray, sizes: np.ndarray, grams, attributes) -> np.ndarray:
    """freq[row, j]: occurrences of pool n-gram j in the row, over every skip distance."""
    rows, width = xc.shape
    freq = np.zeros((rows, len(grams)), dtype=np.int64)
    for n in range(int(attributes["min_gram_length"]), int(attributes["max_gram_length"]) + 1):
        js = np.flatnonzero(sizes == n)
        if js.size == 0:
            continue
        want = np.stack([pc[grams[j][0]: grams[j][0] + n] for j in js])  # (m, n)
        for dist in range(1, int(attributes["max_skip_count"]) + 2) if n > 1 else (1,):
            starts = width - (n - 1) * dist
            if starts <= 0:
                break
            windows = np.stack([xc[:, k * dist: k * dist + starts] for k in range(n)], axis=-1)  # (rows, starts, n)
            freq[:, js] += (windows[:, :, None, :] == want[None, None]).all(-1).sum(1)
    return freq


def _last_of_equal(pc: np.ndarray, sizes: np.ndarray, grams) -> np.ndarray:
    """1 for each pool n-gram that no later entry repeats, 0 for the others."""
    keys = [(n, tuple(pc[s: s + n].tolist())) for s, n in grams]
    last = {k: j for j, k in enumerate(keys)}
    return np.asarray([last[k] == j for j, k in enumerate(keys)], dtype=np.int64)
