"""OpenVINO SquaredDifference-1: (a - b)^2 with the spec's broadcasting. ONNX has no such operator.
Floats: computed in float64 and rounded once (the difference of two floats of at most 53 bits is
exact in float64 for float32 and narrower). Integers: exact, a result past the type's range
undefined (oracle-side integer_overflow)."""
from opconform.oracle.kernels.elementwise import binary

run = binary(lambda a, b, at, p: (a - b) * (a - b), overflow=lambda a, b: (a - b) * (a - b))
