"""OpenVINO on CPU with models built from its own opsets (extra: openvino), for `openvino::` specs.

Models come from opconform.generator.openvino_model: parameters for the present, non-constant
inputs in spec order, results for the requested outputs in spec order."""
from __future__ import annotations

import dataclasses
from typing import Any, Hashable, Sequence

import numpy as np

from opconform import dtypes
from opconform.backends import openvino_common, openvino_state
from opconform.backends.base import phase
from opconform.backends.compiled import ModelIO
from opconform.model import Case, Port, SpecVersion


def shape_setting(port: Port) -> bool:
    """An input that sets sizes or axes: integer element types only, at most 1-D (axes, a shape,
    repeats, a permutation, split lengths)."""
    return port.rank_max is not None and port.rank_max <= 1 and all(dtypes.get(t).kind in ("int", "uint") for t in port.types)


def folded(spec: SpecVersion, case: Case) -> Case:
    """The case with every shape-setting input after the first fed as a Constant: the CPU plugin
    refuses an output whose rank depends on a Parameter's values ("doesn't support ReduceMin
    operation with dynamic rank"), which a model converted from ONNX never has either. Their
    values then join the model's signature, as any constant input's do."""
    flags = list(case.constant_inputs) + [False] * (len(case.inputs) - len(case.constant_inputs))
    # an input drawn in another type (a must-refuse case's string repeats) stays a Parameter
    new = [c or (k > 0 and k < len(spec.inputs) and x is not None and x.dtype.kind in "iu" and shape_setting(spec.inputs[k]))
           for k, (x, c) in enumerate(zip(case.inputs, flags))]
    return case if new == flags else dataclasses.replace(case, constant_inputs=tuple(new))


class OpenVinoNativeBackend(openvino_common.FewerCompiles):
    name = "openvino-native"
    dialects = ("openvino",)

    @property
    def backend_errors_in_build(self) -> tuple[type[BaseException], ...]:
        # node constructors run OpenVINO's own checks; its Python factories refuse some input counts
        # before any node exists (i420_to_rgb with a U plane and no V plane: UserInputError)
        from openvino.exceptions import OVError

        return (RuntimeError, OVError)

    def __init__(self) -> None:
        super().__init__()
        self._rt = openvino_common.OpenVinoRuntime()

    def version(self) -> str:
        return self._rt.version()

    def signature(self, spec: SpecVersion, case: Case) -> Hashable:
        return super().signature(spec, folded(spec, case))

    def _signature_of(self, spec: SpecVersion, case: Case, quick: Hashable | None = None) -> Hashable:
        # the remembered key digests constant inputs only: a folded input's values must join it, or a
        # value variant of TopK's k (OneHot's depth) runs the model built for its base's value; so the
        # quick key the parent sends (the unfolded case's) is not this one's, and is computed again
        return super()._signature_of(spec, folded(spec, case))

    def build_model(self, spec: SpecVersion, case: Case) -> Any:
        from opconform.generator import openvino_model

        return openvino_model.build(spec, folded(spec, case))

    def io_of(self, spec: SpecVersion, case: Case, model: Any) -> ModelIO:
        case = folded(spec, case)
        on_variables = openvino_state.state_positions(spec, case)  # set on the variable, not fed
        fed = [i for i in ModelIO.fed_positions(case) if i not in on_variables]
        if len(fed) != len(model.inputs):
            raise ValueError(f"model has {len(model.inputs)} parameters but the case feeds {len(fed)}")
        slots = [j for j in ModelIO.requested_slots(spec, case) if not spec.outputs[ModelIO.slots(spec, case)[j][0]].state]
        slots = slots[: len(model.outputs)]
        return ModelIO([str(i) for i in range(len(fed))], fed, [str(i) for i in range(len(slots))], slots,
                       ModelIO.count_slots(spec, case))

    def run(self, prepared: Any, spec: SpecVersion, case: Case) -> list[np.ndarray | None]:
        if not openvino_state.is_stateful(spec):
            return super().run(prepared, spec, case)
        case = folded(spec, case)
        with phase("harness"):
            feeds = prepared.io.feeds(case)
            variable = str(spec.resolved_attributes(case.attributes)["variable_id"])
            states_in = {variable: case.inputs[i] for i in openvino_state.state_positions(spec, case)}
            state_slots = [j for j in ModelIO.requested_slots(spec, case) if spec.outputs[ModelIO.slots(spec, case)[j][0]].state]
        self.compiled_as = "dynamic" if prepared.handle is not None else "per-shape"
        handle = prepared.handle if prepared.handle is not None else self._static_handle(prepared, feeds)
        got, states = openvino_state.infer(self._rt, handle, list(feeds.values()), states_in, [variable] * len(state_slots))
        with phase("harness"):
            placed = prepared.io.place(spec, got)
            for j, value in zip(state_slots, states):
                placed[j] = value
            return placed

    def load(self, model: Any) -> Any:
        return self._rt.compile(model)

    def infer(self, handle: Any, feeds: dict[str, np.ndarray], output_names: list[str]) -> Sequence[Any]:
        return self._rt.infer(handle, list(feeds.values()), unread=self.leave_outputs_unread)

    def specialize(self, model: Any, shapes: dict[str, tuple[int, ...]]) -> Any:
        static = model.clone()
        static.reshape({int(k): self._rt.ov.PartialShape(list(v)) for k, v in shapes.items()})
        return static

    def classify(self, exc: BaseException, stage: str) -> str:
        return openvino_common.classify(exc, stage)

    def needs_static(self, exc: BaseException) -> bool:
        return openvino_common.needs_static(exc)
