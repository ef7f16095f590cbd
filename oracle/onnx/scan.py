"""Scan: the body runs once per element of the scan inputs (zip-like, each along its own axis and
direction), carrying the state variables; each scan output stacks the body's values along its axis,
appended or prepended. Scan-8 batches: axis 0 is the batch, axis 1 the sequence, each batch row
scanned on its own up to its sequence_lens entry. After zero iterations a scan output's shape is
policy zero_iteration_scan_shape."""
import numpy as np

from opconform.model import RelationBroken
from opconform.oracle.kernels import graph_body


def run(spec, inputs, attributes, policies, output_count=None):
    if spec.since == 8:
        return _batched(spec, inputs[0], list(inputs[1:]), attributes, policies)
    m = attributes["num_scan_inputs"]
    n = len(inputs) - m
    xs = list(inputs[n:])
    in_axes = [_axis(spec, "scan_input_axes_below_rank", a, x.ndim) for a, x in
               zip(attributes.get("scan_input_axes") or [0] * m, xs)]
    return _scan(spec, list(inputs[:n]), xs, in_axes, list(attributes.get("scan_input_directions") or [0] * m),
                 attributes, policies, None)


def _axis(spec, relation, a, r):
    if not -r <= a < r:
        raise RelationBroken(spec.id, relation, "error", f"axis {a} outside [-{r}, {r - 1}]")
    return a % r


def _scan(spec, states, xs, in_axes, in_dirs, attributes, policies, length):
    """One unbatched scan; `length`: iterations to run (None: the scan inputs' common length)."""
    body = attributes["body"]
    n = len(states)
    lengths = {x.shape[a] for x, a in zip(xs, in_axes)}
    if len(lengths) > 1:
        raise RelationBroken(spec.id, "scan_lengths_equal", "error", f"scan lengths {sorted(lengths)}")
    full = lengths.pop()
    steps = full if length is None else length
    k = len(body.outputs) - n
    out_axes = list(attributes.get("scan_output_axes") or [0] * k)
    out_dirs = list(attributes.get("scan_output_directions") or [0] * k)
    scans = [[] for _ in range(k)]
    for t in range(steps):
        elems = [np.take(x, t if d == 0 else steps - 1 - t, axis=a) for x, a, d in zip(xs, in_axes, in_dirs)]
        outs = graph_body.run(spec, body, [*states, *elems])
        states = outs[:n]
        for s, y in zip(scans, outs[n:]):
            s.append(y)
    if steps:
        probe = [*states, *(s[0] for s in scans)]
    elif k:  # zero iterations: the element shapes from one run on zeros shaped like the elements
        probe = graph_body.probe(spec, body, [*states, *(_blank(np.delete(x.shape, a), x.dtype) for x, a in zip(xs, in_axes))])
    else:
        probe = None
    outputs = []
    for j in range(k):
        values = scans[j][::-1] if out_dirs[j] == 1 else scans[j]
        element = None if probe is None else probe[n + j]
        r = (element.ndim if element is not None else body.outputs[n + j].rank or 0) + 1
        a = out_axes[j]
        if a < 0 and spec.since < 11:
            raise RelationBroken(spec.id, "scan_output_axes_in_range", "undefined", "Scan-9 names no negative axis")
        axis = _axis(spec, "scan_output_axes_in_range", a, r)
        outputs.append(graph_body.stacked(body, n + j, values, element, policies["zero_iteration_scan_shape"], axis))
    return tuple(states) + tuple(outputs)


def _batched(spec, lens, inputs, attributes, policies):
    """Scan-8: each batch row (axis 0) scanned on its own along axis 1, for sequence_lens[b] steps."""
    m = attributes["num_scan_inputs"]
    n = len(inputs) - m
    batches = {x.shape[0] for x in inputs}
    if len(batches) > 1:
        raise RelationBroken(spec.id, "batch_sizes_equal", "error", f"batch sizes {sorted(batches)}")
    b = batches.pop()
    seq = {x.shape[1] for x in inputs[n:]}
    if len(seq) > 1:
        raise RelationBroken(spec.id, "scan_lengths_equal", "error", f"sequence lengths {sorted(seq)}")
    full = seq.pop()
    if lens is not None and lens.shape != (b,):
        raise RelationBroken(spec.id, "sequence_lens_shape", "error", f"sequence_lens of shape {lens.shape}, batch {b}")
    steps = [full] * b if lens is None else [int(v) for v in lens]
    if any(s < 0 or s > full for s in steps):
        raise RelationBroken(spec.id, "sequence_lens_in_range", "undefined", f"lengths {steps}, at most {full}")
    k = len(attributes["body"].outputs) - n
    if k and any(s < full for s in steps):
        raise RelationBroken(spec.id, "padded_scan_outputs", "undefined", "a scan output past a shorter sequence")
    dirs = list(attributes.get("directions") or [0] * m)
    rows = [_scan(spec, [x[i] for x in inputs[:n]], [x[i] for x in inputs[n:]], [0] * m, dirs,
                  {**attributes, "scan_output_axes": None, "scan_output_directions": None}, policies, steps[i])
            for i in range(b)]
    return tuple(np.stack([r[j] for r in rows]) for j in range(n + k))


def _blank(shape, dtype) -> np.ndarray:
    """Zeros of the element type (a string tensor: empty strings, not the integer 0 NumPy puts in an object array)."""
    return np.full(shape, "", dtype=object) if np.dtype(dtype).kind == "O" else np.zeros(shape, dtype)
