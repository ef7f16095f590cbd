"""Checks the oracle against the IR <layer> examples of OpenVINO documents (a version's `layers`).

A layer gives element types and shapes (values only where the document gives them): its inputs
are filled with `fill` where no values are given, the oracle runs, and the outputs' element types
and shapes must be the layer's; a layer with `expect_error` must be refused naming that relation.
"""
from __future__ import annotations

import numpy as np

from opconform import dtypes
from opconform.model import Layer, RelationBroken, SpecVersion
from opconform.oracle.examples import ExampleResult

__all__ = ["check_layer", "layer_inputs"]


def layer_inputs(layer: Layer) -> list:
    """The layer's input tensors: the document's values, or `fill` in the stated type and shape."""
    out = []
    for t in layer.inputs:
        if t is None:
            out.append(None)
            continue
        dtype, shape, data = t
        out.append(data if data is not None else np.full(shape, layer.fill, dtype=dtypes.numpy_dtype(dtype)))
    return out


def check_layer(spec: SpecVersion, layer: Layer) -> ExampleResult:
    from opconform import oracle

    def result(passed: bool, message: str = "") -> ExampleResult:
        return ExampleResult(spec.id, layer.name, passed, message)

    try:
        with np.errstate(all="ignore"):
            # a variadic output (Split's) stands for as many outputs as the layer has
            count = len(layer.outputs) if spec.outputs and spec.outputs[-1].variadic and layer.outputs else None
            got = oracle.evaluate(spec, layer_inputs(layer), dict(layer.attributes), output_count=count)
    except RelationBroken as e:
        if layer.expect_error == e.relation:
            return result(True)
        return result(False, f"refused by relation {e.relation!r}" + (f", expected {layer.expect_error!r}" if layer.expect_error else ""))
    except Exception as e:  # a crashing oracle is a failed example to report, whatever it raised
        return result(False, f"oracle raised {type(e).__name__}: {e}")
    if layer.expect_error:
        return result(False, f"returned outputs, expected relation {layer.expect_error!r} to be broken")
    for k, (dtype, shape) in enumerate(layer.outputs):
        if k >= len(got):
            return result(False, f"the layer has output {k}, the oracle returned {len(got)}")
        g = np.asarray(got[k])
        if dtypes.name_of(g.dtype) != dtype or tuple(g.shape) != tuple(shape):
            return result(False, f"output {k}: got {dtypes.name_of(g.dtype)}{list(g.shape)}, the layer says {dtype}{list(shape)}")
    return result(True)
