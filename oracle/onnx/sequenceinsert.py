"""ONNX SequenceInsert: the tensor inserted before `position` (at the back without one)."""
from opconform.oracle.kernels import sequences


def run(spec, inputs, attributes, policies):
    seq, tensor = inputs[0], inputs[1]
    pos = inputs[2] if len(inputs) > 2 else None
    items = list(seq.items)
    k = len(items) if pos is None else sequences.position(pos, len(items))
    return (sequences.replaced(seq, items[:k] + [tensor] + items[k:]),)
