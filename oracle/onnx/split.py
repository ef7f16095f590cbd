"""ONNX Split: parts of the sizes in `split`, or num_outputs chunks (the last one smaller),
or (version 13 without `split`) as many equal parts as the node has outputs."""
from opconform.model import RelationBroken
from opconform.oracle.kernels import layout


def run(spec, inputs, attributes, policies, output_count=None):
    data = inputs[0]
    split = inputs[1] if len(inputs) > 1 else None
    axis = int(attributes.get("axis", 0))
    dim = data.shape[axis]
    # Split-13 without `split`: as many parts as the node has outputs; a case states no count and
    # its model has one output then (generator/onnx_model.py), so one part unless told otherwise
    parts = attributes.get("num_outputs", 1 if output_count is None else output_count)
    if split is None and "num_outputs" not in attributes and dim % parts:
        # Split-13: "the tensor is split to equal sized parts"; the count is the node's, so no
        # relation of the spec can see it
        raise RelationBroken(spec.id, "equal_parts_divide", "error", f"{dim} elements do not split into {parts} equal parts")
    return layout.split(data, axis, layout.split_sizes(dim, split, parts))
