"""Conv oracle speed against onnx.reference.ReferenceEvaluator and onnxruntime (issue 15 item 1).

    python benchmarks/bench_conv.py [--repeat N]

One case: X float32 [1, 64, 56, 56], W float32 [64, 64, 3, 3], B [64], pads 1 (a ResNet layer).
Prints best-of-N wall time per implementation and the ratios the targets name: the oracle
(opconform.oracle.evaluate, relation checks included, default policies: float64 products and
sums, rounded once) at least 20x faster than the reference evaluator and within 5x of
onnxruntime. onnxruntime runs with one intra-op thread, as the oracle's NumPy matmul is asked to
(OPENBLAS/OMP/MKL threads set to 1 before NumPy loads). The outputs are checked to agree.
"""
from __future__ import annotations

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")  # one core each side: the ratio compares implementations, not core counts

import argparse  # noqa: E402
import sys  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402
import onnx  # noqa: E402
from onnx import TensorProto, helper  # noqa: E402

from opconform import oracle, specs  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_oracle import best_of  # noqa: E402  (the same best-of-N timing)

REFERENCE_TARGET = 20.0  # the oracle at least this many times faster than onnx.reference
ORT_TARGET = 5.0  # and at most this many times slower than onnxruntime


def conv_model() -> onnx.ModelProto:
    node = helper.make_node("Conv", ["X", "W", "B"], ["Y"], kernel_shape=[3, 3], pads=[1, 1, 1, 1])
    graph = helper.make_graph(
        [node], "conv",
        [helper.make_tensor_value_info("X", TensorProto.FLOAT, [1, 64, 56, 56]),
         helper.make_tensor_value_info("W", TensorProto.FLOAT, [64, 64, 3, 3]),
         helper.make_tensor_value_info("B", TensorProto.FLOAT, [64])],
        [helper.make_tensor_value_info("Y", TensorProto.FLOAT, None)])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 22)])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    x = rng.standard_normal((1, 64, 56, 56)).astype(np.float32)
    w = rng.standard_normal((64, 64, 3, 3)).astype(np.float32)
    b = rng.standard_normal(64).astype(np.float32)
    attrs = {"kernel_shape": [3, 3], "pads": [1, 1, 1, 1]}
    spec = specs.load("onnx::Conv-22")
    m = conv_model()

    import onnxruntime as ort
    from onnx.reference import ReferenceEvaluator

    so = ort.SessionOptions()
    so.intra_op_num_threads = 1
    session = ort.InferenceSession(m.SerializeToString(), so, providers=["CPUExecutionProvider"])
    reference = ReferenceEvaluator(m)
    feeds = {"X": x, "W": w, "B": b}

    t_oracle, (y,) = best_of(lambda: oracle.evaluate(spec, [x, w, b], attrs), args.repeat)
    t_ort, (y_ort,) = best_of(lambda: session.run(None, feeds), args.repeat)
    t_ref, (y_ref,) = best_of(lambda: reference.run(None, feeds), max(1, args.repeat // 2))
    for name, other in (("onnxruntime", y_ort), ("onnx.reference", y_ref)):
        if not np.allclose(y, other, rtol=1e-4, atol=1e-3):
            raise SystemExit(f"the oracle and {name} disagree: max |diff| {np.max(np.abs(y - other))}")

    print("Conv X float32[1,64,56,56], W [64,64,3,3], B [64], pads 1 (best of "
          f"{args.repeat}; onnx.reference best of {max(1, args.repeat // 2)})")
    for name, t in (("oracle", t_oracle), ("onnxruntime (1 thread)", t_ort), ("onnx.reference", t_ref)):
        print(f"  {name:<24} {t * 1e3:9.2f} ms")
    vs_ref, vs_ort = t_ref / t_oracle, t_oracle / t_ort
    print(f"oracle vs onnx.reference: {vs_ref:.1f}x faster (target >= {REFERENCE_TARGET:g}x) "
          f"{'ok' if vs_ref >= REFERENCE_TARGET else 'MISSED'}")
    print(f"oracle vs onnxruntime:    {vs_ort:.2f}x its time (target <= {ORT_TARGET:g}x) "
          f"{'ok' if vs_ort <= ORT_TARGET else 'MISSED'}")


if __name__ == "__main__":
    main()
