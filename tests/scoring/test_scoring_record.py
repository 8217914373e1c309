"""One record of how a run is scored, and the same headline through every command.

What broke: ``run`` scored a ``--prompt boxed`` run with ``[boxed, official]`` (0 of 24), while
``report`` and ``compare`` rebuilt the scoring from a manifest key that ``run`` never wrote and
fell back to ``[official]`` (1 of 24); ``report --html`` on an intact boxed run showed a 0.0%
headline beside an item browser that marked one item correct. Now ``run`` writes
``manifest["scoring"]`` and ``score``, ``report``, ``report --html``, ``compare`` and ``merge`` read
it. Each run below is answered by a script whose correct answers are known item by item, so the
expected headline is counted here, not taken from the code under test.
"""

from __future__ import annotations

import json
import re
import shutil

import pytest

from mmmu_eval.run.pipeline import evaluate
from mmmu_eval.cli.main import main
from mmmu_eval.dataset.load import load_benchmark
from mmmu_eval.run.progress import NullDisplay
from mmmu_eval.scoring.spec import ScoringSpec

from fakes.scripted_backend import ScriptedBackend

ITEMS = load_benchmark("mmmu-pro", setting="standard-10", data="sample").items


def boxed_script() -> tuple[list[str], int]:
    """Every third item boxed with its gold letter (boxed: right), the others with a plain letter
    the boxed parser cannot see (boxed: wrong). Returns the script and the boxed-correct count."""
    script = []
    for i, item in enumerate(ITEMS):
        script.append(f"So \\boxed{{{item.answer}}}" if i % 3 == 0 else f"The answer is ({item.answer}).")
    return script, sum(1 for i in range(len(ITEMS)) if i % 3 == 0)


def unparseable_script() -> tuple[list[str], int]:
    """Even items answered with their gold letter, odd ones with text no parser reads a letter
    from. Under ``--fallback none`` the odd ones are wrong, so the count is the even items."""
    script = []
    for i, item in enumerate(ITEMS):
        script.append(f"The answer is ({item.answer})." if i % 2 == 0 else "hmm, no idea")
    return script, sum(1 for i in range(len(ITEMS)) if i % 2 == 0)


def cli(capsys, *argv: str) -> str:
    status = main(list(argv))
    out = capsys.readouterr().out
    assert status == 0, out
    return out


def headlines(run_dir, capsys, tmp_path) -> dict[str, float]:
    """The headline accuracy as each command gives it."""
    found = {"run": json.loads((run_dir / "results.json").read_text())["overall"]["accuracy"]}

    cli(capsys, "score", str(run_dir), "--save")
    found["score"] = json.loads((run_dir / "results.json").read_text())["overall"]["accuracy"]

    (run_dir / "results.json").unlink()  # report rebuilds it from the manifest's record
    found["report --json"] = json.loads(cli(capsys, "report", str(run_dir), "--json"))["overall"]["accuracy"]

    cli(capsys, "report", str(run_dir), "--html")
    page = (run_dir / "report.html").read_text()
    shown = re.search(r'id="headline">([0-9.]+)%<', page).group(1)
    found["report --html"] = float(shown) / 100
    rows = json.loads(re.search(r'id="items-data">(.*?)</script>', page, re.S).group(1))
    found["html item browser"] = sum(r["verdict"] == "correct" for r in rows) / len(rows)

    twin = tmp_path / "twin"
    shutil.copytree(run_dir, twin)
    (twin / "results.json").unlink()
    compared = json.loads(cli(capsys, "compare", str(run_dir), str(twin), "--json"))
    found["compare a"], found["compare b (rebuilt)"] = compared["acc_a"], compared["acc_b"]
    return found


def test_a_boxed_run_has_one_headline_everywhere(tmp_path, capsys):
    script, boxed_right = boxed_script()
    run_dir = tmp_path / "boxed"
    evaluate(model=ScriptedBackend(script), benchmark="mmmu-pro", setting="standard-10", prompt="boxed",
             data="sample", out=run_dir, display=NullDisplay())
    manifest = json.loads((run_dir / "manifest.json").read_text())
    assert manifest["scoring"] == {"parsers": ["boxed", "official"], "fallback": "official",
                                   "fallback_seed": 42, "answers": None}

    found = headlines(run_dir, capsys, tmp_path)
    expected = boxed_right / len(ITEMS)
    assert found == {name: pytest.approx(expected, abs=5e-4 if "html" in name else 1e-12) for name in found}


def test_a_fallback_none_run_counts_unparseable_answers_wrong_everywhere(tmp_path, capsys):
    script, parsed_right = unparseable_script()
    run_dir = tmp_path / "none"
    evaluate(model=ScriptedBackend(script), benchmark="mmmu-pro", setting="standard-10", fallback="none",
             data="sample", out=run_dir, display=NullDisplay())
    assert json.loads((run_dir / "manifest.json").read_text())["scoring"]["fallback"] == "none"
    results = json.loads((run_dir / "results.json").read_text())
    assert results["parse"]["fallback_policy"] == "none"
    assert results["parse"]["fallbacks"] == len(ITEMS) - parsed_right  # unparseable, and no letter drawn
    assert results["parsers"]["official"]["n"] == len(ITEMS)

    found = headlines(run_dir, capsys, tmp_path)
    expected = parsed_right / len(ITEMS)
    assert found == {name: pytest.approx(expected, abs=5e-4 if "html" in name else 1e-12) for name in found}


def test_a_run_with_its_own_fallback_seed_keeps_it_everywhere(tmp_path, capsys):
    """Seed 7's draws differ from seed 42's on these twelve fallbacks; every command uses 7."""
    script, parsed_right = unparseable_script()
    run_dir = tmp_path / "seed7"
    result = evaluate(model=ScriptedBackend(script), benchmark="mmmu-pro", setting="standard-10",
                      fallback_seed=7, data="sample", out=run_dir, display=NullDisplay())
    assert result.results["parse"]["fallback_seed"] == 7
    assert result.results["parse"]["deterministic_correct"] == parsed_right
    assert result.results["parse"]["fallbacks"] == len(ITEMS) - parsed_right

    seed42 = ScoringSpec.for_mode("direct").score(ITEMS, dict(_stored(run_dir)))
    assert seed42.aggregates["official"].overall.correct != result.results["overall"]["correct"], (
        "the test needs seeds whose draws differ; pick another seed"
    )
    found = headlines(run_dir, capsys, tmp_path)
    assert found == {name: pytest.approx(result.accuracy, abs=5e-4 if "html" in name else 1e-12) for name in found}


def test_score_with_new_flags_becomes_the_runs_scoring(tmp_path, capsys):
    """``score --parser strict --save`` rewrites results.json; report must then follow it, not the old record."""
    script, _ = boxed_script()
    run_dir = tmp_path / "boxed"
    evaluate(model=ScriptedBackend(script), benchmark="mmmu-pro", setting="standard-10", prompt="boxed",
             data="sample", out=run_dir, display=NullDisplay(), html=False)
    out = cli(capsys, "score", str(run_dir), "--parser", "official", "--fallback", "none", "--save")
    assert "the run's scoring is now: parsers official; fallback none" in out
    manifest = json.loads((run_dir / "manifest.json").read_text())
    assert manifest["scoring"]["parsers"] == ["official"] and manifest["scoring"]["fallback"] == "none"
    scored = json.loads((run_dir / "results.json").read_text())
    reported = json.loads(cli(capsys, "report", str(run_dir), "--json"))
    assert reported["overall"] == scored["overall"] and list(reported["parsers"]) == ["official"]


def test_an_old_run_directory_without_the_record_gets_its_modes_defaults(tmp_path, capsys):
    script, boxed_right = boxed_script()
    run_dir = tmp_path / "old"
    evaluate(model=ScriptedBackend(script), benchmark="mmmu-pro", setting="standard-10", prompt="boxed",
             data="sample", out=run_dir, display=NullDisplay(), html=False)
    manifest = json.loads((run_dir / "manifest.json").read_text())
    del manifest["scoring"]
    (run_dir / "manifest.json").write_text(json.dumps(manifest))
    (run_dir / "results.json").unlink()
    reported = json.loads(cli(capsys, "report", str(run_dir), "--json"))
    assert list(reported["parsers"]) == ["boxed", "official"]
    assert reported["overall"]["correct"] == boxed_right


def test_stale_results_scored_another_way_are_rebuilt_by_report(tmp_path, capsys):
    """A results.json whose parsers differ from the record (written by an older version) is not shown."""
    script, boxed_right = boxed_script()
    run_dir = tmp_path / "stale"
    evaluate(model=ScriptedBackend(script), benchmark="mmmu-pro", setting="standard-10", prompt="boxed",
             data="sample", out=run_dir, display=NullDisplay(), html=False)
    results = json.loads((run_dir / "results.json").read_text())
    results["parsers"] = {"official": results["parsers"]["official"]}
    results["overall"]["correct"] = -1
    (run_dir / "results.json").write_text(json.dumps(results))
    reported = json.loads(cli(capsys, "report", str(run_dir), "--json"))
    assert reported["overall"]["correct"] == boxed_right
    assert json.loads((run_dir / "results.json").read_text())["overall"]["correct"] == boxed_right


def test_run_refuses_an_unknown_parser_before_any_request():
    from mmmu_eval.core.config import RunConfig
    from mmmu_eval.core.errors import ConfigError

    with pytest.raises(ConfigError, match="parsers='boxy' is not one of"):
        RunConfig(model="random", parsers=("boxy",))
    with pytest.raises(ConfigError, match="fallback='never'"):
        RunConfig(model="random", fallback="never")


def test_a_damaged_scoring_record_is_named(tmp_path):
    from mmmu_eval.core.errors import StoreError

    with pytest.raises(StoreError, match="'scoring' entry is not valid"):
        ScoringSpec.from_manifest({"scoring": {"parsers": ["official"], "fallback": "sometimes"}})
    with pytest.raises(StoreError, match="'scoring' is list"):
        ScoringSpec.from_manifest({"scoring": []})


def _stored(run_dir):
    from mmmu_eval.store.rundir import RunStore

    return RunStore.read(run_dir).responses().items()


def test_the_same_run_command_again_keeps_the_scoring_that_score_recorded(tmp_path, capsys):
    """`score --parser official --fallback none` recorded a choice, then rerunning the run's command
    (a resume, to retry a failed item) wrote the mode's defaults back over it: the run's headline
    changed to [boxed, official] without anyone asking."""
    from mmmu_eval.core.errors import BackendError

    script, _ = boxed_script()
    run_dir = tmp_path / "boxed"
    settings = dict(benchmark="mmmu-pro", setting="standard-10", prompt="boxed", data="sample", out=run_dir,
                    display=NullDisplay(), html=False)
    first = evaluate(model=ScriptedBackend([*script[:5], BackendError("HTTP 503"), *script[6:]]), **settings)
    assert first.counts["error"] == 1
    cli(capsys, "score", str(run_dir), "--parser", "official", "--fallback", "none", "--save")

    second = evaluate(model=ScriptedBackend([script[5]]), resume=True, **settings)
    assert second.counts["ok"] == len(ITEMS)
    recorded = json.loads((run_dir / "manifest.json").read_text())["scoring"]
    assert (recorded["parsers"], recorded["fallback"]) == (["official"], "none")
    assert list(second.results["parsers"]) == ["official"] and second.results["parse"]["fallback_policy"] == "none"
    # The official parser reads "(X)" but no letter in "\boxed{X}": those are fallbacks, wrong under none.
    plain_right = sum(1 for i in range(len(ITEMS)) if i % 3 != 0)
    assert second.results["overall"]["correct"] == plain_right

    # A scoring flag given on the resumed command still wins over the record.
    evaluate(model=ScriptedBackend([]), resume=True, fallback_seed=7, **settings)
    recorded = json.loads((run_dir / "manifest.json").read_text())["scoring"]
    assert (recorded["parsers"], recorded["fallback"], recorded["fallback_seed"]) == (["official"], "none", 7)


def test_a_scoring_record_with_an_answers_entry_that_is_not_a_path_is_named():
    from mmmu_eval.core.errors import StoreError

    with pytest.raises(StoreError, match="'scoring' entry is not valid .*answers= must be a file path, not 5"):
        ScoringSpec.from_manifest({"scoring": {"parsers": ["official"], "answers": 5}})
    with pytest.raises(StoreError, match="'config' does not say how to score the run"):
        ScoringSpec.from_manifest({"config": {"prompt": "direct", "fallback_seed": "forty-two"}})
