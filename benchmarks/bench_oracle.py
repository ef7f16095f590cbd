"""Oracle speed against onnx.reference.ReferenceEvaluator and onnxruntime (and np.unique).

    python benchmarks/bench_oracle.py [--repeat N] [--quick]

Prints one table: best-of-N wall time per implementation and the ratios the targets name
("oracle" is opconform.oracle.evaluate, relation checks included, as users call it; "oracle.run"
is the operator module alone, what the oracle costs once a case is known to be valid;
"relations" is the relation checks alone, opconform.specs.require):
GatherND at least 30x faster than the reference evaluator and within 3x of onnxruntime;
Unique with sorted=0 within 1.5x of np.unique on the same data. onnxruntime runs with one
intra-op thread, as the oracle (NumPy) uses one core. Inputs are seeded: every run measures
the same data. The reference evaluator runs twice per case (it is the slow side).
"""
from __future__ import annotations

import argparse
import time
from dataclasses import dataclass
from typing import Callable

import numpy as np
import onnx
from onnx import TensorProto, helper

from opconform import oracle


@dataclass
class Row:
    case: str
    times: dict[str, float]  # implementation -> best seconds
    checks: list[tuple[str, float, str, float]]  # (label, ratio, comparison, target)


def best_of(fn: Callable[[], object], repeat: int) -> tuple[float, object]:
    best, out = float("inf"), None
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t)
    return best, out


def model(op: str, inputs: list[tuple[str, int, int]], outputs: list[tuple[str, int]], opset: int, **attrs) -> onnx.ModelProto:
    node = helper.make_node(op, [n for n, _, _ in inputs], [n for n, _ in outputs], **attrs)
    graph = helper.make_graph(
        [node], op,
        [helper.make_tensor_value_info(n, t, [f"{n}{i}" for i in range(rank)]) for n, t, rank in inputs],
        [helper.make_tensor_value_info(n, t, None) for n, t in outputs],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=8)


class Runners:
    """The three ONNX implementations of one model."""

    def __init__(self, m: onnx.ModelProto):
        import onnxruntime as ort
        from onnx.reference import ReferenceEvaluator

        so = ort.SessionOptions()
        so.intra_op_num_threads = 1
        so.inter_op_num_threads = 1
        self.ort = ort.InferenceSession(m.SerializeToString(), so, providers=["CPUExecutionProvider"])
        self.ref = ReferenceEvaluator(m)

    def onnxruntime(self, feeds: dict) -> list:
        return self.ort.run(None, feeds)

    def reference(self, feeds: dict) -> list:
        return self.ref.run(None, feeds)


def gathernd_case(name: str, data: np.ndarray, indices: np.ndarray, b: int, spec_id: str, repeat: int, ref_repeat: int) -> Row:
    m = model("GatherND", [("data", TensorProto.FLOAT, data.ndim), ("indices", TensorProto.INT64, indices.ndim)],
              [("output", TensorProto.FLOAT)], 13, batch_dims=b)
    run = Runners(m)
    feeds = {"data": data, "indices": indices}
    t_oracle, (got,) = best_of(lambda: oracle.evaluate(spec_id, [data, indices], {"batch_dims": b}), repeat)
    t_run = run_only(spec_id, [data, indices], {"batch_dims": b}, repeat)
    t_checks = checks_only(spec_id, [data, indices], {"batch_dims": b}, repeat)
    t_ort, (want,) = best_of(lambda: run.onnxruntime(feeds), repeat)
    t_ref, _ = best_of(lambda: run.reference(feeds), ref_repeat)
    assert np.array_equal(got, want), f"{name}: the oracle and onnxruntime disagree"
    return Row(name, {"oracle": t_oracle, "oracle.run": t_run, "relations": t_checks, "onnxruntime": t_ort, "reference": t_ref},
               [("reference / oracle", t_ref / t_oracle, ">=", 30.0), ("oracle / onnxruntime", t_oracle / t_ort, "<=", 3.0),
                ("reference / oracle.run", t_ref / t_run, ">=", 30.0), ("oracle.run / onnxruntime", t_run / t_ort, "<=", 3.0)])


def run_only(spec_id: str, inputs: list, attributes: dict, repeat: int) -> float:
    """Time of the operator module alone (no relation checks), with default policies."""
    from opconform import specs

    spec = specs.load(spec_id)
    mod = oracle.module_for(spec)
    resolved, policies = spec.resolved_attributes(attributes), oracle.resolve_policies(spec, None)
    return best_of(lambda: mod.run(spec, inputs, resolved, policies), repeat)[0]


def checks_only(spec_id: str, inputs: list, attributes: dict, repeat: int) -> float:
    """Time of the relation checks alone (what oracle.evaluate adds to the operator module)."""
    from opconform import specs

    spec = specs.load(spec_id)
    return best_of(lambda: specs.require(spec, inputs, attributes), repeat)[0]


def unique_case(name: str, x: np.ndarray, attrs: dict, repeat: int, ref_repeat: int) -> Row:
    m = model("Unique", [("X", TensorProto.INT64, x.ndim)],
              [(n, TensorProto.INT64) for n in ("Y", "indices", "inverse_indices", "counts")], 11, **attrs)
    run = Runners(m)
    feeds = {"X": x}
    axis = attrs.get("axis")
    t_oracle, got = best_of(lambda: oracle.evaluate("onnx::Unique-11", [x], attrs), repeat)
    t_run = run_only("onnx::Unique-11", [x], attrs, repeat)
    t_checks = checks_only("onnx::Unique-11", [x], attrs, repeat)
    t_ort, want = best_of(lambda: run.onnxruntime(feeds), repeat)
    t_ref, _ = best_of(lambda: run.reference(feeds), ref_repeat)
    t_np, _ = best_of(lambda: np.unique(x, axis=axis), repeat)
    t_np4, _ = best_of(lambda: np.unique(x, return_index=True, return_inverse=True, return_counts=True, axis=axis), repeat)
    agree = all(np.array_equal(g, w.reshape(g.shape)) for g, w in zip(got, want))
    times = {"oracle": t_oracle, "oracle.run": t_run, "relations": t_checks, "onnxruntime": t_ort, "reference": t_ref, "np.unique": t_np, "np.unique(4 outputs)": t_np4}
    checks = [("oracle / onnxruntime", t_oracle / t_ort, "", 0.0), ("reference / oracle", t_ref / t_oracle, "", 0.0)]
    if attrs.get("sorted", 1) == 0:
        checks += [("oracle / np.unique", t_oracle / t_np, "<=", 1.5),
                   ("oracle / np.unique(4 outputs)", t_oracle / t_np4, "<=", 1.5)]
    else:
        checks += [("oracle / np.unique(4 outputs)", t_oracle / t_np4, "", 0.0)]
    return Row(name + ("" if agree else "  [outputs differ from onnxruntime]"), times, checks)


def cases(repeat: int, ref_repeat: int, quick: bool) -> list[Row]:
    rng = np.random.default_rng(20261121)
    rows = []
    n_pairs = 100_000 if quick else 1_000_000
    data = rng.standard_normal((1000, 1000)).astype(np.float32)
    pairs = rng.integers(0, 1000, size=(n_pairs, 2)).astype(np.int64)
    rows.append(gathernd_case(f"GatherND (1000,1000) x {n_pairs:.0e} pairs", data, pairs, 0, "onnx::GatherND-13", repeat, ref_repeat))
    # The three IR layers of the OpenVINO GatherND-8 document (seed 001), through GatherND-8's oracle.
    for data_shape, idx_shape, b in [((1000, 256, 10, 15), (25, 125, 3), 0),
                                     ((30, 2, 100, 35), (30, 2, 3, 1), 2),
                                     ((1, 64, 64, 320), (1, 64, 64, 1, 1), 3)]:
        if quick and np.prod(data_shape) > 10**7:
            continue
        d = rng.standard_normal(data_shape).astype(np.float32)
        bounds = np.array(data_shape[b:b + idx_shape[-1]])
        idx = (rng.integers(0, 1 << 30, size=idx_shape) % bounds).astype(np.int64)
        rows.append(gathernd_case(f"GatherND-8 IR {data_shape} b={b}", d, idx, b, "openvino::GatherND-8", repeat, ref_repeat))
    n = 100_000 if quick else 1_000_000
    values = rng.integers(0, n, size=n).astype(np.int64)
    for s in (0, 1):
        rows.append(unique_case(f"Unique {n:.0e} int64 sorted={s}", values, {"sorted": s}, repeat, ref_repeat))
    rows_n = 20_000 if quick else 200_000
    table = rng.integers(0, 12, size=(rows_n, 4)).astype(np.int64)
    rows.append(unique_case(f"Unique {rows_n} x 4 rows axis=0", table, {"sorted": 1, "axis": 0}, repeat, ref_repeat))
    return rows


def _duration(seconds: float) -> str:
    return f"{seconds * 1e3:.1f}ms" if seconds >= 1e-3 else f"{seconds * 1e6:.0f}us"


def render(rows: list[Row]) -> str:
    impls = ["oracle", "oracle.run", "relations", "onnxruntime", "reference", "np.unique", "np.unique(4 outputs)"]
    width = max(len(r.case) for r in rows)
    lines = [f"{'case':<{width}}  " + "  ".join(f"{i:>12}" for i in impls)]
    for r in rows:
        cells = [_duration(r.times[i]) if i in r.times else "-" for i in impls]
        lines.append(f"{r.case:<{width}}  " + "  ".join(f"{c:>12}" for c in cells))
    lines.append("")
    lines.append("ratios (target, met?)  oracle = oracle.evaluate with relation checks; oracle.run = the operator module alone;"
                 " relations = the checks alone")
    for r in rows:
        for label, ratio, cmp, target in r.checks:
            verdict = ""
            if cmp:
                ok = ratio >= target if cmp == ">=" else ratio <= target
                verdict = f"target {cmp} {target:g}: {'met' if ok else 'MISSED'}"
            lines.append(f"  {r.case:<{width}}  {label:<30} {ratio:8.2f}x  {verdict}")
    return "\n".join(lines)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--repeat", type=int, default=5, help="repeats per measurement (best is kept)")
    p.add_argument("--ref-repeat", type=int, default=2, help="repeats for the slow reference evaluator")
    p.add_argument("--quick", action="store_true", help="10x smaller inputs (a smoke run, not the measured figures)")
    a = p.parse_args()
    print(render(cases(a.repeat, a.ref_repeat, a.quick)))


if __name__ == "__main__":
    main()
