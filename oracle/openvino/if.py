"""OpenVINO If-8: the outputs of then_body where the one element of cond is true, else of else_body;
each body's Parameters fed through its port map (then_inputs, else_inputs: the If input of each),
the body evaluated with opconform's own oracle (oracle/kernels/graph_body.py)."""
from __future__ import annotations

import numpy as np

from opconform.model import SpecVersion
from opconform.oracle.openvino import subgraph


def run(spec: SpecVersion, inputs: list, attributes: dict, policies: dict, output_count=None) -> tuple:
    taken = "then" if bool(np.asarray(inputs[0]).reshape(-1)[0]) else "else"
    body = attributes[f"{taken}_body"]
    fed = subgraph.fed_values(spec, body, list(inputs), attributes[f"{taken}_inputs"])
    return tuple(subgraph.run_body(spec, body, fed))
