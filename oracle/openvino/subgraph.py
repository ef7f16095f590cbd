"""What OpenVINO's sub-graph operations (If-8, TensorIterator-1, Loop-5) share: a body's Parameters
fed through a port map, checked against the types they declare, and the body run with opconform's
own oracle (oracle/kernels/graph_body.py) under the floating-point quiet the other oracles use."""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from opconform import dtypes
from opconform.graphs import Graph
from opconform.model import RelationBroken, SpecVersion
from opconform.oracle.kernels import graph_body

__all__ = ["fed_values", "run_body", "check_input_types", "gathered"]


def fed_values(spec: SpecVersion, body: Graph, inputs: Sequence[Any], ports: Sequence[int]) -> list[Any]:
    """The values of the operation's inputs (by port ID, `inputs` indexed the same) that a port map
    gives the body's Parameters, in Parameter order, checked against the types declared."""
    fed = [inputs[int(p)] for p in ports]
    check_input_types(spec, body, fed)
    return fed


def check_input_types(spec: SpecVersion, body: Graph, fed: Sequence[Any]) -> None:
    """A Parameter fed a value of another element type than it declares: the model is refused."""
    for v, x in zip(body.inputs, fed):
        if isinstance(x, np.ndarray) and dtypes.name_of(x.dtype) != v.type:
            raise RelationBroken(spec.id, "body_input_types", "error",
                                 f"{body.name} Parameter {v.name!r} is {v.type}, fed {dtypes.name_of(x.dtype)}")


def run_body(spec: SpecVersion, body: Graph, fed: Sequence[Any]) -> list[Any]:
    # a body's arithmetic meets drawn NaN and infinities as data, as the nodes' own oracles do
    with np.errstate(all="ignore"):
        return graph_body.run(spec, body, list(fed))


def gathered(spec: SpecVersion, body: Graph, history: Sequence[Sequence[Any]], attributes: dict, j: int,
             policies: dict | None = None) -> Any:
    """Output j of TensorIterator or Loop after these iterations' Results: Result output_results[j]
    of the last iteration, or, where j is listed in `concatenated`, of every iteration concatenated on
    its concat_axis (in reverse order for a negative concat_stride)."""
    r = attributes["output_results"][j]
    listed = list(attributes.get("concatenated") or [])
    if j not in listed:
        return history[-1][r]
    k = listed.index(j)
    parts = [outs[r] for outs in history]
    if (attributes.get("concat_stride") or [1] * len(listed))[k] < 0:  # Loop's entries have no stride
        parts.reverse()
    if len({p.ndim for p in parts}) != 1 or parts[0].ndim == 0:
        raise RelationBroken(spec.id, "concat_rank", "error", f"{body.name} Result {r} cannot be concatenated: ranks {[p.ndim for p in parts]}")
    axis = attributes["concat_axis"][k] % parts[0].ndim
    if len({p.shape[:axis] + p.shape[axis + 1:] for p in parts}) > 1:  # the document gives no shape for it
        raise RelationBroken(spec.id, "result_shapes_change", "undefined",
                             f"{body.name} Result {r} of shapes {sorted({p.shape for p in parts})} across iterations")
    if (policies or {}).get("concat_part_width") == "one" and any(p.shape[axis] != 1 for p in parts):
        # OpenVINO's reading: each iteration gives one part of the IR's part_size (1) on the axis
        raise RelationBroken(spec.id, "concat_part_width", "error",
                             f"{body.name} Result {r} is {parts[0].shape[axis]} wide on concat axis {axis}, not 1")
    return np.concatenate(parts, axis=axis)
