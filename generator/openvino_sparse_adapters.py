"""openvino-native adapters for the embedding operations: their IR numbers the optional inputs,
so per_sample_weights (the last) can only be given after default_index. A case that gives the
weights without a default index is built with default index -1 where the documents say -1 means
the same as none (the embedding bags: "If set to -1 or not provided, empty bags are filled with
zeros"); EmbeddingSegmentsSum gives -1 no meaning, so such a case cannot be built."""
from __future__ import annotations

from typing import Any

import numpy as np

from opconform.generator.openvino_factories import ADAPTERS, call as _call, factory


def _bags_default_minus_one(operator: str, default_at: int):
    def adapter(opset: Any, args: list, attributes: dict) -> Any:
        args = list(args)
        if len(args) > default_at + 1 and args[default_at] is None and args[default_at + 1] is not None:
            index_type = args[1].get_element_type().to_dtype()
            args[default_at] = opset.constant(np.array(-1, dtype=index_type))
        return _call(factory(opset, operator), args, attributes)
    return adapter


def _segments(opset: Any, args: list, attributes: dict) -> Any:
    if len(args) > 5 and args[4] is None and args[5] is not None:
        raise RuntimeError("not supported by the Python factory opset3.embedding_segments_sum() nor the IR: "
                           "per_sample_weights (input 6) cannot be given without default_index (input 5), and no "
                           "value of default_index means none")
    return _call(factory(opset, "EmbeddingSegmentsSum"), list(args), attributes)


for _op in ("EmbeddingBagOffsetsSum", "EmbeddingBagOffsets"):
    ADAPTERS[_op] = _bags_default_minus_one(_op, 3)
ADAPTERS["EmbeddingSegmentsSum"] = _segments
