"""If: the outputs of then_branch where the one element of cond is true, else of else_branch, each
body evaluated with opconform's own oracle (oracle/kernels/graph_body.py)."""
import numpy as np

from opconform.oracle.kernels import graph_body


def run(spec, inputs, attributes, policies, output_count=None):
    taken = bool(np.asarray(inputs[0]).reshape(-1)[0])
    return tuple(graph_body.run(spec, attributes["then_branch" if taken else "else_branch"], []))
