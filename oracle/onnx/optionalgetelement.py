"""ONNX OptionalGetElement: the value an optional holds; (version 18 on) a tensor or sequence
input itself. An empty optional is undefined (relation has_element)."""
from opconform import containers
from opconform.oracle.kernels import sequences


def run(spec, inputs, attributes, policies):
    x = inputs[0]
    value = x.value if isinstance(x, containers.OptionalValue) else x
    if isinstance(value, containers.SequenceValue):
        return (sequences.replaced(value, list(value.items)),)
    return (value.copy(),)
