"""``mmmu-eval --version`` prints the package's one version string and exits 0."""

from __future__ import annotations

import pytest

from mmmu_eval.cli.main import main
from mmmu_eval.core.version import __version__


@pytest.mark.parametrize("flag", ["--version", "-V"])
def test_version_flag_prints_the_package_version(flag, capsys):
    with pytest.raises(SystemExit) as exc:
        main([flag])
    assert exc.value.code == 0
    assert capsys.readouterr().out.strip() == f"mmmu-eval {__version__}"
