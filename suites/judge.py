"""Judging a backend from files: `opconform judge --cases DIR --outputs DIR --out RESULTS`.

A backend that cannot be driven from Python (a C++ runtime, an accelerator's SDK, a phone) runs the
cases `opconform generate` wrote and writes its answers into a directory laid out the same way:

    <outputs>/<case dir>/test_data_set_0/output_<K>.pb   graph output K, a TensorProto (a SequenceProto,
                                                         OptionalProto or MapProto for such an output)
    <outputs>/<case dir>/test_data_set_0/error.txt       it refused the case: its message
    <outputs>/<case dir>/test_data_set_0/unsupported.txt it does not implement it: its message
    <outputs>/<case dir>/test_data_set_0/crash.txt       it died on the case (timeout.txt: it hung)

(the .txt answers may also sit in <case dir> itself: a refusal is usually the model's, not one data
set's). Each case then gets the verdict `opconform run` gives the same answer: its Outcome goes
through suites/record.make (suites/verdicts.judge: open choices, tolerances, must-refuse cases),
and the results directory is the runner's, so report, gate, baseline and merge read it unchanged.
A case with no answer at all is missing-output; an answer file that cannot be read is named in the
case's detail and judged as absent, never a traceback that loses the cases judged before it.
"""
from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import numpy as np
import onnx
from google.protobuf.message import DecodeError
from onnx import numpy_helper

from opconform import __version__, containers, dtypes, specs, tensors
from opconform.backends.onnx_base import onnx_io
from opconform.generator import MANIFEST, ONNX_TESTDIR_FORMAT, read_manifest, read_value_file
from opconform.model import Case, Outcome, SpecError, SpecVersion
from opconform.suites import record, results, verdicts

DATA_SET = "test_data_set_0"  # the one data set of a case (generator/writers/onnx_testdir.py)
# answer file -> Outcome.status, in the order read when a backend wrote more than one
STATUS_FILES = {"crash.txt": "crash", "timeout.txt": "timeout", "error.txt": "error", "unsupported.txt": "unsupported"}
MESSAGE_LIMIT = 400  # characters of a backend's message kept, as backends/base.short_message keeps


class UnreadableAnswer(ValueError):
    """An answer file that is not what its name says; the message names the file."""


@dataclass
class Answer:
    """What a backend wrote for one case, as the Outcome `opconform run` would have had."""

    outcome: Outcome
    problems: list[str] = field(default_factory=list)  # one line per file that could not be read or was ignored


@dataclass
class JudgeSummary:
    counts: Counter = field(default_factory=Counter)  # verdict -> cases
    problems: list[str] = field(default_factory=list)  # "<case dir>: <what>", one per unreadable answer file
    not_judged: dict[str, str] = field(default_factory=dict)  # case dir -> why (not in the ONNX layout)
    stray: list[str] = field(default_factory=list)  # directories in --outputs that name no case


def read_tensor(path: Path) -> np.ndarray:
    """An output_K.pb as the array a Python backend would have returned (strings as str, bfloat16
    and float8 as their ml_dtypes types, whichever onnx version reads them); UnreadableAnswer otherwise."""
    t = onnx.TensorProto()
    try:
        t.ParseFromString(path.read_bytes())
    except (DecodeError, OSError) as e:
        raise UnreadableAnswer(f"{path.name}: not a TensorProto ({type(e).__name__}: {e})") from None
    etype = dtypes.BY_ONNX.get(t.data_type)
    if etype is None:
        raise UnreadableAnswer(f"{path.name}: not a TensorProto of a known element type (data_type {t.data_type})")
    try:
        x = numpy_helper.to_array(t)
    except Exception as e:  # noqa: BLE001 - whatever onnx's reader says of the bytes: the file's fault
        raise UnreadableAnswer(f"{path.name}: a {etype.name} TensorProto onnx cannot read "
                               f"({type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''})") from None
    if etype.name == "string":
        return np.array(tensors.string_elements(x, path.name), dtype=object).reshape(x.shape)
    if etype.numpy is not None and x.dtype != etype.numpy and x.dtype.itemsize == etype.numpy.itemsize:
        return x.view(etype.numpy)  # an onnx that reads float8 as its bits: the declared type's
    return x


def read_value(path: Path, type_text: str) -> Any:
    """An output_K.pb of a sequence, optional or map output (a SequenceProto, OptionalProto or
    MapProto) as opconform holds it; UnreadableAnswer otherwise."""
    try:
        return read_value_file(path, type_text)
    except (DecodeError, OSError, ValueError, TypeError, KeyError) as e:
        raise UnreadableAnswer(f"{path.name}: not a {type_text} proto ({type(e).__name__}: {e})") from None


def _message(path: Path) -> str:
    text = path.read_text(encoding="utf-8", errors="replace").strip()
    return text[:MESSAGE_LIMIT] or f"(empty {path.name})"


def read_answer(spec: SpecVersion, case: Case, model: onnx.ModelProto, answer_dir: Path) -> Answer:
    """The Outcome of the answer in `answer_dir` (<outputs>/<case dir>) for a case whose model is
    `model`: a refusal file, else the output files placed in the case's output slots as the runner
    places a backend's (backends/compiled.ModelIO), else no answer."""
    data = answer_dir / DATA_SET
    written = [p for name in STATUS_FILES for p in (data / name, answer_dir / name) if p.is_file()]
    outputs = sorted(data.glob("output_*.pb")) if data.is_dir() else []
    if written:
        ignored = [p.name for p in written[1:] + outputs]
        problems = [f"{written[0].name} read; also written and ignored: {', '.join(ignored)}"] if ignored else []
        return Answer(Outcome(STATUS_FILES[written[0].name], message=_message(written[0])), problems)
    if not outputs:
        where = data if data.is_dir() else answer_dir
        return Answer(Outcome(verdicts.NO_ANSWER, message=f"no answer in {where} (none of output_K.pb, "
                                                          f"{', '.join(sorted(STATUS_FILES))})"))
    io = onnx_io(spec, case, model)
    got: list[np.ndarray | None] = [None] * len(io.output_names)
    problems = []
    for k in range(len(io.output_names)):
        path = data / f"output_{k}.pb"
        if path.is_file():
            try:
                declared = io.output_types[k] if k < len(io.output_types) else None
                got[k] = read_value(path, declared) if declared and containers.is_container_type(declared) else read_tensor(path)
            except UnreadableAnswer as e:
                problems.append(str(e))
    extra = [p.name for p in outputs if p.stem.removeprefix("output_") not in {str(k) for k in range(len(got))}]
    if extra:
        problems.append(f"{', '.join(extra)} ignored: the model has {len(got)} output(s)")
    return Answer(Outcome("ok", io.place(spec, got)), problems)


def judge_dir(cases: Path, outputs: Path, out: Path, *, backend: str = "files", backend_version: str = "",
              command: str = "", on_result: Callable[[str, str, list[str]], None] | None = None) -> JudgeSummary:
    """Judge every ONNX case of `cases` (a directory `opconform generate` wrote) by the answers in
    `outputs`, writing the results directory `out` (results.jsonl, run.json) as `opconform run`
    does. on_result(case dir, verdict, problems) after each case. ValueError for a directory that
    is not what it should be, FileExistsError for an `out` holding results already."""
    cases, outputs, out = Path(cases), Path(outputs), Path(out)
    doc = _manifest(cases)
    if not outputs.is_dir():
        raise ValueError(f"--outputs {outputs}: no such directory; expected the directory a backend wrote its answers "
                         f"into, one folder per case directory of {cases}")
    if (out / results.RESULTS).is_file() and (out / results.RESULTS).stat().st_size:
        raise FileExistsError(f"--out {out}: already holds results; choose another --out (or remove it to judge again)")
    summary = JudgeSummary()
    out.mkdir(parents=True, exist_ok=True)
    with results.ResultsWriter(out, resume=False) as writer:
        meta = _meta(doc, cases, outputs, backend, backend_version, command)
        results.write_run(out, meta)
        loaded: dict[str, SpecVersion] = {}
        for entry in doc["cases"]:
            name = entry["dir"]
            if entry.get("files", {}).get("format") != ONNX_TESTDIR_FORMAT:
                summary.not_judged[name] = f"{entry.get('files', {}).get('format')} files, not the ONNX backend-test layout"
                continue
            try:
                spec = loaded.get(entry["spec_id"]) or loaded.setdefault(entry["spec_id"], specs.load(entry["spec_id"]))
            except (KeyError, SpecError) as e:  # cases of a spec this opconform does not have: no verdict to give
                summary.not_judged[name] = str(e.args[0]) if isinstance(e, KeyError) and e.args else str(e)
                continue
            case = Case.from_json(entry["case"])
            encoded = (entry["id"], json.dumps(entry["case"], separators=(",", ":")).encode())
            model = cases / name / entry["files"].get("model", "model.onnx")
            result, problems = _judged(spec, case, model, outputs / name, backend, encoded)
            writer.write(entry["id"], record.Judged.of(result).line)
            summary.counts[result["verdict"]] += 1
            summary.problems += [f"{name}: {p}" for p in problems]
            on_result and on_result(name, result["verdict"], problems)
        known = {e["dir"] for e in doc["cases"]}
        summary.stray = sorted(p.name for p in outputs.iterdir() if p.is_dir() and p.name not in known)
        meta.update(finished=results.now(), cases=sum(summary.counts.values()), verdicts=dict(summary.counts),
                    answer_problems=summary.problems[:100], not_judged=summary.not_judged, stray_outputs=summary.stray[:100])
        results.write_run(out, meta)
    return summary


def _judged(spec: SpecVersion, case: Case, model_file: Path, answer_dir: Path, backend: str,
            encoded: tuple[str, bytes]) -> tuple[dict, list[str]]:
    """The result line of one case and the problems with its answer files; a case opconform fails
    on (its model file unreadable, a defect in judging) is a harness-error line, as in a run."""
    try:
        model = onnx.load(model_file, load_external_data=False)
        answer = read_answer(spec, case, model, answer_dir)
        result = record.make(spec, case, answer.outcome, backend, encoded=encoded)
    except Exception as e:  # noqa: BLE001 - one case opconform cannot judge must not lose the others
        from opconform.backends.base import harness_message

        return record.harness_error(spec, case, backend, harness_message(e), encoded=encoded), []
    if answer.problems:  # the file the verdict comes from, named where the report shows it
        result["detail"] = f"{'; '.join(answer.problems)}: {result['detail']}"
    return result, answer.problems


def _manifest(cases: Path) -> dict:
    if not cases.is_dir():
        raise ValueError(f"--cases {cases}: no such directory; expected a directory written by `opconform generate`")
    if not (cases / MANIFEST).is_file():
        what = f"a results directory ({results.RESULTS}), not generated cases" if (cases / results.RESULTS).is_file() \
            else f"no {MANIFEST} there"
        raise ValueError(f"--cases {cases}: {what}; expected a directory written by `opconform generate`")
    return read_manifest(cases)


def _meta(doc: dict, cases: Path, outputs: Path, backend: str, backend_version: str, command: str) -> dict:
    """run.json of a judged directory: what `opconform run --cases-from` records (the generator's
    seed, profile and pattern are the cases'), and where the answers came from."""
    gen = doc.get("generator", {})
    return {
        "opconform_version": __version__,
        "backend": backend,
        "backend_version": backend_version,
        "profile": gen.get("profile"),
        "seed": gen.get("seed"),
        "spec_pattern": gen.get("spec_pattern") or None,
        "cases_from": str(cases),
        "outputs_from": str(outputs),
        "judged_from_files": True,
        "shard": None,
        "started": results.now(),
        "finished": None,
        "machine": results.machine(),
        "command": command,
    }
