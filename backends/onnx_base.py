"""What every backend that loads ONNX models shares: the model of a case's signature comes from
opconform.generator.onnx_model (dynamic dimensions), at the lowest opset >= the spec version's
`since` that the backend loads and at which that version is still in force."""
from __future__ import annotations

from typing import Any

import onnx

from opconform.backends import opsets
from opconform.backends.compiled import CompiledModelBackend, ModelIO
from opconform.model import Case, SpecVersion
from opconform.specs import dialects as spec_dialects


def onnx_io(spec: SpecVersion, case: Case, model: onnx.ModelProto) -> ModelIO:
    inits = {i.name for i in model.graph.initializer}
    names = [i.name for i in model.graph.input if i.name not in inits]
    fed = ModelIO.fed_positions(case)
    if len(fed) != len(names):
        raise ValueError(f"model has {len(names)} graph inputs but the case feeds {len(fed)}")
    outs = [o.name for o in model.graph.output]
    slot_of = {name: j for j, (_, name) in enumerate(ModelIO.slots(spec, case)) if name}
    if all(n in slot_of for n in outs):
        slots = [slot_of[n] for n in outs]
    else:  # the builder named outputs its own way: they come in slot order of the requested ones
        slots = ModelIO.requested_slots(spec, case)[: len(outs)]
    from opconform.generator import value_protos

    types = [value_protos.type_string(o.type) for o in model.graph.output]
    return ModelIO(names, fed, outs, slots, ModelIO.count_slots(spec, case), types)


def with_static_shapes(model: onnx.ModelProto, shapes: dict[str, tuple[int, ...]]) -> onnx.ModelProto:
    m = onnx.ModelProto()
    m.CopyFrom(model)
    for vi in m.graph.input:
        if vi.name in shapes:
            dims = vi.type.tensor_type.shape.dim
            del dims[:]
            for d in shapes[vi.name]:
                dims.add().dim_value = int(d)
    return m


class OnnxBackend(CompiledModelBackend):
    """A backend that loads ONNX models. Subclasses implement load() and infer()."""

    dialects = spec_dialects.of_format("onnx")  # every ONNX operator-set domain of the library

    def opset_range(self) -> tuple[int, int]:
        return 1, opsets.LATEST

    def opset_for(self, spec: SpecVersion) -> int | None:
        lo, hi = self.opset_range()
        return opsets.pick(spec, lo, hi)

    def accepts(self, spec: SpecVersion) -> str | None:
        reason = super().accepts(spec)
        if reason:
            return reason
        if self.opset_for(spec) is None:
            lo, hi = self.opset_range()
            first, last = opsets.in_force(spec.dialect, spec.operator, spec.domain, spec.since)
            return f"{self.name} loads opsets {lo}..{hi}; {spec.id} is in force only at opsets {first}..{last}"
        return None

    def warm_up(self) -> None:
        from opconform.generator import onnx_model  # noqa: F401 - import cost belongs to startup

        self.opset_range()

    def build_model(self, spec: SpecVersion, case: Case) -> onnx.ModelProto:
        from opconform.generator import onnx_model

        return onnx_model.build(spec, case, opset=self.opset_for(spec))

    def io_of(self, spec: SpecVersion, case: Case, model: Any) -> ModelIO:
        return onnx_io(spec, case, model)

    def specialize(self, model: Any, shapes: dict[str, tuple[int, ...]]) -> Any:
        return with_static_shapes(model, shapes)
