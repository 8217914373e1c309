"""results.json and suite.json are read by one reader (store.versioned.read_versioned), each with
its own words: no file is None; a damaged file, another schema version or a missing key is a
StoreError that names the file and says what to run again. The messages are pinned as they were."""

from __future__ import annotations

import json

import pytest

from mmmu_eval.core.errors import StoreError
from mmmu_eval.results.results_json import read_results
from mmmu_eval.suite.execute import read_summary


def _error(read, path) -> str:
    with pytest.raises(StoreError) as info:
        read(path)
    return str(info.value)


def test_results_json_none_damaged_and_other_version(tmp_path):
    file = tmp_path / "results.json"
    assert read_results(tmp_path) is None
    file.write_text("{", encoding="utf-8")
    assert _error(read_results, tmp_path).startswith(f"{file}: cannot read results (Expecting")
    assert _error(read_results, tmp_path).endswith("); delete it and run `mmmu-eval score RUN --save`")
    file.write_text(json.dumps({"schema_version": 2}), encoding="utf-8")
    assert _error(read_results, file) == f"{file}: schema_version 2 is not 1; re-create it with `mmmu-eval score RUN --save`"
    file.write_text("[]", encoding="utf-8")
    assert _error(read_results, file) == f"{file}: schema_version None is not 1; re-create it with `mmmu-eval score RUN --save`"
    file.write_text(json.dumps({"schema_version": 1, "overall": {}}), encoding="utf-8")
    assert read_results(tmp_path) == {"schema_version": 1, "overall": {}}


def test_suite_json_none_damaged_other_version_and_missing_model(tmp_path):
    file = tmp_path / "suite.json"
    assert read_summary(tmp_path) is None
    file.write_text("{", encoding="utf-8")
    assert _error(read_summary, tmp_path).startswith(f"{file}: cannot be read (Expecting")
    assert _error(read_summary, tmp_path).endswith("); delete it and run the suite command again")
    wrong = (f"{file}: is not a suite.json of schema version 1; delete it and run the suite command again "
             "(the run directories are kept)")
    for data in ({"schema_version": 2, "model": "random"}, {"schema_version": 1}, ["model"]):
        file.write_text(json.dumps(data), encoding="utf-8")
        assert _error(read_summary, tmp_path) == wrong, data
    file.write_text(json.dumps({"schema_version": 1, "model": "random"}), encoding="utf-8")
    assert read_summary(tmp_path) == {"schema_version": 1, "model": "random"}
