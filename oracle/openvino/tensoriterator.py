"""OpenVINO TensorIterator-1: the body run once per slice of the sliced inputs (one index wide, the
axis kept; start and end both iterated, negative ones counted from the end), merged Parameters taking
their back edge's Result from the previous iteration, the others their input every time; an output is
its Result's last value, or every iteration's value concatenated on its axis (in reverse for a
negative stride)."""
from __future__ import annotations

import numpy as np

from opconform.model import RelationBroken, SpecVersion
from opconform.specs import normalize_axis
from opconform.oracle.openvino import subgraph


def slice_indices(dim: int, start: int, end: int, stride: int) -> list[int]:
    """The indices an axis of `dim` entries is iterated at."""
    first, last = normalize_axis(start, dim), normalize_axis(end, dim)  # an index counted from the end, as an axis is
    return list(range(first, last + (1 if stride > 0 else -1), stride))


def run(spec: SpecVersion, inputs: list, attributes: dict, policies: dict, output_count=None) -> tuple:
    body = attributes["body"]
    fed0 = subgraph.fed_values(spec, body, list(inputs), attributes["input_ports"])
    slicing = {k: (a, s, e, st) for k, a, s, e, st in zip(attributes["sliced"], attributes["slice_axis"],
                                                           attributes["slice_start"], attributes["slice_end"],
                                                           attributes["slice_stride"])}
    if not slicing:
        raise RelationBroken(spec.id, "no_sliced_input", "undefined", "no input is sliced: the iteration count is not given")
    plans = {k: (a % fed0[k].ndim, slice_indices(fed0[k].shape[a % fed0[k].ndim], s, e, st))
             for k, (a, s, e, st) in slicing.items()}
    counts = {len(ix) for _, ix in plans.values()}
    if len(counts) > 1:
        raise RelationBroken(spec.id, "sliced_same_iterations", "error", f"sliced inputs give {sorted(counts)} iterations")
    count = counts.pop()
    if count == 0:
        raise RelationBroken(spec.id, "zero_iterations", "undefined", "no slice to iterate: no last value to give")
    back = dict(zip(attributes["back_edge_to"], attributes["back_edge_from"]))
    state = list(fed0)
    history: list[list] = []
    for i in range(count):
        fed = [np.take(x, [plans[k][1][i]], axis=plans[k][0]) if k in plans else x for k, x in enumerate(state)]
        outs = subgraph.run_body(spec, body, fed)
        history.append(outs)
        state = [outs[back[k]] if k in back else x for k, x in enumerate(state)]
        changed = [k for k in back if np.shape(state[k]) != np.shape(fed0[k])]
        if changed:  # the document's body Parameters declare one shape each (Example 2's dims)
            raise RelationBroken(spec.id, "state_shape_changes", "undefined",
                                 f"back edges give Parameters {changed} another shape than their first value's")
    return tuple(subgraph.gathered(spec, body, history, attributes, j, policies) for j in range(len(attributes["output_results"])))
