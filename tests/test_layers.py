"""The import graph follows the layers of docs/design.md: no package imports one above it, and no
module imports itself round a circle. Read from the source with ``ast``, not by importing it.

Every import counts: at the top of a module, inside a function (a deferred import is still a
dependency: it only moves the failure to the first call) and under ``TYPE_CHECKING`` (the
annotation names the other package's type). A new edge between packages is a design decision:
add it to ``ALLOWED`` here, and to the map in docs/design.md, in the same change.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parent.parent / "src"
PACKAGE = "mmmu_eval"

# The layers, lowest first. A package may import its own modules and those of the packages
# listed for it, nothing else; each row lists only what is below it.
_VOCABULARY = {"errors", "version", "atomic", "writer_lock", "clock", "aio", "records", "config"}  # layer 0: what every stage uses
_STAGES = ("dataset", "prompt", "backends", "store", "score", "report")  # layers 1-6, in pipeline order


def _below(stage: str) -> frozenset[str]:
    return frozenset(_VOCABULARY | set(_STAGES[: _STAGES.index(stage)]))


#: package (or layer-0 module) -> the packages and layer-0 modules it may import.
ALLOWED: dict[str, frozenset[str]] = {
    # layer 0: the errors, the version, the one whole-file write, the one time stamp and the one
    # way a synchronous entry point runs a coroutine (aio) import
    # nothing of ours; records may use the errors; config both
    "errors": frozenset(),
    "version": frozenset(),
    "atomic": frozenset(),
    "writer_lock": frozenset({"errors", "atomic"}),
    "clock": frozenset(),
    "aio": frozenset(),
    "records": frozenset({"errors"}),
    "config": frozenset({"errors", "records", "version"}),
    # layers 1-6: the stages, each on the ones before it
    **{stage: _below(stage) for stage in _STAGES},
    # layer 7: the orchestration of one run, over every stage
    "run": _below("report") | {"report"},
    # layer 8: the users of the stages. Each may use the run; none uses another, except
    # that the doctor reads a suite back (``mmmu-eval doctor SUITE_DIR``).
    "rescore": _below("report") | {"report", "run"},
    "suite": _below("report") | {"report", "run"},
    "harden": _below("report") | {"report", "run"},
    "doctor": _below("report") | {"report", "run", "suite"},
    # the benchmark's audit reads runs (report.loaded_run) and other harnesses' files (rescore)
    "itemaudit": _below("report") | {"report", "run", "rescore"},
    # the RL environment: items and prompts in, the score stage's verdict out; never a backend,
    # a run directory, a report or a run (a trainer's process holds none of them)
    "environments": frozenset(_VOCABULARY | {"dataset", "prompt", "score"}),
    # layer 9: the command line and the package root, over everything
    "cli": _below("report") | {"report", "run", "rescore", "suite", "harden", "doctor", "environments", "itemaudit"},
    "__init__": _below("report") | {"report", "run", "rescore", "suite", "harden", "doctor", "environments",
                                    "itemaudit", "cli"},
    "__main__": frozenset({"cli"}),
}


@dataclass(frozen=True)
class Import:
    """One import statement's target, as written in ``module`` at ``line``."""

    module: str  # the importing module, dotted
    line: int
    target: str  # the module it loads, dotted (a name imported from a package counts as its module)
    text: str  # the statement as written
    deferred: bool  # inside a function or under TYPE_CHECKING, not run when the module loads

    def __str__(self) -> str:
        return f"{self.module} (line {self.line}): {self.text}"


def _modules() -> dict[str, Path]:
    """Every module of the package, by dotted name (a package by its own name)."""
    out: dict[str, Path] = {}
    for path in sorted((SRC / PACKAGE).rglob("*.py")):
        parts = list(path.relative_to(SRC).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


MODULES = _modules()


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _resolve(module: str, is_package: bool, node: ast.ImportFrom) -> str:
    """The absolute module an ``from ... import`` names (relative imports resolved)."""
    if not node.level:
        return node.module or ""
    base = module.split(".") if is_package else module.split(".")[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def imports_of(module: str, path: Path) -> list[Import]:
    """Every import of our package in one module, wherever it stands in the file."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    source = path.read_text(encoding="utf-8")
    is_package = path.name == "__init__.py"
    found: list[Import] = []

    def visit(node: ast.AST, deferred: bool) -> None:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            text = ast.get_source_segment(source, node) or ""
            text = " ".join(text.split())
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            else:
                base = _resolve(module, is_package, node)
                # ``from pkg import mod`` loads pkg.mod when that is a module; a name otherwise
                targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in MODULES else base for a in node.names]
            for target in dict.fromkeys(targets):
                if target == PACKAGE or target.startswith(PACKAGE + "."):
                    found.append(Import(module, node.lineno, target, text, deferred))
            return
        inner = deferred or isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            for child in node.body:
                visit(child, True)
            for child in node.orelse:
                visit(child, deferred)
            return
        for child in ast.iter_child_nodes(node):
            visit(child, inner)

    visit(tree, False)
    return found


def package_of(module: str) -> str:
    """The row of ``ALLOWED`` a module falls under: its top-level package or layer-0 module."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def upward_imports(imports: list[Import]) -> list[Import]:
    """The imports that leave the importer's package for one it may not use."""
    bad = []
    for imp in imports:
        source, target = package_of(imp.module), package_of(imp.target)
        if source != target and target not in ALLOWED[source]:
            bad.append(imp)
    return bad


def import_cycle(imports: list[Import]) -> list[str] | None:
    """One circle of modules that import each other (first found, depth first), or None."""
    graph: dict[str, list[str]] = {m: [] for m in MODULES}
    for imp in imports:
        if imp.target != imp.module and imp.target in graph:
            graph[imp.module].append(imp.target)
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def walk(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in graph[node]:
            if state.get(nxt) == 1:
                return path[path.index(nxt):] + [nxt]
            if nxt not in state:
                found = walk(nxt)
                if found:
                    return found
        path.pop()
        state[node] = 2
        return None

    for start in sorted(graph):
        if start not in state:
            found = walk(start)
            if found:
                return found
    return None


ALL_IMPORTS = [imp for module, path in MODULES.items() for imp in imports_of(module, path)]


def test_every_package_has_a_row():
    """A new package (or layer-0 module) must be placed in the layers before anything may import it."""
    assert {package_of(m) for m in MODULES} <= set(ALLOWED)


def test_no_package_imports_one_above_it():
    bad = upward_imports(ALL_IMPORTS)
    assert not bad, "imports that break the layers (see ALLOWED):\n" + "\n".join(
        f"  {imp}  [{package_of(imp.module)} may not import {package_of(imp.target)}]" for imp in bad)


def test_no_module_imports_itself_round_a_circle():
    """Deferred imports count here too: one inside a function only hides a circle until it is called."""
    cycle = import_cycle(ALL_IMPORTS)
    assert cycle is None, "import circle: " + " -> ".join(cycle or ())


def test_the_table_is_layered():
    """The table itself has no circle: were two packages allowed to import each other, the test
    above could not keep their modules apart."""
    for package, allowed in ALLOWED.items():
        for other in allowed:
            assert package not in ALLOWED[other], f"{package} and {other} may import each other"


def test_the_shims_only_rename_an_environment():
    """``mmmu`` and ``mmmu_pro`` (the names verifiers imports) hold nothing but their environment."""
    for shim in ("mmmu", "mmmu_pro"):
        path = SRC / shim / "__init__.py"
        targets = {imp.target for imp in imports_of(shim, path)}
        assert targets == {f"{PACKAGE}.environments.{shim}"}, (shim, targets)


# ---------------------------------------------------------------------------------- the checker

def _scan(tmp_path: Path, files: dict[str, str]) -> list[Import]:
    found = []
    for name, text in files.items():
        path = tmp_path / (name.replace(".", "/") + ".py")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        found += imports_of(name, path)
    return found


@pytest.mark.parametrize("text, deferred", [
    ("from mmmu_eval.report.results import Results\n", False),
    ("def f():\n    from mmmu_eval.report import results\n", True),
    ("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from mmmu_eval.report.results import Results\n", True),
    ("import typing\nif typing.TYPE_CHECKING:\n    import mmmu_eval.report.results\n", True),
    ("from ..report.results import Results\n", False),
])
def test_an_upward_import_is_found_wherever_it_stands(tmp_path, text, deferred):
    imports = _scan(tmp_path, {"mmmu_eval.score.example": text})
    bad = upward_imports(imports)
    assert [(b.module, b.target, b.deferred) for b in bad] == [
        ("mmmu_eval.score.example", "mmmu_eval.report.results", deferred)]
    assert "mmmu_eval.score.example (line " in str(bad[0]) and "report" in str(bad[0])


def test_the_package_root_is_the_top():
    """``import mmmu_eval`` from inside the package (for its version, say) reaches above every stage."""
    bad = upward_imports([Import("mmmu_eval.backends.example", 3, "mmmu_eval", "import mmmu_eval", True)])
    assert len(bad) == 1


def test_a_circle_is_found(monkeypatch):
    monkeypatch.setitem(MODULES, "mmmu_eval.score.a", Path("a.py"))
    monkeypatch.setitem(MODULES, "mmmu_eval.score.b", Path("b.py"))
    imports = [Import("mmmu_eval.score.a", 1, "mmmu_eval.score.b", "", False),
               Import("mmmu_eval.score.b", 9, "mmmu_eval.score.a", "", True)]
    assert import_cycle(imports) == ["mmmu_eval.score.a", "mmmu_eval.score.b", "mmmu_eval.score.a"]
    assert import_cycle(imports[:1]) is None
