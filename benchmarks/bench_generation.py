"""Generation time of the ci profile per operator family, with the seeded provider's fixed-size
byte strings drawn at once (after) against Hypothesis's byte-at-a-time loop (before), in one
process, the same cases both ways (checked: the case ids must agree).

    python benchmarks/bench_generation.py [--family NAME ...] [--seed 0] [--repeat 2]

Each spec version is generated once to warm up (imports, compiled plans, covering arrays), then
`--repeat` times each way, alternating, and the best time kept; printed per family: the spec
versions, cases, before and after seconds (summed best times) and the ratio before / after.
The machine is shared: ratios within one run of the script are what to compare.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path
from time import perf_counter

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

FAMILIES = {
    "conv_pool": ["Conv", "ConvTranspose", "ConvInteger", "QLinearConv", "DeformConv", "AveragePool", "MaxPool",
                  "LpPool", "MaxRoiPool", "MaxUnpool", "Col2Im"],
    "image": ["Resize", "Upsample", "GridSample", "RoiAlign", "NonMaxSuppression", "CenterCropPad", "AffineGrid", "ImageDecoder"],
    "recurrent": ["RNN", "GRU", "LSTM"],
    "signal": ["DFT", "STFT", "MelWeightMatrix"],
    "attention": ["Attention", "RotaryEmbedding", "LinearAttention", "CausalConvWithState"],
}


def _time(spec_id: str, seed: int, fast: bool) -> tuple[float, tuple[str, ...]]:
    from opconform.generator import sampling
    from opconform.suites import plan

    method = sampling._SeededProvider.__dict__["draw_bytes"]
    try:
        if not fast:
            del sampling._SeededProvider.draw_bytes
        t0 = perf_counter()
        with plan.quietly():
            result = plan._generate(spec_id, "ci", seed)
        return perf_counter() - t0, tuple(c.id for c in result.cases)
    finally:
        sampling._SeededProvider.draw_bytes = method


def main(argv: list[str] | None = None) -> int:
    from opconform import specs

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--family", action="append", choices=sorted(FAMILIES), help="default: every family")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--repeat", type=int, default=2)
    args = ap.parse_args(argv)
    for family in args.family or list(FAMILIES):
        versions = [v.id for v in specs.select("onnx::*") if v.operator in FAMILIES[family]]
        before = after = 0.0
        cases = 0
        for sid in versions:
            _time(sid, args.seed + 1, True)  # warm-up on another seed
            runs = {True: [], False: []}
            for _ in range(args.repeat):
                for fast in (False, True):
                    runs[fast].append(_time(sid, args.seed, fast))
            ids = {r[1] for rs in runs.values() for r in rs}
            if len(ids) != 1:
                print(f"{sid}: the cases differ between before and after", file=sys.stderr)
                return 1
            before += min(t for t, _ in runs[False])
            after += min(t for t, _ in runs[True])
            cases += len(next(iter(ids)))
        print(f"{family:10s} {len(versions):3d} versions {cases:6d} cases  before {before:7.1f} s  after {after:7.1f} s  "
              f"ratio {before / after if after else float('nan'):.2f}x", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
