"""ONNX SequenceErase: the sequence without the tensor at `position` (the last without one)."""
from opconform.oracle.kernels import sequences


def run(spec, inputs, attributes, policies):
    seq = inputs[0]
    pos = inputs[1] if len(inputs) > 1 else None
    items = list(seq.items)
    k = len(items) - 1 if pos is None else sequences.position(pos, len(items))
    return (sequences.replaced(seq, items[:k] + items[k + 1:]),)
