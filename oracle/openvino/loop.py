"""OpenVINO Loop-5: the text's for loop. Iteration i runs while i < trip count (any when it is -1),
the condition holds (the execution condition before the first iteration, the body's condition Result
after each) and every sliced input has a slice left; the current iteration Parameter takes i, sliced
Parameters their i-th slice (one index wide, the axis kept), merged ones their back edge's Result
from the previous iteration, the others their input. An output is its Result's last value, or every
iteration's value concatenated on its axis; after zero iterations see the spec's notes."""
from __future__ import annotations

import numpy as np

from opconform import dtypes
from opconform.model import RelationBroken, SpecVersion
from opconform.oracle.kernels import graph_body
from opconform.oracle.openvino import subgraph

# the generator's loops end within a few iterations; one still running past this many is taken as
# one that never ends (undefined)
ITERATION_LIMIT = 1_000


def run(spec: SpecVersion, inputs: list, attributes: dict, policies: dict, output_count=None) -> tuple:
    body, current = attributes["body"], attributes["current_iteration"]
    trip = int(np.asarray(inputs[0]).reshape(-1)[0])
    going = bool(np.asarray(inputs[1]).reshape(-1)[0])
    iteration_type = dtypes.numpy_dtype(body.inputs[current].type) if current >= 0 else np.dtype(np.int64)
    ports = [p if k != current else 0 for k, p in enumerate(attributes["input_ports"])]
    initial = [inputs[p] if k != current else np.array(0, iteration_type) for k, p in enumerate(ports)]
    subgraph.check_input_types(spec, body, initial)
    plans = {k: (ax % initial[k].ndim, initial[k].shape[ax % initial[k].ndim])
             for k, ax in zip(attributes["sliced"], attributes["slice_axis"])}
    if len({n for _, n in plans.values()}) > 1:
        raise RelationBroken(spec.id, "sliced_same_iterations", "error", f"sliced inputs of {sorted({n for _, n in plans.values()})} slices")
    slices = min((n for _, n in plans.values()), default=None)
    back = dict(zip(attributes["back_edge_to"], attributes["back_edge_from"]))
    state, history, i = list(initial), [], 0
    while going and (trip < 0 or i < trip) and (slices is None or i < slices):
        if i >= ITERATION_LIMIT:
            raise RelationBroken(spec.id, "iterations_past_limit", "undefined", f"still running after {i} iterations")
        fed = [np.array(i, iteration_type) if k == current else
               np.take(x, [i], axis=plans[k][0]) if k in plans else x for k, x in enumerate(state)]
        outs = subgraph.run_body(spec, body, fed)
        history.append(outs)
        going = _condition(spec, outs[attributes["body_condition"]])
        state = [outs[back[k]] if k in back else x for k, x in enumerate(state)]
        changed = [k for k in back if np.shape(state[k]) != np.shape(initial[k])]
        if changed:  # the document's body Parameters declare one shape each
            raise RelationBroken(spec.id, "state_shape_changes", "undefined",
                                 f"back edges give Parameters {changed} another shape than their first value's")
        i += 1
    if history:
        return tuple(subgraph.gathered(spec, body, history, attributes, j, policies) for j in range(len(attributes["output_results"])))
    first = [np.take(x, [0] if plans[k][1] else [], axis=plans[k][0]) if k in plans else x for k, x in enumerate(initial)]
    return tuple(_after_none(spec, body, attributes, initial, first, j, policies["zero_iteration_concat_shape"])
                 for j in range(len(attributes["output_results"])))


def _condition(spec: SpecVersion, x) -> bool:
    x = np.asarray(x)
    if x.size != 1:
        raise RelationBroken(spec.id, "condition_one_element", "error", f"the body's condition has {x.size} elements")
    return bool(x.reshape(-1)[0])


def _after_none(spec: SpecVersion, body, attributes: dict, initial: list, first: list, j: int, policy: str):
    """Output j after zero iterations: a back edge's Result its Parameter's initial value; a
    concatenated output empty on its axis, its other dimensions those of one run of the body on the
    initial values (policy element_shape) or 0 (all_zero)."""
    r = attributes["output_results"][j]
    carried = [k for k, f in zip(attributes["back_edge_to"], attributes["back_edge_from"]) if f == r]
    if j in list(attributes["concatenated"]):
        probe = graph_body.probe(spec, body, first)
        if probe is None or np.ndim(probe[r]) == 0:
            raise RelationBroken(spec.id, "zero_iteration_output", "undefined", "no shape for an empty concatenation")
        axis = attributes["concat_axis"][list(attributes["concatenated"]).index(j)] % np.ndim(probe[r])
        shape = list(np.shape(probe[r])) if policy == "element_shape" else [0] * np.ndim(probe[r])
        shape[axis] = 0
        return np.zeros(shape, graph_body.element_dtype(body, r))
    if carried:
        return initial[carried[0]]
    raise RelationBroken(spec.id, "zero_iteration_output", "undefined", f"output {j} after zero iterations")
