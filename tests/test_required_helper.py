"""fakes.required, the one helper for checks that need something outside the package.

Each case runs pytest on a small test folder in a subprocess, as CI would, and reads its summary:
a missing module skips locally and fails under CI=true; a module-level call (which pytest.skip
alone turns into "Interrupted: 1 error during collection", stopping every other test) skips only
its own module; a module left out of the venv on purpose (MMMU_EVAL_TESTS_WITHOUT) skips even
under CI.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).parent

AT_MODULE_LEVEL = """
from fakes import required
required.module("no_such_module_here.sub", "this check needs no_such_module_here")

def test_never_runs():
    raise AssertionError("the module should have been skipped")
"""
IN_A_TEST = """
from fakes import required

def test_needs_it():
    required.module("no_such_module_here", "this check needs no_such_module_here")
"""
OTHER = """
def test_the_other_module_still_runs():
    pass
"""


def run_pytest(folder: Path, **env: str) -> str:
    environment = {k: v for k, v in os.environ.items() if k not in ("CI", "MMMU_EVAL_TESTS_WITHOUT", "PYTEST_ADDOPTS")}
    environment.update(env, PYTHONPATH=os.pathsep.join([str(TESTS), environment.get("PYTHONPATH", "")]))
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider", "--rootdir", str(folder), str(folder)],
                          capture_output=True, text=True, env=environment, cwd=folder, timeout=120)
    return done.stdout + done.stderr


@pytest.fixture
def folder(tmp_path):
    (tmp_path / "test_other.py").write_text(OTHER)
    return tmp_path


def test_a_module_level_call_skips_its_module_and_the_rest_runs(folder):
    (folder / "test_needs_it.py").write_text(AT_MODULE_LEVEL)
    out = run_pytest(folder)
    assert "Interrupted" not in out and "error" not in out.lower(), out
    assert "1 passed, 1 skipped" in out and "this check needs no_such_module_here" in out, out


def test_under_ci_a_missing_module_fails_with_the_reason(folder):
    (folder / "test_needs_it.py").write_text(IN_A_TEST)
    assert "1 passed, 1 skipped" in run_pytest(folder)
    out = run_pytest(folder, CI="true")
    assert "1 failed, 1 passed" in out, out
    assert "CI is set, so this check must run, but this check needs no_such_module_here" in out, out


@pytest.mark.parametrize("case", [IN_A_TEST, AT_MODULE_LEVEL], ids=["in-a-test", "at-module-level"])
def test_a_module_left_out_on_purpose_skips_even_under_ci(folder, case):
    (folder / "test_needs_it.py").write_text(case)
    out = run_pytest(folder, CI="true", MMMU_EVAL_TESTS_WITHOUT="verifiers no_such_module_here")
    assert "1 passed, 1 skipped" in out, out
    assert "left out of this venv on purpose" in out, out
    named_others = run_pytest(folder, CI="true", MMMU_EVAL_TESTS_WITHOUT="verifiers")
    assert "1 failed" in named_others or "1 error" in named_others, "only the modules named are left out on purpose"
