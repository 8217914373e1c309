"""The audit over run directories and folders of runs (a suite's shape), as `mmmu-eval run` writes them."""

from __future__ import annotations

import pytest

from mmmu_eval import ConfigError, audit, evaluate
from mmmu_eval.run.progress import NullDisplay


@pytest.fixture(scope="module")
def runs_folder(tmp_path_factory):
    root = tmp_path_factory.mktemp("runs")
    for model in ("random", "frequent"):
        for setting in ("standard-10", "standard-4"):
            evaluate(model=model, benchmark="mmmu-pro", setting=setting, data="sample", out=str(root / f"{model}-{setting}"),
                     display=NullDisplay(), html=False, seed=1)
    return root


def test_run_directories_and_a_folder_of_runs_are_read_alike(runs_folder):
    one_by_one = audit(sorted(str(p) for p in runs_folder.iterdir()), irt=False)
    as_folder = audit([runs_folder], irt=False)
    assert [r.name for r in as_folder.runs] == [r.name for r in one_by_one.runs]
    assert {(r.model, r.setting) for r in as_folder.runs} == {
        (m, s) for m in ("random", "frequent") for s in ("standard-10", "standard-4")}
    assert all(r.revision == "bundled-0.1.0" and r.kind == "run" for r in as_folder.runs)
    assert as_folder.to_json()["suspects"] == one_by_one.to_json()["suspects"]
    frequent = next(r for r in as_folder.runs if r.model == "frequent" and r.setting == "standard-10")
    item = next(iter(frequent.items.values()))
    assert frequent.answers[item.id].choice in item.options  # the chosen option's text, not its letter


def test_a_path_that_does_not_exist_is_one_clear_error(tmp_path):
    with pytest.raises(ConfigError, match="no such file or folder"):
        audit([tmp_path / "nowhere"])
    with pytest.raises(ConfigError, match="at least one"):
        audit([])
