"""The layout is the architecture: a stage imports only earlier stages and the core.

    specs -> generator -> oracle -> backends -> suites -> reports

The core (opconform/*.py: model, dtypes, tensors) imports no stage; commands
(opconform/commands/) are the composition root and may import anything. No module imports
itself back through others (no import circle, function-level imports included).
"""
import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
STAGES = ["specs", "generator", "oracle", "backends", "suites", "reports"]
CORE_MODULES = {"model", "dtypes", "tensors", "compare", "attempts"}


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


# ------------------------------------------------------------------ the module import graph
def _modules() -> dict[str, Path]:
    """Every module of the `opconform` package by its dotted name, from the source tree (the core
    and commands under opconform/, each stage folder mapped onto opconform.<stage>, as setup.py does)."""
    out = {}
    for folder, package in [("opconform", "opconform"), *((s, f"opconform.{s}") for s in STAGES)]:
        for f in _files(folder):
            parts = list(f.relative_to(ROOT / folder).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            out[".".join([package, *parts])] = f
    return out


def _imported_modules(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The opconform modules `name` imports anywhere in its source (module level, in functions,
    relative or absolute): `from P import X` is an import of the module P.X where X is one, else of P."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    here = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(here[: len(here) - node.level + 1] + ([node.module] if node.module else []))
            out |= {f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base for a in node.names}
    return {m for m in out if m in modules and m != name}


def _import_graph() -> dict[str, set[str]]:
    modules = _modules()
    return {name: _imported_modules(name, path, modules) for name, path in modules.items()}


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """One import circle per strongly connected group of modules (Tarjan), as a path back to its start."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[set[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = set()
            while True:
                w = stack.pop()
                on_stack.discard(w)
                group.add(w)
                if w == v:
                    break
            if len(group) > 1:
                groups.append(group)

    for v in sorted(graph):
        if v not in index:
            visit(v)
    out = []
    for group in groups:  # the shortest way from the group's first module back to itself
        start = min(group)
        paths = {start: [start]}
        queue = [start]
        while queue:
            v = queue.pop(0)
            for w in sorted(graph[v] & group):
                if w == start:
                    out.append(paths[v] + [start])
                    queue = []
                    break
                if w not in paths:
                    paths[w] = paths[v] + [w]
                    queue.append(w)
    return sorted(out)


def test_the_cycle_finder_finds_a_circle():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a", "d"}, "d": set(), "e": {"d"}}
    assert _cycles(graph) == [["a", "b", "c", "a"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def test_the_graph_counts_function_level_imports():
    graph = _import_graph()
    # opconform/commands/run.py imports the report command inside main()
    assert "opconform.commands.report" in graph["opconform.commands.run"]
    assert "opconform.reports.coverage" in graph["opconform.commands.coverage"]


def test_no_import_circle():
    """No module imports itself back through others, not even from inside a function: a circle
    works only by import order and late imports, and stages stop being layers."""
    cycles = _cycles(_import_graph())
    assert not cycles, "import circles:\n" + "\n".join(" -> ".join(c) for c in cycles)


# ------------------------------------------------------------------ suites and the generator's public API
def _submodules(package: str) -> set[str]:
    """The names of a stage folder's submodules and subpackages (what `from opconform.<stage> import X`
    would reach inside the package rather than take from its __init__)."""
    folder = ROOT / package
    return {f.stem for f in folder.glob("*.py") if f.name != "__init__.py"} | \
        {d.name for d in folder.iterdir() if (d / "__init__.py").exists()}


def _generator_internals(path: Path) -> list[str]:
    """Where a file reaches past generator/__init__.py: `from opconform.generator.X import ...`,
    `import opconform.generator.X`, `from opconform.generator import X` or `generator.X.name` with
    X a submodule (by line)."""
    inner = _submodules("generator")
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if node.module.startswith("opconform.generator."):
                out.append(f"line {node.lineno}: from {node.module} import ...")
            elif node.module == "opconform.generator":
                out += [f"line {node.lineno}: from opconform.generator import {a.name}" for a in node.names if a.name in inner]
        elif isinstance(node, ast.Import):
            out += [f"line {node.lineno}: import {a.name}" for a in node.names if a.name.startswith("opconform.generator.")]
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "generator" \
                and node.attr in inner:
            out.append(f"line {node.lineno}: generator.{node.attr}")
    return out


def test_suites_use_only_what_the_generator_exports():
    """suites/ reaches the generator only through the names generator/__init__.py exports (its public
    API): generator internals can then change without breaking the runner."""
    found = {str(f.relative_to(ROOT)): bad for f in _files("suites") if (bad := _generator_internals(f))}
    bad = [f"{f}: {b}" for f, hits in sorted(found.items()) for b in hits]
    assert not bad, "suites/ uses generator internals (export the name from generator/__init__.py):\n" + "\n".join(bad)


def test_the_generator_exports_what_it_names():
    import opconform.generator as generator

    for name in generator.__all__:
        assert getattr(generator, name, None) is not None, f"generator.__all__ names {name}, which it does not export"
        assert name not in _submodules("generator"), f"generator exports {name}, the name of a submodule"


# ------------------------------------------------------------------ reports render, they do not draw or judge again
# What reports/ may take from the generator: reading a spec's factors (factors), which of them a
# recorded case holds (exercised) and counting the tuples cases hold (tuple_coverage). Never the
# generator's API (opconform.generator: cases, generate, has_strategy) or the modules that draw.
REPORTS_MAY_READ_FROM_GENERATOR = {"factors", "exercised", "tuple_coverage"}
# What reports/ may take from suites/: the results and the rules that judged them (symptom: a
# result's symptom key, from what the result holds), and the type of planned cases
# (suites.plan.SpecCases); never what plans, draws, probes or runs cases.
REPORTS_MAY_READ_FROM_SUITES = {"merge", "results", "verdicts", "symptom", "baseline", "profiles"}
REPORTS_MAY_NAME_FROM_PLAN = {"SpecCases"}


def _reports_reaching_past_results(path: Path) -> list[str]:
    """The imports of one reports/ file that reach past the results (by line)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    out: list[str] = []

    def check(module: str, names: list[str], line: int) -> None:
        stage, sub = module.split(".")[1:2], module.split(".")[2:3]
        shown = f"line {line}: {module}" + (f" import {', '.join(names)}" if names else "")
        if module == "opconform":  # from opconform import oracle, generator, suites
            for n in names:
                if n in ("oracle", "generator", "suites"):
                    check(f"opconform.{n}", [], line)
        elif stage == ["oracle"]:
            out.append(f"{shown} (the oracle: the results hold what it said)")
        elif stage == ["generator"]:
            inner = sub or [n for n in names if n in _submodules("generator")]
            if not sub and (not names or len(inner) < len(names)):
                out.append(f"{shown} (the generator's API draws cases)")
            if any(m not in REPORTS_MAY_READ_FROM_GENERATOR for m in inner):
                out.append(f"{shown} (a generator module that draws)")
        elif stage == ["suites"]:
            for m in sub or names:
                plan_types = m == "plan" and sub and names and set(names) <= REPORTS_MAY_NAME_FROM_PLAN
                if m not in REPORTS_MAY_READ_FROM_SUITES and not plan_types:
                    out.append(f"{shown} (suites that plan, draw or run cases)")

    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                check(a.name, [], node.lineno)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            check(node.module, [a.name for a in node.names], node.lineno)
    return out


def test_reports_neither_draw_cases_nor_run_the_oracle():
    """reports/ renders what the results hold: no import of the oracle, of the generator's drawing
    API or of the suites that plan and run cases. What needs them (the coverage table's oracle,
    strategy and official-case columns; planning for `opconform coverage --spec`) is gathered by
    the commands and handed to the reports as data."""
    bad = [f"{f.relative_to(ROOT)}: {b}" for f in _files("reports") for b in _reports_reaching_past_results(f)]
    assert not bad, "reports/ reaches past the results:\n" + "\n".join(bad)


def test_the_reports_check_sees_what_it_forbids(tmp_path):
    f = tmp_path / "r.py"
    f.write_text("from opconform import oracle, specs\nfrom opconform.oracle import official\n"
                 "from opconform.generator import has_strategy\nfrom opconform.generator.sampling import generate\n"
                 "from opconform.generator.factors import factors\nfrom opconform.suites import plan\n"
                 "from opconform.suites.plan import SpecCases, collect\nfrom opconform.suites.merge import read_dirs\n")
    found = " | ".join(_reports_reaching_past_results(f))
    for what in ("line 1: opconform.oracle", "has_strategy", "generator.sampling", "line 6: opconform.suites import plan",
                 "SpecCases, collect"):
        assert what in found, (what, found)
    assert "factors" not in found and "read_dirs" not in found and found.count("line") == 6


def test_axis_normalisation_is_written_once():
    """`axis + rank if axis < 0 else axis` lives in specs.normalize_axis (the earliest stage, so
    hooks and oracles alike import it), not again in each module (issue 12: it was written six times)."""
    import re

    pattern = re.compile(r"\+\s*[\w.()]+\s+if\s+[\w.()]+\s*<\s*0\s+else")
    hits = [f"{p.relative_to(ROOT)}:{n}" for p in ROOT.rglob("*.py") if ".venv" not in p.parts and "tests" not in p.parts
            for n, line in enumerate(p.read_text().splitlines(), 1) if pattern.search(line)]
    assert len(hits) == 1 and hits[0].startswith("specs/expr.py:"), hits
