"""OpenVINO's variables for the openvino-native backend: a case of a spec with state ports
(ReadValue-3, Assign-3; see Port.state) runs on a fresh InferRequest, so that no variable carries
a value over from another case; a state input that is not a constant is set on the variable
(query_state) before the inference, a state output read from it after. A constant state input
is the variable's declared value, built into the model (generator/openvino_state_adapters.py)."""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from opconform.backends.base import phase
from opconform.model import Case, SpecVersion

__all__ = ["is_stateful", "state_positions", "infer"]


def is_stateful(spec: SpecVersion) -> bool:
    return any(p.state for p in spec.inputs + spec.outputs)


def state_positions(spec: SpecVersion, case: Case) -> list[int]:
    """The case's inputs set on the variable: present state inputs not fed as constants."""
    constant = list(case.constant_inputs) + [False] * (len(case.inputs) - len(case.constant_inputs))
    return [i for i, (p, x) in enumerate(zip(spec.inputs, case.inputs)) if p.state and x is not None and not constant[i]]


def infer(rt: Any, compiled: Any, arrays: Sequence[np.ndarray], states_in: dict[str, np.ndarray],
          states_out: Sequence[str]) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """The model's outputs and the values of the variables named in `states_out` after one inference
    on a fresh request whose variables named in `states_in` hold those values first."""
    request = compiled.create_infer_request()
    variables = {s.name: s for s in request.query_state()}
    for name, value in states_in.items():
        if name not in variables:
            raise RuntimeError(f"the compiled model has no variable {name!r} (it has {sorted(variables)})")
        with phase("harness"):
            tensor = rt._tensor(value)
        variables[name].state = tensor if isinstance(tensor, rt.ov.Tensor) else rt.ov.Tensor(tensor)
    with phase("harness"):
        tensors = [rt._tensor(a) for a in arrays]
    request.infer(tensors)
    got = [(request.get_tensor(port), port.get_element_type()) for port in compiled.outputs]
    missing = [name for name in states_out if name not in variables]
    if missing:
        raise RuntimeError(f"the compiled model has no variable {missing[0]!r} to read (it has {sorted(variables)})")
    states = [(variables[name].state, variables[name].state.get_element_type()) for name in states_out]
    with phase("harness"):
        return ([rt._numpy(t, _data(v)) for v, t in got], [rt._numpy(t, _data(v)) for v, t in states])


def _data(tensor: Any) -> np.ndarray:
    """A copy of a tensor's elements (a string tensor's as str)."""
    if str(tensor.get_element_type()) == "string":
        return np.array(tensor.str_data)
    return np.array(tensor.data, copy=True)
