"""openvino-native adapter for OpenVINO Constant-1, built as its document defines it: an IR layer
whose content OpenVINO's IR reader takes from the binary file at `offset`, `size` bytes long, as
`element_type` in `shape`. The Python factories (ov.op.Constant, opset1.constant) take values
rather than a file, so offset and size would go unread: the layer is read from IR text instead,
its weights `offset` bytes of zeros, then the content (`value`'s bytes, zero-padded to `size`)."""
from __future__ import annotations

from typing import Any

import numpy as np

from opconform.generator.openvino_factories import ADAPTERS

_IR = """<?xml version="1.0"?>
<net name="Constant_1" version="11">
<layers>
<layer id="0" name="Constant_0" type="Const" version="opset1">
<data element_type="{element_type}" shape="{shape}" offset="{offset}" size="{size}"/>
<output><port id="0" precision="{element_type}">{dims}</port></output>
</layer>
<layer id="1" name="Result_1" type="Result" version="opset1">
<input><port id="0" precision="{element_type}">{dims}</port></input>
</layer>
</layers>
<edges><edge from-layer="0" from-port="0" to-layer="1" to-port="0"/></edges>
</net>"""


def _constant(opset: Any, args: list, attributes: dict) -> Any:
    import openvino as ov

    shape = [int(s) for s in attributes["shape"]]
    offset, size = int(attributes["offset"]), int(attributes["size"])
    content = np.ascontiguousarray(attributes["value"]).reshape(-1).view(np.uint8)[:max(size, 0)]
    weights = np.zeros(max(offset, 0) + max(size, 0), dtype=np.uint8)
    weights[max(offset, 0):max(offset, 0) + content.size] = content
    ir = _IR.format(element_type=attributes["element_type"], shape=",".join(map(str, shape)), offset=offset,
                    size=size, dims="".join(f"<dim>{d}</dim>" for d in shape))
    model = ov.Core().read_model(ir, ov.Tensor(weights) if weights.size else ov.Tensor(ov.Type.u8, ov.Shape([0])))
    return next(op for op in model.get_ordered_ops() if op.get_type_name() == "Constant")


ADAPTERS["Constant"] = _constant
