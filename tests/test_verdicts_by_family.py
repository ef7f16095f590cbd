"""benchmarks/verdicts_by_family.py: issue 15's operator families name operators the library
specifies, and a results directory's verdicts are counted once per case, in its family."""
from __future__ import annotations

import importlib.util
import json
from pathlib import Path

from opconform import specs

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "verdicts_by_family.py"


def _script():
    spec = importlib.util.spec_from_file_location("verdicts_by_family", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_family_operator_has_a_spec():
    script = _script()
    specified = {v.operator for v in specs.select("onnx::*")}
    named = set(script.family_of_operator())
    assert named - specified == set(), "a family names an operator without a spec (a typo, or a spec lost)"


def test_verdicts_counted_once_per_case_in_their_family(tmp_path: Path):
    script = _script()
    rows = [("onnx::Conv-11", "a", "pass"), ("onnx::Conv-11", "a", "mismatch"),  # a resumed case: the last counts
            ("onnx::LSTM-14", "b", "error"), ("onnx::Abs-13", "c", "pass"), ("onnx_ml::Binarizer-1", "d", "pass"),
            ("onnx::Swish-24", "e", "pass")]
    lines = [json.dumps({"spec_id": s, "case_id": c, "verdict": v, "backend": "x"}) for s, c, v in rows]
    (tmp_path / "results.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    counts, versions = script.tally(tmp_path, script.family_of_operator())
    assert counts["conv_pool"] == {"mismatch": 1}
    assert counts["recurrent"] == {"error": 1}
    assert counts[script.EARLIER] == {"pass": 1}
    assert counts[script.OTHER_DIALECT] == {"pass": 1}
    assert counts["added"] == {"pass": 1}
    assert versions["conv_pool"] == {"onnx::Conv-11"}
