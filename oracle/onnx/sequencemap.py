"""SequenceMap: the body runs once per item of the input sequence, given that item, the same item of
every other sequence input and every tensor input whole; output sequence j holds the body's output j
of each run, in order (its element type the body's output type, also after zero runs)."""
from opconform import containers
from opconform.model import RelationBroken
from opconform.oracle.kernels import graph_body


def run(spec, inputs, attributes, policies, output_count=None):
    body = attributes["body"]
    first = inputs[0]
    count = len(first.items)
    for k, x in enumerate(inputs[1:]):
        if isinstance(x, containers.SequenceValue) and len(x.items) != count:
            raise RelationBroken(spec.id, "sequence_lengths_equal", "error",
                                 f"additional input {k} holds {len(x.items)} items, input_sequence {count}")
    runs = [graph_body.run(spec, body, [x.items[i] if isinstance(x, containers.SequenceValue) else x for x in inputs])
            for i in range(count)]
    return tuple(containers.sequence(v.type, [r[j] for r in runs]) for j, v in enumerate(body.outputs))
