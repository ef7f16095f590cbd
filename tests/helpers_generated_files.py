"""Reading `opconform generate` output back from its files, and checking it against the oracle.

The check trusts as little of the generator as it can: an ONNX case's inputs come from its .pb
files and the model's initializers, its attributes from the model's node; an OpenVINO case's fed
inputs come from its .npy files (constant inputs and attributes from the manifest, since the IR
holds them in OpenVINO's own form). The oracle then recomputes the expectation from those, and
every expected output file must hold the first alternative bit for bit (strings as text).
"""
from __future__ import annotations

import hashlib
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import onnx
from onnx import helper, numpy_helper

from opconform import containers
from opconform import dtypes, oracle, specs, tensors
from opconform.generator import onnx_model
from opconform.specs import dialects
from opconform.model import Case, SpecVersion


def tree(root: Path) -> dict[str, str]:
    """Relative path -> sha256 of every file under root."""
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file()}


def tree_differences(a: Path, b: Path) -> list[str]:
    """Files only in one tree, or with different bytes (at most 20, for a readable failure)."""
    ta, tb = tree(a), tree(b)
    diff = sorted(set(ta) ^ set(tb)) + sorted(k for k in set(ta) & set(tb) if ta[k] != tb[k])
    return diff[:20]


def _str_array(x: np.ndarray) -> np.ndarray:
    """String tensors read back (bytes from .pb, '<U' from .npy) as object arrays of str."""
    if x.dtype == object or x.dtype.kind in "US":
        return np.array(tensors.string_elements(x), dtype=object).reshape(x.shape)
    return x


def _pb(path: Path) -> tuple[str, np.ndarray]:
    t = onnx.TensorProto()
    t.ParseFromString(path.read_bytes())
    return t.name, _str_array(numpy_helper.to_array(t))


def _graph_attribute(a: onnx.AttributeProto, opset: int) -> Any:
    """A body (If's branches, Loop's and Scan's body) as opconform's graph, as the oracle takes it."""
    from opconform.generator import onnx_body

    return onnx_body.attribute_value(a, opset)


def _enclosing(model: onnx.ModelProto, node: onnx.NodeProto, opset: int) -> dict:
    """Gradient's forward graph: the nodes before the operator's, as its `forward` attribute."""
    from onnx import helper

    from opconform.generator import onnx_body

    if len(model.graph.node) == 1:
        return {}
    g = model.graph
    computed = {o for n in g.node if n is not node for o in n.output}
    names = {x for a in node.attribute for x in ([a.s] if a.s else list(a.strings))}
    outputs = [onnx.helper.make_tensor_value_info(x.decode(), onnx.TensorProto.UNDEFINED, None)
               for x in names if x.decode() in computed]
    forward = helper.make_graph([n for n in g.node if n is not node], "forward", list(g.input), outputs)
    return {"forward": onnx_body.from_proto(forward, opset)}


def _type_attribute(a: onnx.AttributeProto) -> str | None:
    """Optional's `type` as its type string."""
    from opconform.generator import value_protos

    return value_protos.type_string(a.tp)


def _numbered(data: Path, kind: str) -> list[Path]:
    """input_0.pb, input_1.pb, ... in number order (input_10 after input_9)."""
    return sorted(data.glob(f"{kind}_*.pb"), key=lambda p: int(p.stem.split("_")[1]))


def _value(path: Path, vi: onnx.ValueInfoProto) -> Any:
    """A file's value as the graph declares it: a tensor, or a sequence, optional or map."""
    from opconform.generator import value_protos

    type_text = value_protos.type_string(vi.type)
    if type_text is None or not value_protos.is_tensor_type(vi.type):
        return value_protos.read(path, type_text)
    return _pb(path)[1]


def _npy(path: Path, element_type: str) -> np.ndarray:
    data = np.load(path, allow_pickle=False)
    if element_type == "string":
        return _str_array(data)
    want = dtypes.numpy_dtype(element_type)
    return data if data.dtype == want else data.view(want)  # "stored_as": "bits"


def _attribute(a: onnx.AttributeProto) -> Any:
    v = helper.get_attribute_value(a)
    if isinstance(v, onnx.TensorProto):
        return _str_array(numpy_helper.to_array(v))
    if isinstance(v, bytes):
        return v.decode("utf-8")
    if isinstance(v, list):
        return [x.decode("utf-8") if isinstance(x, bytes) else x for x in v]
    return v


def onnx_case_from_files(d: Path) -> tuple[list, dict, dict[str, np.ndarray]]:
    """(inputs in node order with None for absent ones, attributes, expected outputs by name)."""
    model = onnx.load(d / "model.onnx")
    node = model.graph.node[-1]  # the operator's node: after the forward nodes of an enclosing graph (Gradient)
    data = d / "test_data_set_0"
    const = {t.name: _str_array(numpy_helper.to_array(t)) for t in model.graph.initializer}
    graph_inputs = [vi for vi in model.graph.input if vi.name not in const]
    fed = {vi.name: _value(p, vi) for vi, p in zip(graph_inputs, _numbered(data, "input"))}
    if len(model.graph.node) > 1:  # Gradient: its port holds the forward graph's inputs, the node reads xs and zs
        inputs = [fed[vi.name] for vi in graph_inputs]
    else:
        inputs = [None if not n else fed[n] if n in fed else const[n] for n in node.input]
    opset = max((o.version for o in model.opset_import if o.domain in ("", "ai.onnx")), default=0)
    attributes = _enclosing(model, node, opset)
    attributes |= {a.name: _graph_attribute(a, opset) if a.type == onnx.AttributeProto.GRAPH else
                  _type_attribute(a) if a.type == onnx.AttributeProto.TYPE_PROTO else _attribute(a)
                  for a in node.attribute}
    outputs = {vi.name: _value(p, vi) for vi, p in zip(model.graph.output, _numbered(data, "output"))}
    return inputs, attributes, outputs


def openvino_case_from_files(d: Path, entry: dict, spec: SpecVersion, case: Case) -> tuple[list, dict, dict]:
    fed = {f["name"]: _npy(d / f["file"], f["element_type"]) for f in entry["files"]["inputs"]}
    names = onnx_model.input_names(spec, case)
    inputs = [None if x is None else fed.get(n, x) for n, x in zip(names, case.inputs)]
    outputs = {f["name"]: _npy(d / f["file"], f["element_type"]) for f in entry["files"]["outputs"]}
    return inputs, dict(case.attributes), outputs


def same_bits(got: np.ndarray, want: np.ndarray) -> bool:
    """Same element type, shape and every bit (strings: the same text)."""
    return tensors.digest(got) == tensors.digest(np.asarray(want))


def check_case(out: Path, entry: dict, seen: Counter | None = None) -> list[str]:
    """What is wrong with one written case against the oracle, one line each ([] when right).
    seen: counts the element types of the output files compared, and "0-d" for scalars."""
    spec, case = specs.load(entry["spec_id"]), Case.from_json(entry["case"])
    d = out / entry["dir"]
    if dialects.get(spec.dialect).format == "onnx":  # ai.onnx.ml cases are ONNX test directories too
        inputs, attributes, outputs = onnx_case_from_files(d)
    else:
        inputs, attributes, outputs = openvino_case_from_files(d, entry, spec, case)
    where = f"{entry['spec_id']} {entry['dir']}"
    if case.id != entry["id"]:  # the manifest's case must replay as itself (tensor attributes included)
        return [f"{where}: the manifest's case replays with id {case.id}, not {entry['id']}"]
    missing = len(case.inputs) - len(inputs)  # the node drops trailing absent inputs
    inputs += [None] * missing
    with np.errstate(all="ignore"):
        exp = oracle.expectation(spec, inputs, attributes)
    if exp.kind != entry["expected"]["kind"]:
        return [f"{where}: the oracle says {exp.kind} from the files, the manifest {entry['expected']['kind']}"]
    if exp.kind != "outputs":
        return [f"{where}: output files for a case that must fail"] if outputs else []
    produced = exp.alternatives[0].outputs
    want = {name: produced[j] for j, (_, name) in enumerate(onnx_model.output_slots(spec, case)) if name}
    problems = []
    if set(outputs) != set(want):
        problems.append(f"{where}: output files {sorted(outputs)}, expected {sorted(want)}")
    for name in sorted(set(outputs) & set(want)):
        if containers.is_container(outputs[name]) or containers.is_container(want[name]):
            same = containers.is_container(outputs[name]) and containers.is_container(want[name]) and \
                containers.digest(outputs[name]) == containers.digest(want[name])
            if not same:
                problems.append(f"{where}: output {name!r} is {containers.describe(outputs[name])}, "
                                f"the oracle says {containers.describe(want[name])}")
            continue
        if seen is not None:
            seen.update([dtypes.name_of(outputs[name].dtype)] + (["0-d"] if outputs[name].ndim == 0 else []))
        if not same_bits(outputs[name], want[name]):
            problems.append(f"{where}: output {name!r} is {_show(outputs[name])}, the oracle says {_show(want[name])}")
    return problems


def _show(x: np.ndarray) -> str:
    return f"{dtypes.name_of(x.dtype)}{list(x.shape)} {np.array2string(x.reshape(-1)[:6], threshold=6)}"


def check_against_oracle(out: Path, doc: dict, seen: Counter | None = None) -> list[str]:
    """Every problem of every written case (see check_case)."""
    return [p for e in doc["cases"] for p in check_case(out, e, seen)]
