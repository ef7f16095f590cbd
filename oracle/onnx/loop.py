"""Loop: the text's C-style loop. Iteration i runs while i < M (when M is given) and the condition
holds (when cond is given: the input before the first iteration, the body's condition output after
each); without cond the body's condition is computed and ignored. Carried values pass from one
iteration's outputs to the next's inputs; scan outputs stack each iteration's value on a new first
axis (after zero iterations: policy zero_iteration_scan_shape)."""
import numpy as np

from opconform.containers import OptionalValue
from opconform.model import RelationBroken
from opconform.oracle.kernels import graph_body

# the generator's loops end within a few iterations; a body that keeps cond true past this many
# without M is taken as one that never ends (relation terminates: undefined)
ITERATION_LIMIT = 1_000


def run(spec, inputs, attributes, policies, output_count=None):
    trip, cond, carried = inputs[0], inputs[1], list(inputs[2:])
    body = attributes["body"]
    n = len(carried)
    k_scan = len(body.outputs) - 1 - n
    if k_scan < 0:
        raise RelationBroken(spec.id, "body_outputs", "error", f"{len(body.outputs)} body outputs for {n} carried values")
    limit = None if trip is None else int(np.asarray(trip).reshape(-1)[0])
    going = True if cond is None else bool(np.asarray(cond).reshape(-1)[0])
    scans: list[list[np.ndarray]] = [[] for _ in range(k_scan)]
    initial = list(carried)
    i = 0
    while going and (limit is None or i < limit):
        if i >= ITERATION_LIMIT:  # a trip count this large is no case the generator draws (M's values: [0, 4])
            raise RelationBroken(spec.id, "terminates" if limit is None else "iterations_past_limit", "undefined",
                                 f"still running after {i} iterations")
        fed = [_as_kind(c, x0) for c, x0 in zip(carried, initial)]
        outs = graph_body.run(spec, body, [np.array(i, np.int64), np.array(going), *fed])
        if cond is not None:
            going = bool(np.asarray(outs[0]).reshape(-1)[0])
        carried = outs[1:1 + n]
        for s, y in zip(scans, outs[1 + n:]):
            s.append(y)
        i += 1
    probe = None
    if i == 0 and k_scan:
        probe = graph_body.probe(spec, body, [np.array(0, np.int64), np.array(True), *carried])
    return tuple(carried) + tuple(
        graph_body.stacked(body, 1 + n + j, scans[j], None if probe is None else probe[1 + n + j],
                           policies["zero_iteration_scan_shape"])
        for j in range(k_scan))


def _as_kind(value, initial):
    """A carried value reaches the body as its initial value's kind: where the body answered an
    optional's content, the next iteration reads that optional holding it (the official
    test_loop16_seq_none starts from an optional(seq), its body answers the sequence, and the loop's
    output is that sequence)."""
    if isinstance(initial, OptionalValue) and not isinstance(value, OptionalValue):
        return OptionalValue(initial.type, value)
    return value
