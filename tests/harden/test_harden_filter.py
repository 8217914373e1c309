"""filter: text-only trials through the ordinary runner decide which questions go, as the paper's rule says.

The set (``fakes.mc_set``) has 18 questions whose gold letter is A on exactly ``A_IDS`` (7), the
most frequent letter; so the ``frequent`` baseline is right exactly there, every trial.
"""

from __future__ import annotations

import json
import random
from collections import Counter

import pytest

from fakes.fault_server import FaultServer
from fakes.mc_set import A_IDS, IDS, KnowsSome, write_mmmu_set
from mmmu_eval.dataset.load import load_benchmark
from mmmu_eval.core.errors import ConfigError
from mmmu_eval.harden import FilterSettings, harden_filter
from mmmu_eval.harden.filter import FilterRule, decide, default_min_models, sample_per_subject
from mmmu_eval.harden.trials import Outcome, parse_models
from mmmu_eval.core.records import Item
from mmmu_eval.store.rundir import RunStore


def kept_ids(out) -> list[str]:
    return [it.id for it in load_benchmark("mmmu-pro", setting="standard-4", data=out).items]


def test_three_frequent_and_one_random_exclude_exactly_the_questions_frequent_gets_right(mmmu_set, tmp_path, quiet):
    out = tmp_path / "hard"
    result = harden_filter(mmmu_set, out, FilterSettings(models="frequent,frequent,frequent,random", trials=4, per_subject=0), display=quiet)
    assert result.status == "complete" and result.exit_status == 0
    record = json.loads((out / "harden.json").read_text())
    decisions = {i: e["filter"]["decision"] for i, e in record["items"].items()}
    assert {i for i, d in decisions.items() if d == "excluded"} == A_IDS
    assert kept_ids(out) == [i for i in IDS if i not in A_IDS]
    entry = record["items"][sorted(A_IDS)[0]]["filter"]
    assert entry["answerable_by"] >= 3 and entry["models"]["m1-frequent"] == {
        "preds": ["A"] * 4, "correct": 4, "answered": 4, "failed": 0, "answerable": True}
    step = record["steps"]["filter"]
    assert step["min_models"] == 3 and "3 of 4 models (the paper's rule)" in step["rule"]
    assert step["counts"] == {"asked": 18, "excluded": 7, "undecided": 0, "kept_before_sampling": 11, "not_sampled": 0,
                              "kept": 11, "failed_trials": 0}
    assert step["accuracy"]["m1-frequent"] == {"original": 7 / 18, "filtered": 0.0}
    # The trials are ordinary run directories with the forced-choice prompt and a seed each.
    runs = step["runs"]
    assert len(runs) == 16 and len({r["seed"] for r in runs}) == 16
    manifest = RunStore.read(out / runs[0]["path"]).manifest()
    assert manifest["protocol"]["mode"] == "forced-choice" and manifest["protocol"]["official"] is False
    assert manifest["backend"]["images"] == "withheld"
    assert (out / runs[0]["path"] / "results.json").exists()
    random_preds = [e["filter"]["models"]["m4-random"]["preds"] for e in record["items"].values()]
    assert any(len(set(p)) > 1 for p in random_preds), "the seed varies per trial"


def test_the_kept_questions_keep_their_original_options_and_images(mmmu_set, tmp_path, quiet):
    out = tmp_path / "hard"
    harden_filter(mmmu_set, out, FilterSettings(models="frequent", trials=1, per_subject=0), display=quiet)
    original = {it.id: it for it in load_benchmark("mmmu", split="validation", data=mmmu_set).items}
    for item in load_benchmark("mmmu-pro", setting="standard-4", data=out).items:
        assert item.options == original[item.id].options and item.answer == original[item.id].answer
        assert item.images[0].load() == original[item.id].images[0].load()


def test_a_served_model_counts_as_a_model_and_min_models_scales(mmmu_set, tmp_path, quiet):
    knows = {"validation_Art_1", "validation_Art_2", "validation_Biology_5", "validation_Math_3"}
    with FaultServer(fault_rate=0.0, answer=KnowsSome(knows)) as server:
        models = f"frequent,frequent,openai:fake-model@{server.url}"
        three = harden_filter(mmmu_set, tmp_path / "three", FilterSettings(models=models, trials=3, per_subject=0), display=quiet)
        two = harden_filter(mmmu_set, tmp_path / "two", FilterSettings(models=models, trials=3, per_subject=0, min_models=2), display=quiet)
    excluded = lambda r: {i for i, e in r.record.items.items() if e["filter"]["decision"] == "excluded"}  # noqa: E731
    assert three.record.step("filter")["min_models"] == default_min_models(3) == 3
    assert excluded(three) == A_IDS & knows
    assert excluded(two) == A_IDS
    assert "set by --min-models" in two.record.step("filter")["rule"]


def test_running_the_same_filter_again_asks_nothing_already_answered(mmmu_set, tmp_path, quiet):
    with FaultServer(fault_rate=0.0, answer=KnowsSome(set())) as server:
        settings = FilterSettings(models=f"openai:fake-model@{server.url}", trials=2, per_subject=0)
        harden_filter(mmmu_set, tmp_path / "hard", settings, display=quiet)
        first, listings = sum(server.stats.values()), server.listings
        again = harden_filter(mmmu_set, tmp_path / "hard", settings, display=quiet)
        second = sum(server.stats.values()) - first
        listed_again = server.listings - listings
    assert first == 18 * 2 + 2, "each trial's items, plus one start-up probe per trial run"
    assert (second, listed_again) == (0, 0), "no request at all, not even the probes: every answer was stored"
    assert again.status == "complete" and kept_ids(tmp_path / "hard") == IDS


def test_sampling_per_subject_is_seeded_and_counts_what_was_not_drawn(mmmu_set, tmp_path, quiet):
    result = harden_filter(mmmu_set, tmp_path / "s0", FilterSettings(models="frequent", trials=1, per_subject=2), draw_seed=0, display=quiet)
    kept = kept_ids(tmp_path / "s0")
    assert Counter(i.split("_")[1] for i in kept) == {"Art": 2, "Biology": 2, "Math": 2}
    assert result.record.step("filter")["counts"]["not_sampled"] == 11 - 6
    entry = next(e["filter"] for i, e in result.record.items.items() if i not in A_IDS and i not in kept)
    assert entry["sampled"] is False and "not in the sample" in entry["reason"]
    items = load_benchmark("mmmu", split="validation", data=mmmu_set).items
    candidates = [it for it in items if it.id not in A_IDS]
    draws = {frozenset(sample_per_subject(candidates, 2, seed)[0]) for seed in range(6)}
    assert frozenset(kept) in draws and len(draws) > 1
    assert sample_per_subject(candidates, 2, 0) == sample_per_subject(candidates, 2, 0)


def test_each_subject_samples_from_its_own_generator(mmmu_set):
    """The documented draw, ``random.Random(f"{seed}:sample:{subject}").sample(ids, n)`` over the
    subject's ids in dataset order: anyone can reproduce the sample, and two subjects of the same
    size do not get the same positions."""
    items = load_benchmark("mmmu", split="validation", data=mmmu_set).items
    for seed in (0, 7):
        chosen, before = sample_per_subject(items, 2, seed)
        assert before == {"Art": 6, "Biology": 6, "Math": 6}
        for subject in ("Art", "Biology", "Math"):
            ids = [it.id for it in items if it.subject == subject]
            assert chosen & set(ids) == set(random.Random(f"{seed}:sample:{subject}").sample(ids, 2)), (seed, subject)


def test_bad_rows_are_left_out_and_the_exit_status_says_so(tmp_path, quiet):
    result = harden_filter(write_mmmu_set(tmp_path / "m", bad_rows=True), tmp_path / "hard", FilterSettings(models="frequent", trials=1, per_subject=0), display=quiet)
    assert result.status == "complete" and result.exit_status == 1
    assert {p.where for p in result.problems} == {"validation_Math_7", "validation_Math_8", "validation_Math_9", "validation_Math_10"}
    assert "4 item(s) left out" in result.summary()


@pytest.mark.parametrize("outcome, verdict", [
    (Outcome(["A"] * 6 + ["B"] * 4, 6, 0), True),      # 6 of 10: more than half
    (Outcome(["A"] * 5 + ["B"] * 5, 5, 0), False),     # 5 of 10: not more than half
    (Outcome(["A"] * 6, 6, 4), True),                  # already settled despite failures
    (Outcome(["A"] * 1 + ["B"] * 5, 1, 4), False),     # 1 + 4 failed cannot reach 6
    (Outcome(["A"] * 4 + ["B"] * 2, 4, 4), None),      # the failed trials could tip it
])
def test_answerable_means_right_in_more_than_half_of_the_trials(outcome, verdict):
    assert FilterRule(10, 3, 4).answerable(outcome) is verdict


def test_a_question_the_failed_trials_could_tip_is_undecided():
    item = Item("x_Art_1", "mmmu-pro", "test", "standard-4", "Art", "Art and Design", "Q", ("a", "b"), "A", "multiple-choice", ())
    sure, unsure = Outcome(["A"] * 2, 2, 0), Outcome(["A"], 1, 1)
    got = decide([item], {"m1": {"x_Art_1": sure}, "m2": {"x_Art_1": unsure}}, FilterRule(2, 2, 2))
    assert got["x_Art_1"]["decision"] == "undecided" and "m2 1 of 2" in got["x_Art_1"]["reason"]


@pytest.mark.parametrize("n, k", [(1, 1), (2, 2), (3, 3), (4, 3), (5, 4), (6, 5), (8, 6)])
def test_the_default_min_models_scales_the_papers_three_of_four(n, k):
    assert default_min_models(n) == k


def test_setup_errors_come_before_any_trial(mmmu_set, tmp_path, quiet):
    with pytest.raises(ConfigError, match="--min-models must be between 1 and the number of models"):
        harden_filter(mmmu_set, tmp_path / "a", FilterSettings(models="frequent,random", min_models=3), display=quiet)
    (tmp_path / "busy").mkdir()
    (tmp_path / "busy" / "notes.txt").write_text("mine")
    with pytest.raises(ConfigError, match="non-empty directory"):
        harden_filter(mmmu_set, tmp_path / "busy", FilterSettings(models="frequent"), display=quiet)
    harden_filter(mmmu_set, tmp_path / "hard", FilterSettings(models="frequent", trials=1), display=quiet)
    with pytest.raises(ConfigError, match="of another input"):
        harden_filter("sample", tmp_path / "hard", FilterSettings(models="frequent", trials=1), display=quiet)
    assert not (tmp_path / "a").exists()


def test_model_specs_take_their_own_endpoints():
    models = parse_models("openai:a@http://n1:8000/v1@http://n2:8000/v1,frequent,text-only:random,frequent", ["http://x/v1"])
    assert [m.label for m in models] == ["m1-openai-a", "m2-frequent", "m3-random", "m4-frequent"], "one model per entry, twice counts twice"
    assert [m.spec for m in models] == ["openai:a", "frequent", "text-only:random", "frequent"], "the endpoints are cut off the spec"
    assert models[0].base_urls == ("http://n1:8000/v1", "http://n2:8000/v1"), "a spec's own endpoints, in order"
    assert models[1].base_urls == ("http://x/v1",), "a spec without endpoints takes --base-url"
    assert parse_models("frequent")[0].base_urls is None
    assert [m.text_only_spec for m in models[1:3]] == ["text-only:frequent", "text-only:random"], "every trial is text-only, once"
    with pytest.raises(ConfigError, match="one or more model specs"):
        parse_models("frequent,,random")
