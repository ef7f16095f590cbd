"""Verdict counts of one or more results directories per operator family of issue 15 (the 53
operators missing from onnx-ops.txt's first specs, grouped as the issue lists them, and the
operators ONNX added after the list), with the failure groups of each family when the directory
has a report (report/summary.json, written by `opconform run` or `opconform report`).

    python benchmarks/verdicts_by_family.py RESULTS_DIR [RESULTS_DIR ...] [--groups N]

One table per results directory: a row per family (spec versions, cases, then one column per
verdict that occurs), the standard operators outside these families last as "earlier". With
--groups N, each family's N largest failure groups follow (spec id, verdict, count, symptom,
example case id), so two backends' runs of the same specs compare side by side.
"""
from __future__ import annotations

import argparse
import json
import sys
from collections import Counter, defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

# Issue 15's grouping of the operators it adds; "added" (onnx-ops-added.txt) is read from the
# catalog so a longer successor list is counted without editing this script.
FAMILIES: dict[str, tuple[str, ...]] = {
    "conv_pool": ("Conv", "ConvTranspose", "ConvInteger", "QLinearConv", "DeformConv", "AveragePool", "MaxPool",
                  "LpPool", "MaxRoiPool", "MaxUnpool", "Col2Im"),
    "norm_const": ("BatchNormalization", "Constant", "Dropout"),
    "image_signal": ("Resize", "Upsample", "GridSample", "RoiAlign", "NonMaxSuppression", "CenterCropPad", "DFT",
                     "STFT", "MelWeightMatrix"),
    "quantization": ("QuantizeLinear", "DequantizeLinear", "DynamicQuantizeLinear", "QLinearMatMul"),
    "recurrent": ("RNN", "GRU", "LSTM"),
    "control_flow": ("If", "Loop", "Scan"),
    "seq_optional": ("SequenceEmpty", "SequenceConstruct", "SequenceInsert", "SequenceAt", "SequenceErase",
                     "SequenceLength", "SplitToSequence", "ConcatFromSequence", "SequenceMap", "Optional",
                     "OptionalHasElement", "OptionalGetElement"),
    "random": ("RandomNormal", "RandomNormalLike", "RandomUniform", "RandomUniformLike", "Bernoulli", "Multinomial"),
    "text": ("StringNormalizer", "TfIdfVectorizer"),
}
EARLIER = "earlier"  # a standard operator that had a spec before issue 15
OTHER_DIALECT = "other_dialect"  # onnx_ml::, onnx_training::, openvino:: ...


def family_of_operator() -> dict[str, str]:
    """Operator name (standard domain) -> its issue-15 family."""
    from opconform.specs import catalog

    out = {op: family for family, ops in FAMILIES.items() for op in ops}
    for op in catalog.read_names(catalog.ADDED_FILE):
        out.setdefault(op, "added")
    return out


def split_spec_id(spec_id: str) -> tuple[str, str]:
    """'onnx::Conv-11' -> ('onnx', 'Conv')."""
    dialect, _, rest = spec_id.partition("::")
    return dialect, rest.rsplit("-", 1)[0]


def family_of_spec(spec_id: str, families: dict[str, str]) -> str:
    dialect, operator = split_spec_id(spec_id)
    if dialect != "onnx":
        return OTHER_DIALECT
    return families.get(operator, EARLIER)


def read_verdicts(results_dir: Path) -> dict[tuple[str, str], tuple[str, str]]:
    """(spec_id, case_id) -> (verdict, backend); a case recorded twice (a resumed run) counts once, the last."""
    out: dict[tuple[str, str], tuple[str, str]] = {}
    with (results_dir / "results.jsonl").open(encoding="utf-8") as f:
        for line in f:
            if line.strip():
                r = json.loads(line)
                out[(r["spec_id"], r["case_id"])] = (r["verdict"], r["backend"])
    return out


def tally(results_dir: Path, families: dict[str, str]) -> tuple[dict[str, Counter], dict[str, set[str]]]:
    """Per family: verdict counts, and the spec versions that recorded a case."""
    counts: dict[str, Counter] = defaultdict(Counter)
    versions: dict[str, set[str]] = defaultdict(set)
    for (spec_id, _), (verdict, _) in read_verdicts(results_dir).items():
        family = family_of_spec(spec_id, families)
        counts[family][verdict] += 1
        versions[family].add(spec_id)
    return counts, versions


def family_order() -> list[str]:
    return [*FAMILIES, "added", EARLIER, OTHER_DIALECT]


def print_table(results_dir: Path, families: dict[str, str]) -> None:
    counts, versions = tally(results_dir, families)
    verdicts = sorted({v for c in counts.values() for v in c}, key=lambda v: (v != "pass", v))
    run = json.loads((results_dir / "run.json").read_text(encoding="utf-8"))
    print(f"\n{results_dir}: {run.get('backend')} {run.get('backend_version')}, profile {run.get('profile')}")
    header = ["family", "versions", "cases", *verdicts]
    rows = [header]
    for family in family_order():
        if family in counts:
            c = counts[family]
            rows.append([family, str(len(versions[family])), str(sum(c.values())), *(str(c.get(v, 0)) for v in verdicts)])
    widths = [max(len(r[i]) for r in rows) for i in range(len(header))]
    for r in rows:
        print("  ".join(cell.ljust(w) if i == 0 else cell.rjust(w) for i, (cell, w) in enumerate(zip(r, widths))))


def print_groups(results_dir: Path, families: dict[str, str], per_family: int) -> None:
    summary = results_dir / "report" / "summary.json"
    if not summary.exists():
        print(f"  (no {summary}: run `opconform report` for the failure groups)")
        return
    by_family: dict[str, list[dict]] = defaultdict(list)
    for g in json.loads(summary.read_text(encoding="utf-8")).get("groups", []):
        by_family[family_of_spec(g["spec_id"], families)].append(g)
    for family in family_order():
        groups = sorted(by_family.get(family, []), key=lambda g: -g["count"])
        if family in (EARLIER, OTHER_DIALECT) or not groups:
            continue
        print(f"  {family}: {len(groups)} groups, {sum(g['count'] for g in groups)} cases")
        for g in groups[:per_family]:
            print(f"    {g['spec_id']:<32} {g['verdict']:<14} {g['count']:>5}  {g['symptom'][:80]}  ({g['case_id']})")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("results", nargs="+", type=Path, help="results directories (results.jsonl, run.json)")
    ap.add_argument("--groups", type=int, default=0, metavar="N", help="the N largest failure groups of each family")
    args = ap.parse_args(argv)
    families = family_of_operator()
    for results_dir in args.results:
        if not (results_dir / "results.jsonl").exists():
            ap.error(f"{results_dir}: no results.jsonl (not a results directory)")
        print_table(results_dir, families)
        if args.groups:
            print_groups(results_dir, families, args.groups)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
