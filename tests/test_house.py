"""The house's rules a reader relies on when guessing where a behaviour lives (docs/design.md).

- No two modules of the package share a file name, so a name in a traceback, a diff or a search
  result says which module it is. ``__init__.py`` repeats by nature; ``cli/<command>.py`` and
  ``commands/<command>.py`` are the two halves of one command (its flags and printing, its work)
  and share the command's name on purpose.
- No top-level package holds more than 12% of the source lines: a room that grows past it holds
  two jobs, and is split along its seam.
- ``tests/`` mirrors ``src/``: every test folder is named for a package (or is one of the
  folders of shared test code), so a change's tests are found by its path.

Read from the files, not by importing them.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "src" / "mmmu_eval"
TESTS = ROOT / "tests"
#: The largest share of the source lines one top-level package may hold.
MAX_SHARE = 0.12
#: File names every package may have.
REPEATABLE = {"__init__.py"}
#: Packages whose modules are the two halves of one command, each named for the command.
HALVES = ("cli", "commands")
#: Test folders that hold shared test code or whole-project checks, not one package's tests.
TEST_FOLDERS_OF_NO_PACKAGE = {"fakes", "fixtures", "docs", "packaging"}


def repeated_names(root: Path) -> dict[str, list[str]]:
    """``{file name: [its modules, relative to root]}`` for each name two modules share that
    ``REPEATABLE`` and the command halves do not excuse."""
    by_name: dict[str, list[str]] = defaultdict(list)
    for path in sorted(root.rglob("*.py")):
        by_name[path.name].append(path.relative_to(root).as_posix())
    out = {}
    for name, paths in by_name.items():
        if name in REPEATABLE or len(paths) < 2:
            continue
        if sorted(paths) == sorted(f"{half}/{name}" for half in HALVES):
            continue  # cli/report.py + commands/report.py: one command's two halves
        out[name] = paths
    return out


def package_shares(root: Path) -> dict[str, float]:
    """Each top-level package's share of the source lines (the root's own modules as ``.``)."""
    lines: Counter[str] = Counter()
    for path in root.rglob("*.py"):
        parts = path.relative_to(root).parts
        lines[parts[0] if len(parts) > 1 else "."] += len(path.read_text(encoding="utf-8").splitlines())
    total = sum(lines.values())
    return {package: n / total for package, n in lines.items()}


def test_no_two_modules_share_a_file_name():
    repeated = repeated_names(PACKAGE)
    assert not repeated, "modules that share a file name (name each for what it holds):\n" + "\n".join(
        f"  {name}: {', '.join(paths)}" for name, paths in sorted(repeated.items()))


def test_no_package_holds_more_than_its_share_of_the_source():
    shares = package_shares(PACKAGE)
    over = {p: s for p, s in shares.items() if s > MAX_SHARE}
    assert not over, "packages above {:.0%} of the source lines (split along a seam):\n".format(MAX_SHARE) + "\n".join(
        f"  {p}: {s:.1%}" for p, s in sorted(over.items()))


def test_every_test_folder_is_named_for_a_package():
    packages = {p.name for p in PACKAGE.iterdir() if (p / "__init__.py").is_file()}
    folders = {p.name for p in TESTS.iterdir() if p.is_dir() and not p.name.startswith((".", "__"))}
    strays = folders - packages - TEST_FOLDERS_OF_NO_PACKAGE
    assert not strays, f"test folders named for no package of src/mmmu_eval: {sorted(strays)}"


def test_the_rules_catch_what_they_name(tmp_path):
    """The checks themselves: a repeated name is found unless it is ``__init__.py`` or a command's
    two halves; a package above the share is found."""
    for path in ("a/__init__.py", "b/__init__.py", "a/page.py", "b/page.py", "cli/report.py",
                 "commands/report.py", "cli/merge.py", "run/merge.py"):
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text("x = 1\n", encoding="utf-8")
    assert repeated_names(tmp_path) == {"page.py": ["a/page.py", "b/page.py"], "merge.py": ["cli/merge.py", "run/merge.py"]}
    (tmp_path / "big").mkdir()
    (tmp_path / "big" / "all.py").write_text("x = 1\n" * 100, encoding="utf-8")
    shares = package_shares(tmp_path)
    assert shares["big"] > MAX_SHARE > shares["a"]
