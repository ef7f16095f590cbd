"""One case in the ONNX backend-test layout:

    <case>/model.onnx
    <case>/test_data_set_0/input_<i>.pb    one per graph input, in graph order, TensorProto named as it
                                           (SequenceProto, OptionalProto or MapProto for such an input)
    <case>/test_data_set_0/output_<j>.pb   one per graph output (valid cases only)

An invalid case has a model and inputs but no outputs (the layout cannot say "must refuse"; the
manifest does). Of several allowed alternatives, the first is written; the manifest holds all.
"""
from __future__ import annotations

from pathlib import Path

from opconform.generator import onnx_model
from opconform.generator.writers.tensorfiles import write_pb
from opconform.model import Case, SpecVersion

FORMAT = "onnx-backend-test"


def write(spec: SpecVersion, case: Case, directory: Path, opset: int | None = None) -> dict:
    """Write the case into `directory` (created); returns the manifest's file entries."""
    directory.mkdir(parents=True, exist_ok=True)
    model = onnx_model.build(spec, case, opset)
    (directory / "model.onnx").write_bytes(model.SerializeToString())
    data = directory / "test_data_set_0"
    data.mkdir(exist_ok=True)
    by_name = dict(zip(onnx_model.input_names(spec, case), case.inputs))
    inputs = [write_pb(data / f"input_{i}.pb", by_name[vi.name], vi.name) for i, vi in enumerate(model.graph.input)]
    outputs = []
    if case.expected.kind == "outputs" and case.expected.alternatives:
        produced = case.expected.alternatives[0].outputs
        values = {name: produced[j] for j, (_, name) in enumerate(onnx_model.output_slots(spec, case)) if name}
        graph_outputs = [o.name for o in model.graph.output]
        outputs = [write_pb(data / f"output_{j}.pb", values[name], name) for j, name in enumerate(graph_outputs)]
    return {
        "format": FORMAT,
        "model": "model.onnx",
        "opset": model.opset_import[0].version,
        "ir_version": model.ir_version,
        "inputs": inputs,
        "outputs": outputs,
        "initializers": [t.name for t in model.graph.initializer],
    }
