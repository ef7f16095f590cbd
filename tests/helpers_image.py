"""Shared pieces of the image operators' tests (Resize, GridSample, RoiAlign, NonMaxSuppression,
AffineGrid): onnx.reference on one node with numbered inputs, an independent implementation to
compare the oracle with."""
from __future__ import annotations

import numpy as np
import onnx
from onnx import helper
from onnx.reference import ReferenceEvaluator

from opconform import dtypes


def reference_run(op: str, opset: int, inputs: list, attributes: dict) -> list[np.ndarray]:
    """onnx.reference's outputs for one node; None in `inputs` is an absent optional input."""
    names = [f"in{k}" if x is not None else "" for k, x in enumerate(inputs)]
    while names and names[-1] == "":
        names.pop()
    given = [(n, x) for n, x in zip(names, inputs) if n]
    node = helper.make_node(op, names, ["out"], **attributes)
    graph = helper.make_graph(
        [node], "g",
        [helper.make_tensor_value_info(n, dtypes.get(dtypes.name_of(x.dtype)).onnx, x.shape) for n, x in given],
        [helper.make_tensor_value_info("out", onnx.TensorProto.UNDEFINED, None)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    return ReferenceEvaluator(model).run(None, dict(given))
