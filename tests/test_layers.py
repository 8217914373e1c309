"""The import graph follows the layers of docs/design.md: no package imports one the table there
does not allow, no import takes an edge it names as never allowed, and no module imports itself
round a circle. Read from the source with ``ast``, not by importing it.

The table is read from docs/design.md (the block under ``<!-- layers: ... -->``), so the page a
newcomer reads and the rule this test holds are one text. Every import counts: at the top of a
module, inside a function (a deferred import is still a dependency: it only moves the failure to
the first call), under ``TYPE_CHECKING`` (the annotation names the other package's type), and
``importlib.import_module("mmmu_eval...")`` / ``__import__("mmmu_eval...")`` with the module
named in a string (an f-string counts for its fixed dotted head).
"""

from __future__ import annotations

import ast
import importlib.util
import re
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SRC = ROOT / "src"
DESIGN = ROOT / "docs" / "design.md"
PACKAGE = "mmmu_eval"
#: The comment that stands right above the table's fenced block in docs/design.md.
TABLE_MARK = "<!-- layers: read by tests/test_layers.py -->"


@dataclass(frozen=True)
class Layers:
    """The table of docs/design.md: each package's layer, what it may import, what it never may."""

    layer: dict[str, int]
    allowed: dict[str, frozenset[str]]
    never: dict[tuple[str, str], str]
    """(importer, imported) -> why that edge stays closed."""


def table_text(page: str) -> str:
    """The fenced block right under ``TABLE_MARK``."""
    if TABLE_MARK not in page:
        raise ValueError(f"docs/design.md has no {TABLE_MARK!r} above the layers table")
    after = page.split(TABLE_MARK, 1)[1].lstrip("\n")
    match = re.match(r"```[a-z]*\n(.*?)\n```", after, re.S)
    if match is None:
        raise ValueError("the layers comment in docs/design.md is not followed by a fenced block")
    return match.group(1)


def parse_layers(text: str) -> Layers:
    """Rows ``LAYER PACKAGE TARGETS...`` (``Ln``, ``Ln-Lm``, ``-``) and ``never IMPORTER TARGETS... -- WHY``.

    Raises:
        ValueError: a row that is neither, naming it; a target that is no package of the table.
    """
    layer: dict[str, int] = {}
    wanted: dict[str, list[str]] = {}
    never: dict[tuple[str, str], str] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        parts = line.split()
        if parts[0] == "never":
            edges, _, why = line.partition(" -- ")
            names = edges.split()[1:]
            if len(names) < 2 or not why.strip():
                raise ValueError(f"layers table, line {number}: {line!r} is not 'never IMPORTER TARGETS -- WHY'")
            for target in names[1:]:
                never[(names[0], target)] = why.strip()
            continue
        if len(parts) < 3 or not parts[0].isdigit():
            raise ValueError(f"layers table, line {number}: {line!r} is not 'LAYER PACKAGE TARGETS' nor a 'never' row")
        layer[parts[1]] = int(parts[0])
        wanted[parts[1]] = [] if parts[2:] == ["-"] else parts[2:]
    allowed: dict[str, frozenset[str]] = {}
    for package, targets in wanted.items():
        out: set[str] = set()
        for target in targets:
            span = re.fullmatch(r"L(\d+)(?:-L(\d+))?", target)
            if span:
                low, high = int(span.group(1)), int(span.group(2) or span.group(1))
                out |= {p for p, n in layer.items() if low <= n <= high and p != package}
            elif target in layer:
                out.add(target)
            else:
                raise ValueError(f"layers table: {package} may import {target!r}, which has no row")
        allowed[package] = frozenset(out)
    for importer, target in never:
        if importer not in layer or target not in layer:
            raise ValueError(f"layers table: 'never {importer} {target}' names a package with no row")
        if target in wanted[importer]:
            raise ValueError(f"layers table: {importer}'s row names {target}, which a never row closes")
    # a never row closes its edge whatever a layer range (``L0``) in the importer's row opens
    allowed = {p: frozenset(t for t in targets if (p, t) not in never) for p, targets in allowed.items()}
    return Layers(layer, allowed, never)


LAYERS = parse_layers(table_text(DESIGN.read_text(encoding="utf-8")))
#: package (or layer-0 module) -> the packages and layer-0 modules it may import.
ALLOWED: dict[str, frozenset[str]] = LAYERS.allowed


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


#: The calls that import a module named by a string: ``importlib.import_module``, ``__import__``.
_IMPORT_CALLS = ("import_module", "__import__")


def named_import(call: ast.Call) -> str | None:
    """The module an ``importlib.import_module(...)`` / ``__import__(...)`` call names, or None.

    A string literal is the module (a relative one resolved against a literal ``package=``); an
    f-string names the package its fixed head spells (``f"mmmu_eval.cli.{name}"``: ``mmmu_eval.cli``).
    A name held in a variable cannot be read here and is left to the registry tables that hold it.
    """
    func = call.func
    called = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None
    if called not in _IMPORT_CALLS or not call.args:
        return None
    first = call.args[0]
    if isinstance(first, ast.Constant) and isinstance(first.value, str):
        name = first.value
    elif isinstance(first, ast.JoinedStr):
        head = ""
        for part in first.values:
            if not (isinstance(part, ast.Constant) and isinstance(part.value, str)):
                break
            head += part.value
        name = head.rpartition(".")[0] if "." in head else ""
    else:
        return None
    if name.startswith("."):
        package = next((k.value for k in call.keywords if k.arg == "package"), None)
        if not (isinstance(package, ast.Constant) and isinstance(package.value, str)):
            return None
        name = importlib.util.resolve_name(name, package.value)
    return name or None


def source_segment(lines: list[str], node: ast.AST) -> str:
    """``ast.get_source_segment`` on a source already split into lines (``lines_of``): that function
    splits the whole file again at each call, in Python, which made this module's collection
    cost seconds of CPU (paid again by every pytest-xdist worker)."""
    head, tail = node.lineno - 1, node.end_lineno - 1
    if head == tail:
        return lines[head].encode()[node.col_offset:node.end_col_offset].decode()
    first = lines[head].encode()[node.col_offset:].decode()
    last = lines[tail].encode()[:node.end_col_offset].decode()
    return "".join([first, *lines[head + 1:tail], last])


def lines_of(source: str) -> list[str]:
    """The lines of ``source`` with their ends, split where ``ast`` counts lines (``\\n``, ``\\r\\n``, ``\\r``)."""
    return re.split(r"(?<=\n)|(?<=\r)(?!\n)", source)


def imports_of(module: str, path: Path) -> list[Import]:
    """Every import of our package in one module, wherever it stands in the file."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    lines = lines_of(path.read_text(encoding="utf-8"))
    is_package = path.name == "__init__.py"
    found: list[Import] = []

    def visit(node: ast.AST, deferred: bool) -> None:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            text = source_segment(lines, node)
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
        if isinstance(node, ast.Call):
            named = named_import(node)
            if named is not None and (named == PACKAGE or named.startswith(PACKAGE + ".")):
                text = " ".join(source_segment(lines, node).split())
                found.append(Import(module, node.lineno, named, text, deferred))
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
    """The row of ``ALLOWED`` a module falls under: a module of the ground floor with a row of its
    own (``core.config``), else its top-level package (``core`` for the ground floor's package)."""
    parts = module.split(".")
    if len(parts) > 2 and f"{parts[1]}.{parts[2]}" in ALLOWED:
        return f"{parts[1]}.{parts[2]}"
    return parts[1] if len(parts) > 1 else "__init__"


def upward_imports(imports: list[Import]) -> list[Import]:
    """The imports that leave the importer's package for one it may not use."""
    bad = []
    for imp in imports:
        source, target = package_of(imp.module), package_of(imp.target)
        if source != target and target not in ALLOWED[source]:
            bad.append(imp)
    return bad


def forbidden_imports(imports: list[Import]) -> list[tuple[Import, str]]:
    """The imports that take an edge the table names as never allowed, each with the table's reason."""
    bad = []
    for imp in imports:
        why = LAYERS.never.get((package_of(imp.module), package_of(imp.target)))
        if why is not None:
            bad.append((imp, why))
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
    assert not bad, "imports that break the layers (docs/design.md, Layers):\n" + "\n".join(
        f"  {imp}  [{package_of(imp.module)} may not import {package_of(imp.target)}]" for imp in bad)


def test_no_import_takes_an_edge_that_stays_closed():
    bad = forbidden_imports(ALL_IMPORTS)
    assert not bad, "imports the layers table names as never allowed:\n" + "\n".join(
        f"  {imp}  [never {package_of(imp.module)} -> {package_of(imp.target)}: {why}]" for imp, why in bad)


def test_no_module_imports_itself_round_a_circle():
    """Deferred imports count here too: one inside a function only hides a circle until it is called."""
    cycle = import_cycle(ALL_IMPORTS)
    assert cycle is None, "import circle: " + " -> ".join(cycle or ())


def test_the_table_is_layered():
    """The table itself has no circle: were two packages allowed to import each other, the test
    above could not keep their modules apart. Each row reaches only its own layer or below, and
    an edge a ``never`` row closes is closed even where a range (``L0``) would open it."""
    for package, allowed in ALLOWED.items():
        for other in allowed:
            assert package not in ALLOWED[other], f"{package} and {other} may import each other"
            assert LAYERS.layer[other] <= LAYERS.layer[package], f"{package} (L{LAYERS.layer[package]}) may import {other} (L{LAYERS.layer[other]}), above it"
            assert (package, other) not in LAYERS.never, f"{package} may import {other}, which a never row closes"
    assert "core.config" not in ALLOWED["backends"] and "core.records" in ALLOWED["backends"]


def test_the_table_says_what_the_design_promises():
    """The edges the design names: the score stage is pure, the statistics import no stage, the
    RL environment is light, and the pages show the results and the Diagnosis without owning them."""
    ground = {p for p, n in LAYERS.layer.items() if n == 0}
    assert ground == {"core"} | {p for p in LAYERS.layer if p.startswith("core.")}
    assert not ALLOWED["scoring"] & {"store", "backends", "results", "rendering", "doctor", "run"}
    assert ALLOWED["stats"] == ground
    assert ALLOWED["environments"] == ground | {"dataset", "prompt", "scoring"}
    assert ALLOWED["run"] >= {"dataset", "prompt", "backends", "store", "scoring", "results", "rendering"}
    assert "doctor" in ALLOWED["rendering"] and not ALLOWED["doctor"] & {"rendering", "run", "suite"}
    assert not ALLOWED["results"] & {"rendering", "doctor"}
    assert ALLOWED["__main__"] == {"cli"}


@pytest.mark.parametrize("row, problem", [
    ("0 errors", "is not 'LAYER PACKAGE TARGETS'"),
    ("store 4 L0", "is not 'LAYER PACKAGE TARGETS'"),
    ("3 backends L0 nowhere", "'nowhere', which has no row"),
    ("never score store", "is not 'never IMPORTER TARGETS -- WHY'"),
    ("never score nowhere -- why", "names a package with no row"),
    ("1  dataset  L0\n6  report  L0 dataset\nnever  report  dataset  -- why", "report's row names dataset, which a never row closes"),
])
def test_a_bad_row_of_the_table_is_named(row, problem):
    with pytest.raises(ValueError, match=re.escape(problem)):
        parse_layers("0  errors  -\n0  records  errors\n4  store  L0\n5  score  L0\n" + row)


def test_the_table_is_read_from_the_design_page():
    page = DESIGN.read_text(encoding="utf-8")
    assert table_text(page).splitlines()[0].startswith("#")
    with pytest.raises(ValueError, match="no '<!-- layers"):
        table_text(page.replace(TABLE_MARK, ""))
    text = "0  errors  -\n1  dataset  L0\n2  prompt  L0-L1\n3  report  L0 prompt\nnever  report  dataset  -- because\n"
    layers = parse_layers(text)
    assert layers.allowed == {"errors": frozenset(), "dataset": {"errors"}, "prompt": {"errors", "dataset"},
                              "report": {"errors", "prompt"}}
    assert layers.never == {("report", "dataset"): "because"}


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
    ("from mmmu_eval.results.results_json import Results\n", False),
    ("def f():\n    from mmmu_eval.results import results_json\n", True),
    ("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from mmmu_eval.results.results_json import Results\n", True),
    ("import typing\nif typing.TYPE_CHECKING:\n    import mmmu_eval.results.results_json\n", True),
    ("from ..results.results_json import Results\n", False),
])
def test_an_upward_import_is_found_wherever_it_stands(tmp_path, text, deferred):
    imports = _scan(tmp_path, {"mmmu_eval.scoring.example": text})
    bad = upward_imports(imports)
    assert [(b.module, b.target, b.deferred) for b in bad] == [
        ("mmmu_eval.scoring.example", "mmmu_eval.results.results_json", deferred)]
    assert "mmmu_eval.scoring.example (line " in str(bad[0]) and "results" in str(bad[0])


@pytest.mark.parametrize("text, target", [
    ("import importlib\ndef f():\n    return importlib.import_module('mmmu_eval.store.rundir')\n", "mmmu_eval.store.rundir"),
    ("from importlib import import_module\nX = import_module('mmmu_eval.store')\n", "mmmu_eval.store"),
    ("import importlib\nX = importlib.import_module('.rundir', package='mmmu_eval.store')\n", "mmmu_eval.store.rundir"),
    ("def f(name):\n    return __import__(f'mmmu_eval.store.{name}')\n", "mmmu_eval.store"),
    ("import builtins\nX = builtins.__import__('mmmu_eval.store.rundir', fromlist=['RunStore'])\n", "mmmu_eval.store.rundir"),
])
def test_an_import_by_name_is_found(tmp_path, text, target):
    """``importlib`` and ``__import__`` with our module named in a string count as imports."""
    imports = _scan(tmp_path, {"mmmu_eval.scoring.example": text})
    assert [i.target for i in upward_imports(imports)] == [target]
    assert [i.target for i, _ in forbidden_imports(imports)] == [target]


def test_an_import_by_name_of_another_package_is_not_ours(tmp_path):
    imports = _scan(tmp_path, {"mmmu_eval.scoring.example": (
        "import importlib\nX = importlib.import_module('json')\nY = importlib.import_module(NAME)\n")})
    assert imports == []


def test_the_package_root_is_the_top():
    """``import mmmu_eval`` from inside the package (for its version, say) reaches above every stage."""
    bad = upward_imports([Import("mmmu_eval.backends.example", 3, "mmmu_eval", "import mmmu_eval", True)])
    assert len(bad) == 1


def test_a_circle_is_found(monkeypatch):
    monkeypatch.setitem(MODULES, "mmmu_eval.scoring.a", Path("a.py"))
    monkeypatch.setitem(MODULES, "mmmu_eval.scoring.b", Path("b.py"))
    imports = [Import("mmmu_eval.scoring.a", 1, "mmmu_eval.scoring.b", "", False),
               Import("mmmu_eval.scoring.b", 9, "mmmu_eval.scoring.a", "", True)]
    assert import_cycle(imports) == ["mmmu_eval.scoring.a", "mmmu_eval.scoring.b", "mmmu_eval.scoring.a"]
    assert import_cycle(imports[:1]) is None
