"""OpenVINO Range-4: start, start + step, ... up to but not including stop, as output_type. The
count is max(ceil((stop - start) / step), 0) in float64 (the accumulate type), each element
start + i * step in float64 converted to output_type toward zero; under the policy input_cast =
output_type the three inputs are converted to output_type toward zero first. An element an
integer output_type cannot hold is an outcome the text does not give (values_representable)."""
from __future__ import annotations

import numpy as np

from opconform import dtypes
from opconform.model import RelationBroken, SpecVersion
from opconform.oracle.kernels.elementwise import wide


def _as_output(x: np.ndarray, target: np.dtype, spec: SpecVersion) -> np.ndarray:
    if target.kind not in "iu":
        return x.astype(target)
    t = np.trunc(x)
    info = np.iinfo(target)
    if t.size and (t.min() < info.min or t.max() > float(info.max)):
        raise RelationBroken(spec.id, "values_representable", "undefined", "an element past output_type's range")
    return t.astype(target)


def run(spec: SpecVersion, inputs: list, attributes: dict, policies: dict) -> tuple[np.ndarray, ...]:
    target = dtypes.numpy_dtype(spec.outputs[0].type_map[attributes["output_type"]])
    start, stop, step = (float(wide(np.asarray(x)).reshape(-1)[0]) for x in inputs)
    if policies.get("input_cast") == "output_type":
        start, stop, step = (float(_as_output(np.array([v]), target, spec)[0]) for v in (start, stop, step))
    count = max(int(np.ceil((stop - start) / step)), 0)
    return (_as_output(start + np.arange(count, dtype=np.float64) * step, target, spec),)
