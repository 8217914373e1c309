"""The top-level package exposes exactly its documented surface, sorted, and stays light."""

import subprocess
import sys
import types

import mmmu_eval


def test_all_is_sorted_and_complete():
    """Names load on first use (PEP 562), so ``dir`` is the surface, not what is loaded so far."""
    public = {
        name
        for name in dir(mmmu_eval)
        if not name.startswith("_") and not isinstance(getattr(mmmu_eval, name), types.ModuleType)
    }
    assert mmmu_eval.__all__ == sorted(set(mmmu_eval.__all__))
    assert public | {"__version__"} == set(mmmu_eval.__all__)


def test_every_exported_name_resolves():
    for name in mmmu_eval.__all__:
        assert getattr(mmmu_eval, name) is not None, name


def test_importing_the_package_loads_no_heavy_engine():
    """A notebook import must not pay for torch, transformers or vllm."""
    code = (
        "import sys, mmmu_eval; "
        "print(','.join(m for m in ('torch', 'transformers', 'vllm') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_version_matches_the_distribution():
    from importlib.metadata import version

    assert mmmu_eval.__version__ == version("mmmu-eval")
