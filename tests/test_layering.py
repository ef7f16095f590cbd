"""The layout is the architecture: a stage imports only earlier stages and the core.

    specs -> generator -> oracle -> backends -> suites -> reports

The core (opconform/*.py: model, dtypes, tensors) imports no stage; commands
(opconform/commands/) are the composition root and may import anything.
"""
import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
STAGES = ["specs", "generator", "oracle", "backends", "suites", "reports"]
CORE_MODULES = {"model", "dtypes", "tensors"}


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out.add(node.module)
            out |= {f"{node.module}.{a.name}" for a in node.names}
    return {m for m in out if m == "opconform" or m.startswith("opconform.")}


def _stage_of(module: str) -> str | None:
    parts = module.split(".")
    if len(parts) >= 2 and parts[1] in STAGES:
        return parts[1]
    return None


def _files(folder: str) -> list[Path]:
    return sorted((ROOT / folder).rglob("*.py"))


@pytest.mark.parametrize("stage", STAGES)
def test_stage_imports_only_earlier_stages(stage):
    allowed = set(STAGES[: STAGES.index(stage) + 1])
    bad = []
    for f in _files(stage):
        for m in _imports(f):
            target = _stage_of(m)
            if m.startswith("opconform.commands") or m == "opconform.cli":
                bad.append(f"{f.relative_to(ROOT)} imports {m} (commands are the composition root)")
            elif target is not None and target not in allowed:
                bad.append(f"{f.relative_to(ROOT)} imports {m} (stage {target} comes after {stage})")
    assert not bad, "\n".join(bad)


def test_core_imports_no_stage():
    bad = []
    for name in CORE_MODULES:
        f = ROOT / "opconform" / f"{name}.py"
        for m in _imports(f):
            if _stage_of(m) is not None or m.startswith("opconform.commands"):
                bad.append(f"opconform/{name}.py imports {m}")
    assert not bad, "\n".join(bad)


def test_every_stage_folder_is_a_package_mapped_by_setup():
    setup = (ROOT / "setup.py").read_text()
    for stage in STAGES:
        assert (ROOT / stage / "__init__.py").exists(), f"{stage}/ has no __init__.py"
        assert f'"{stage}"' in setup, f"setup.py does not map {stage}/"
    for f in _files("oracle") + _files("generator") + _files("backends") + _files("suites") + _files("reports"):
        if f.name != "__init__.py":
            pkg = f.parent
            assert (pkg / "__init__.py").exists(), f"{pkg.relative_to(ROOT)} is not a package: {f.name} would not be installed"
