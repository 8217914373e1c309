"""Every ``>>>`` example in a docstring under src/ runs and shows what it says.

Each module's examples run as one doctest per docstring, in a temporary working directory (an
example that runs an evaluation writes its run directory there), with ``...`` matching any text
and runs of whitespace compared as one. An example that needs what a test cannot have (a server,
the hub, a GPU) is written as prose or as a plain code block without ``>>>``, never skipped.
"""

from __future__ import annotations

import doctest
import importlib
import importlib.util
import pkgutil

import pytest

import mmmu_eval

FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE

#: Examples that need an optional package: they run where it is installed, skip where a venv
#: leaves it out on purpose (``MMMU_EVAL_TESTS_WITHOUT``), and fail under CI anywhere else.
NEEDS = {
    "mmmu_eval.environments.mmmu.load_environment": "verifiers",
    "mmmu_eval.environments.mmmu_pro.load_environment": "verifiers",
}


def _modules() -> list[str]:
    names = [m.name for m in pkgutil.walk_packages(mmmu_eval.__path__, "mmmu_eval.")]
    # __main__ runs the CLI on import; the RL environments' verifiers glue imports verifiers,
    # which the side sessions leave out on purpose (its examples are collected where it exists).
    return ["mmmu_eval", *(n for n in names if not n.endswith("__main__"))]


def _has_prompt(name: str) -> bool:
    """Whether the module's source has a ``>>>`` at all: one without has no example, and is not
    imported at collection (the verifiers glue alone cost 2.5 s of CPU, paid again by every
    pytest-xdist worker)."""
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.origin or not spec.origin.endswith(".py"):
        return True
    with open(spec.origin, encoding="utf-8") as source:
        return ">>>" in source.read()


def _examples() -> list[tuple[str, str]]:
    found = []
    finder = doctest.DocTestFinder(exclude_empty=True)
    for name in _modules():
        if not _has_prompt(name):
            continue
        try:
            module = importlib.import_module(name)
        except ImportError:  # an optional dependency (verifiers, torch) this venv lacks
            continue
        found += [(name, test.name) for test in finder.find(module, name) if test.examples]
    return sorted(set(found))


EXAMPLES = _examples()


def test_the_package_has_examples_to_run():
    assert len(EXAMPLES) >= 40


@pytest.mark.parametrize("module_name, test_name", EXAMPLES, ids=[t for _, t in EXAMPLES])
def test_docstring_example(module_name, test_name, tmp_path, monkeypatch):
    if test_name in NEEDS:
        from fakes import required

        required.module(NEEDS[test_name], f"the example of {test_name} builds a verifiers environment")
    monkeypatch.chdir(tmp_path)
    module = importlib.import_module(module_name)
    (test,) = [t for t in doctest.DocTestFinder().find(module, module_name) if t.name == test_name]
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    report: list[str] = []
    result = runner.run(test, out=report.append)
    assert result.failed == 0, "".join(report)
