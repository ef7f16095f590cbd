"""OpenVINO Inverse-14: numpy.linalg.inv of each innermost square matrix (of its transpose with
adjoint), in float64 and rounded once. A singular or badly conditioned matrix (condition number
over 100: the document's float32 LU decomposition does not determine the inverse to the tolerance)
is undefined, as the document allows an exception or an undefined result."""
from __future__ import annotations

import numpy as np

from opconform.model import RelationBroken, SpecVersion
from opconform.oracle.kernels.elementwise import wide
from opconform.oracle.kernels.fp_extremes import extremes_are_data

CONDITION_LIMIT = 100.0


@extremes_are_data
def run(spec: SpecVersion, inputs: list, attributes: dict, policies: dict) -> tuple[np.ndarray, ...]:
    data = np.asarray(inputs[0])
    a = wide(data)
    if attributes.get("adjoint", False):
        a = np.swapaxes(a, -1, -2)
    if a.size and a.shape[-1]:
        cond = np.linalg.cond(a.reshape((-1,) + a.shape[-2:]))
        if not np.all(np.isfinite(cond)) or np.any(cond > CONDITION_LIMIT):
            raise RelationBroken(spec.id, "invertible", "undefined",
                                 "Inverse of a matrix that is not invertible (or is too badly conditioned to compute in float32)")
        a = np.linalg.inv(a)
    return (a.astype(data.dtype),)
