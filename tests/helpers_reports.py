"""Results directories built from the core model (real Case/Result objects, real files), covering
every verdict, for the report, gate, merge and browser tests."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from opconform import tensors
from opconform.model import Alternative, Case, Expectation, Result, Verdict

SCRIPT = "<script>window.__pwned = 1</script>"
GATHER = "onnx::GatherND-13"
OV_GATHER = "openvino::GatherND-8"


def gather_nd(data: np.ndarray, indices: np.ndarray) -> np.ndarray:
    """GatherND with batch_dims 0, computed independently with NumPy advanced indexing."""
    return data[tuple(np.moveaxis(indices, -1, 0))]


def _case(spec_id: str, data: np.ndarray, indices: np.ndarray, *, label="valid", kind="outputs", relation=None,
          batch_dims=None) -> Case:
    attrs = {} if batch_dims is None else {"batch_dims": batch_dims}
    alts = (Alternative({}, (gather_nd(data, indices),)),) if kind == "outputs" else ()
    return Case(spec_id, attrs, (data, indices), (True,), Expectation(kind, alts, relation), seed=7, label=label)


def _result(backend: str, case: Case, verdict: Verdict, *, got=None, detail="", message="", policies=None,
            shard=None) -> Result:
    extra = {
        "label": case.label,
        "expected_kind": case.expected.kind,
        "relation": case.expected.relation,
        "attributes": {"batch_dims": 0, **case.attributes},
        "dtypes": [tensors.encode(x)["dtype"] for x in case.inputs],
        "shapes": [list(x.shape) for x in case.inputs],
        "outputs_requested": ["output"],
        "shard": shard,
    }
    return Result(
        case_id=case.id, spec_id=case.spec_id, backend=backend, verdict=verdict, detail=detail,
        backend_message=message, matched_policies=policies, backend_seconds=0.001, harness_seconds=0.002,
        case=case.to_json(), got=None if got is None else [None if g is None else tensors.encode(g) for g in got],
        extra=extra,
    )


def every_verdict(backend: str = "alpha") -> list[Result]:
    """One or more results for every Verdict, over two spec versions in two dialects."""
    f = np.arange(12, dtype=np.float32).reshape(3, 4)
    i = np.array([[0, 1], [2, 3]], dtype=np.int64)
    big = np.linspace(-1, 1, 600, dtype=np.float32).reshape(20, 30)
    big_i = np.array([[k % 20] for k in range(40)], dtype=np.int64)
    big_got = gather_nd(big, big_i).copy()
    big_got[3, 5] = 99.0
    strings = np.array([SCRIPT, "plain"], dtype=object)
    s_i = np.array([[0]], dtype=np.int64)
    c = {
        "pass": _case(GATHER, f, i),
        "pass_int": _case(GATHER, f.astype(np.int32), i),
        "mismatch": _case(GATHER, f + 1, i),
        "mismatch_big": _case(GATHER, big, big_i),
        "mismatch_str": _case(GATHER, strings, s_i),
        "shape": _case(GATHER, f + 2, i),
        "dtype": _case(GATHER, f + 3, i),
        "missing": _case(GATHER, f + 4, i),
        "error": _case(GATHER, f + 5, i),
        "accepted": _case(GATHER, f, np.array([[3, 0]], dtype=np.int64), label="breaks:indices_in_bounds",
                          kind="error", relation="indices_in_bounds"),
        "refused_ok": _case(GATHER, f, np.array([[0, 9]], dtype=np.int64), label="breaks:indices_in_bounds",
                            kind="error", relation="indices_in_bounds"),
        "unsupported": _case(GATHER, f.astype(np.float64), i),
        "crash": _case(OV_GATHER, f, i),
        "timeout": _case(OV_GATHER, f + 6, i),
        "ov_pass": _case(OV_GATHER, f + 7, i),
        "harness": _case(GATHER, f + 8, i),
        "slow": _case(GATHER, f + 9, i, label="stress:distinct"),
    }
    exp = {k: v.expected.alternatives[0].outputs[0] for k, v in c.items() if v.expected.alternatives}
    return [
        _result(backend, c["pass"], Verdict.PASS, got=[exp["pass"]], policies={}),
        _result(backend, c["pass_int"], Verdict.PASS, got=[exp["pass_int"]], policies={}),
        _result(backend, c["mismatch"], Verdict.MISMATCH, got=[exp["mismatch"] + np.float32([0, 0.5])],
                detail="got 3.5 at [1], expected 3.0"),
        _result(backend, c["mismatch_big"], Verdict.MISMATCH, got=[big_got], detail="1 element differs"),
        _result(backend, c["mismatch_str"], Verdict.MISMATCH, got=[np.array(["plain"], dtype=object)],
                detail=f"got 'plain', expected {SCRIPT!r}", message=f"backend said {SCRIPT}"),
        _result(backend, c["shape"], Verdict.WRONG_SHAPE, got=[exp["shape"].reshape(2, 1)],
                detail="got shape [2, 1], expected [2]"),
        _result(backend, c["dtype"], Verdict.WRONG_DTYPE, got=[exp["dtype"].astype(np.float64)],
                detail="got float64, expected float32"),
        _result(backend, c["missing"], Verdict.MISSING_OUTPUT, got=[None], detail="output 'output' missing"),
        _result(backend, c["error"], Verdict.ERROR, detail="refused a valid case",
                message="[ONNXRuntimeError] : 1 : FAIL : Non-zero status code <b>bold</b>"),
        _result(backend, c["accepted"], Verdict.ACCEPTED_INVALID, got=[np.array([0.0], dtype=np.float32)],
                detail="returned outputs, expected an error (indices_in_bounds)"),
        _result(backend, c["refused_ok"], Verdict.PASS, message="index 9 out of bounds"),
        _result(backend, c["unsupported"], Verdict.UNSUPPORTED, detail="float64 data not implemented",
                message="NOT_IMPLEMENTED: Could not find an implementation for GatherND(13) float64"),
        _result(backend, c["crash"], Verdict.CRASH, detail="worker died with signal 11 (SIGSEGV)"),
        _result(backend, c["timeout"], Verdict.TIMEOUT, detail="no answer within 10 s"),
        _result(backend, c["ov_pass"], Verdict.PASS, got=[exp["ov_pass"]], policies={}),
        _result(backend, c["harness"], Verdict.HARNESS_ERROR,
                detail="opconform failed on this case, not the backend: ValueError: Changing the dtype of a 0d array",
                message="ValueError: Changing the dtype of a 0d array (at backends/openvino_common.py:53 in _tensor)"),
        _result(backend, c["slow"], Verdict.SLOW,
                detail="slow: time grows as n^2.01 over n = 3,162..31,623, clearly faster than the stated n log n"),
    ]


def run_json(backend: str, *, shard=None, seed=0, profile="smoke") -> dict:
    return {
        "opconform_version": "0.1.0", "backend": backend, "backend_version": "1.2.3", "profile": profile,
        "seed": seed, "jobs": 1, "timeout": 10, "spec_pattern": None, "shard": shard,
        "started": "2026-11-21T06:00:00Z", "finished": "2026-11-21T06:01:00Z",
        "machine": {"platform": "Linux", "python": "3.12", "cpu_count": 2, "hostname": "testhost"},
        "command": f"opconform run --backend {backend} --out results",
    }


def write_dir(path: Path, results: list[Result], run: dict | None) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    with (path / "results.jsonl").open("w", encoding="utf-8") as f:
        for r in results:
            f.write(json.dumps(r.to_json()) + "\n")
    if run is not None:
        (path / "run.json").write_text(json.dumps(run), encoding="utf-8")
    return path


def results_dir(path: Path, backend: str = "alpha", **run_kw) -> Path:
    return write_dir(path, every_verdict(backend), run_json(backend, **run_kw))


def detail_page(report: Path, backend: str, spec_id: str) -> str:
    """The HTML of one (backend, spec version)'s detail page in a rendered report directory."""
    from opconform.reports import links

    return (report / links.page(backend, spec_id)).read_text(encoding="utf-8")


def report_pages(report: Path) -> dict[str, str]:
    """Every HTML page of a rendered report directory, by path relative to it."""
    return {str(p.relative_to(report)): p.read_text(encoding="utf-8") for p in sorted(report.rglob("*.html"))}


def many_failures(n: int, backend: str = "alpha", spec_id: str = GATHER) -> list[Result]:
    """n mismatching cases of one spec version, each a distinct case: a pair that fails a lot."""
    out = []
    base = np.arange(12, dtype=np.float32).reshape(3, 4)
    i = np.array([[0, 1], [2, 3]], dtype=np.int64)
    for k in range(n):
        c = _case(spec_id, base + k, i)
        wrong = gather_nd(base + k, i) + np.float32(1)
        out.append(_result(backend, c, Verdict.MISMATCH, got=[wrong], detail=f"case {k}: got {wrong[0]}"))
    return out


def passing(spec_id: str, backend: str = "alpha", n: int = 3) -> list[Result]:
    """n passing cases of a spec version (GatherND's data, under any id: a report does not look)."""
    f = np.arange(12, dtype=np.float32).reshape(3, 4)
    i = np.array([[0, 1], [2, 3]], dtype=np.int64)
    cases = [_case(spec_id, f + k, i) for k in range(n)]
    return [_result(backend, c, Verdict.PASS, got=[c.expected.alternatives[0].outputs[0]], policies={}) for c in cases]
