"""A damaged manifest.json: one line that names the file and says what can be done."""

import json

from mmmu_eval.cli.main import main


def _sample_run(tmp_path):
    out = tmp_path / "run"
    assert main(["run", "--split", "dev", "--data", "sample", "--model", "random", "--out", str(out), "--no-html"]) == 0
    return out


def test_a_manifest_that_is_not_json_says_what_to_do(tmp_path, capsys):
    """The error stopped at the JSON decoder's words, with no way forward."""
    out = _sample_run(tmp_path)
    (out / "manifest.json").write_text('{"status": ')
    capsys.readouterr()
    assert main(["score", str(out)]) == 1
    err = capsys.readouterr().err
    assert f"{out / 'manifest.json'}: cannot be read (" in err
    assert "restore it from a copy, or start again with a new --out" in err


def test_score_of_a_manifest_without_config_names_it_instead_of_going_to_the_hub(tmp_path, capsys):
    """A manifest without 'config' made every setting fall back to its default, so `score` of an
    offline sample run tried the Hugging Face hub and failed with a network error."""
    out = _sample_run(tmp_path)
    (out / "manifest.json").write_text(json.dumps({"status": "complete"}))
    capsys.readouterr()
    assert main(["score", str(out)]) == 1
    err = capsys.readouterr().err
    assert f"{out / 'manifest.json'}: has no 'config', so which data the run used is unknown" in err
    assert "hub" not in err
