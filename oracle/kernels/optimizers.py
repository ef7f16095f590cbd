"""What the ai.onnx.preview.training optimizers (Adagrad, Adam, Momentum) share: their variadic
input split into per-tensor groups, scalars and float32 attributes read as float64, and the
outputs rounded once to the tensors' type. The text's arithmetic is element-wise with NumPy
broadcasting; it names no arithmetic type, so it is computed in float64. The oracles run under
ml.quiet: a negative accumulated square's Sqrt is NaN and an overflow +-inf, as IEEE gives."""
from __future__ import annotations

from typing import Sequence

import numpy as np

from opconform.oracle.kernels.elementwise import wide


def groups(tensors: Sequence[np.ndarray], per_tensor: int) -> list[tuple[np.ndarray, ...]]:
    """[(X_1, G_1, ...), (X_2, G_2, ...)] of the variadic list X_1..X_n, G_1..G_n, ... as float64."""
    n = len(tensors) // per_tensor
    wides = [wide(t) for t in tensors]  # a signaling NaN quiets silently
    return [tuple(wides[i + k * n] for k in range(per_tensor)) for i in range(n)]


def scalar(x: np.ndarray) -> float:
    """A one-element input (R, T) as a float64 number."""
    return float(np.asarray(x, dtype=np.float64).reshape(-1)[0])


def attr(attributes: dict, name: str) -> float:
    """A float attribute as the model stores it: float32, then widened."""
    return float(np.float32(attributes[name]))


def rounded(outputs: list[np.ndarray], like: Sequence[np.ndarray]) -> tuple[np.ndarray, ...]:
    """Each output rounded once to the optimized tensors' element type (T3)."""
    dtype = np.asarray(like[0]).dtype
    return tuple(np.asarray(o).astype(dtype) for o in outputs)  # past float32's range: +-inf

