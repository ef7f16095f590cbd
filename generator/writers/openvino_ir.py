"""One case as OpenVINO IR, built with the native opset of the spec version:

    <case>/model.xml, <case>/model.bin          ov.save_model, weights not compressed
    <case>/input_<i>.npy                         one per model Parameter, in order
    <case>/output_<j>.npy                        one per model result (valid cases only)
    <case>/state_<i>.npy                         a variable's value when the inference starts, to set
                                                 through query_state() (ReadValue; docs/spec-format.md)

A variable's value when the inference ends (Assign's state output) is an output file with no model
result: read it through query_state(). An Assign's model also reads the value it writes and the
ReadValue declaring its variable, as results after the case's (generator/openvino_state_adapters.py).

NumPy lacks bfloat16 and the float8/4-bit types: those files hold the raw bits (see
tensorfiles.py). When OpenVINO refuses to build the node (an invalid case caught at graph
construction), no model is written and the manifest records OpenVINO's message.
"""
from __future__ import annotations

from pathlib import Path

from opconform.generator import onnx_model, openvino_model
from opconform.generator.writers.tensorfiles import write_npy
from opconform.model import Case, SpecVersion

FORMAT = "openvino-ir"


def write(spec: SpecVersion, case: Case, directory: Path) -> dict:
    import openvino as ov
    from openvino.exceptions import OVError

    directory.mkdir(parents=True, exist_ok=True)
    entry: dict = {"format": FORMAT, "model": None, "model_error": None, "inputs": [], "outputs": []}
    try:
        model = openvino_model.build(spec, case)
    # OpenVINO validates nodes as it builds them; its Python factories refuse some input counts
    # before any node exists (I420toBGR given a U plane without a V plane: UserInputError, an OVError)
    except (RuntimeError, ValueError, TypeError, OVError) as e:
        entry["model_error"] = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        model = None
    if model is not None:
        ov.save_model(model, str(directory / "model.xml"), compress_to_fp16=False)
        entry["model"] = "model.xml"
        entry["weights"] = "model.bin"
    constant = list(case.constant_inputs) + [False] * (len(case.inputs) - len(case.constant_inputs))
    names = onnx_model.input_names(spec, case)  # the Parameters carry the same names
    state = [i < len(spec.inputs) and spec.inputs[i].state for i in range(len(case.inputs))]
    fed = [(name, x) for name, x, c, s in zip(names, case.inputs, constant, state) if x is not None and not c and not s]
    entry["inputs"] = [write_npy(directory / f"input_{i}.npy", x, name) for i, (name, x) in enumerate(fed)]
    held = [(name, x) for name, x, c, s in zip(names, case.inputs, constant, state) if x is not None and not c and s]
    if held:  # a variable's value before the inference (ReadValue's), set through the state API
        entry["states"] = [write_npy(directory / f"state_{i}.npy", x, name) for i, (name, x) in enumerate(held)]
    if case.expected.kind == "outputs" and case.expected.alternatives:
        produced = case.expected.alternatives[0].outputs
        asked = [(name, produced[j]) for j, (_, name) in enumerate(onnx_model.output_slots(spec, case)) if name]
        entry["outputs"] = [write_npy(directory / f"output_{j}.npy", x, name) for j, (name, x) in enumerate(asked)]
    return entry
