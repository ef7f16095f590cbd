"""ONNX Range: max(ceil((limit - start) / delta), 0) elements, output[i] = start + i * delta,
in the input type (float16/bfloat16: in the stash_type from version 27).

A start, limit or delta of shape [1] (the spec's relations allow rank 1 with one element) is
refused under the policy scalar_inputs = strict (the oracle-side relation inputs_scalar, error) and
read as its one element under one_element; oracle.expectation() then allows both."""
import numpy as np

from opconform import dtypes
from opconform.model import RelationBroken

INPUTS_SCALAR = "inputs_scalar"  # the oracle-side relation of scalar_inputs = strict


def run(spec, inputs, attributes, policies):
    shaped = [name for name, x in zip(("start", "limit", "delta"), inputs) if np.ndim(x) > 0]
    if shaped and policies.get("scalar_inputs", "strict") == "strict":
        raise RelationBroken(spec.id, INPUTS_SCALAR, "error", f"{', '.join(shaped)} of shape [1], not a scalar "
                                                              f"(policy scalar_inputs = strict)")
    start, limit, delta = (np.asarray(x).reshape(()) for x in inputs)
    out_type = start.dtype
    work = _working_type(out_type, attributes.get("stash_type"))
    s, l, d = start.astype(work), limit.astype(work), delta.astype(work)
    with np.errstate(all="ignore"):
        if np.issubdtype(work, np.integer):
            # exact integer ceil division: -((l - s) // -d)
            n = -((int(l) - int(s)) // -int(d))
        else:
            count_type = np.float64 if policies.get("count_precision") == "float64" else work
            span = np.asarray((l.astype(count_type) - s.astype(count_type)) / d.astype(count_type))
            n = int(np.ceil(span)) if np.isfinite(span) else 0
        i = np.arange(max(n, 0))
        values = s + i.astype(work) * d
    return (values.astype(out_type),)


def _working_type(dtype: np.dtype, stash_type) -> np.dtype:
    """float16/bfloat16 are computed in the stash_type (version 27+: default float32)."""
    if stash_type is None or dtypes.name_of(dtype) not in ("float16", "bfloat16"):
        return dtype
    return dtypes.BY_ONNX[int(stash_type)].numpy
