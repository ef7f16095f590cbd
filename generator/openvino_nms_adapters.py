"""openvino-native adapters for the multi-class NMS operations: MulticlassNonMaxSuppression-9 has
no function of its own name (openvino.opset9.multiclass_nms), and both it and MatrixNms-8
(openvino.opset8.matrix_nms) take the IR's sort_result as sort_result_type, spelt classid where
the documents say class (their erratum sort_result_class_spelling)."""
from __future__ import annotations

import importlib
from typing import Any, Callable

from opconform.generator.openvino_factories import ADAPTERS, call as _call

_SORT_SPELLING = {"class": "classid"}


def _sorted_nms(module: str, function: str) -> Callable[[Any, list, dict], Any]:
    def adapter(opset: Any, args: list, attributes: dict) -> Any:
        attributes = dict(attributes)
        sort = attributes.pop("sort_result", "none")
        attributes["sort_result_type"] = _SORT_SPELLING.get(sort, sort)
        return _call(getattr(importlib.import_module(module), function), list(args), attributes)
    return adapter


ADAPTERS["MulticlassNonMaxSuppression"] = _sorted_nms("openvino.opset9", "multiclass_nms")
ADAPTERS["MatrixNms"] = _sorted_nms("openvino.opset8", "matrix_nms")
