"""ONNX StringSplit: each string's substrings along a new last dimension, padded with empty strings to
the longest list, and their counts. Python's str.split is the text's rule: every delimiter splits (an
empty string is one empty substring), no delimiter splits on whitespace runs with the ends dropped,
maxsplit counts splits from the left. Policy suffix_whitespace: a whitespace split stopped by maxsplit
keeps its suffix's trailing whitespace (kept, str.split) or drops it (stripped)."""
from __future__ import annotations

import numpy as np


def run(spec, inputs, attributes, policies):
    x = np.asarray(inputs[0], dtype=object)
    delimiter = attributes.get("delimiter") or None  # "" reads as unset: whitespace
    maxsplit = attributes.get("maxsplit")
    limit = -1 if maxsplit is None else int(maxsplit)
    parts = [s.split(delimiter, limit) for s in x.reshape(-1)]
    if delimiter is None and policies.get("suffix_whitespace") == "stripped":
        parts = [p[:-1] + [p[-1].rstrip()] if p else p for p in parts]
    counts = np.array([len(p) for p in parts], dtype=np.int64)
    width = int(counts.max(initial=0))
    y = np.full((len(parts), width), "", dtype=object)
    for row, p in enumerate(parts):
        y[row, : len(p)] = p
    return y.reshape(x.shape + (width,)), counts.reshape(x.shape)
