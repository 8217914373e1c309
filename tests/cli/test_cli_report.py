"""``mmmu-eval report`` and ``mmmu-eval compare`` on run directories made with the real store.

Runs are built directly (manifest as the runner writes it: config, protocol, dataset; responses
appended through RunStore) on the bundled sample, or on a small test-split snapshot.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mmmu_eval.cli.main import main
from mmmu_eval.core.config import RunConfig
from mmmu_eval.dataset.load import load_benchmark
from mmmu_eval.prompt.protocol import EvalProtocol
from mmmu_eval.core.records import Response
from mmmu_eval.store.rundir import RunStore

from fakes.parquet_rows import mmmu_row, write_mmmu


def make_run(path: Path, answer, **config) -> Path:
    """A run of ``RunConfig(model="random", **config)`` whose answer to each item is ``answer(item)``.

    ``answer`` returns the response text, or None for an item left without a response.
    """
    cfg = RunConfig(model="random", **config)
    ds = load_benchmark(
        cfg.benchmark,
        split=cfg.resolved_split if cfg.benchmark == "mmmu" else None,
        setting=cfg.resolved_setting,
        data=cfg.data,
        subjects=cfg.subjects,
    )
    items = ds.items[: cfg.limit] if cfg.limit else ds.items
    manifest = {
        "config": cfg.to_manifest(),
        "protocol": EvalProtocol.from_config(cfg).describe(),
        "dataset": {"revision": ds.revision, "digest": ds.digest},
        "package_version": "0.1.0",
    }
    with RunStore.open(path, manifest, resume=False) as store:
        for item in items:
            text = answer(item)
            if text is not None:
                store.append(Response(item.id, "ok", text=text))
    return path


@pytest.fixture(autouse=True)
def wide_terminal(monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")


def gold_then_wrong(item) -> str:
    """Right on the first half of each subject's items, a wrong letter after (open: a wrong number)."""
    number = int(item.id.rsplit("_", 1)[1])
    if item.question_type != "multiple-choice":
        return "The answer is 123456789"
    if number % 2:
        return f"({item.answer})"
    wrong = next(c for c in item.choices if c != item.answer)
    return f"({wrong})"


def test_report_rebuilds_saves_and_then_reads_results(tmp_path, capsys):
    run = make_run(tmp_path / "run", gold_then_wrong, data="sample", split="validation")
    assert main(["report", str(run)]) == 0
    first = capsys.readouterr()
    assert "rebuilt and saved" in first.err
    assert "Official MMMU layout" in first.out and "Overall-Business" in first.out
    results = json.loads((run / "results.json").read_text())
    assert results["coverage"]["items"] == 40 and results["coverage"]["missing"] == 0
    items = load_benchmark("mmmu", split="validation", data="sample").items
    # gold_then_wrong: right on odd-numbered multiple-choice items, wrong everywhere else.
    right = sum(1 for it in items if it.question_type == "multiple-choice" and int(it.id.rsplit("_", 1)[1]) % 2)
    assert (results["overall"]["n"], results["overall"]["correct"]) == (40, right)
    assert results["overall"]["accuracy"] == right / 40 and 0 < right < 40
    assert results["run"]["protocol_fingerprint"] == EvalProtocol.from_config(
        RunConfig(model="random", data="sample")
    ).fingerprint()

    assert main(["report", str(run), "--json"]) == 0
    again = capsys.readouterr()
    assert "rebuilt" not in again.err
    assert json.loads(again.out) == results


def test_report_official_table_is_plain_text(tmp_path, capsys):
    run = make_run(tmp_path / "run", gold_then_wrong, data="sample", split="validation")
    assert main(["report", str(run), "--official-table"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("| Subject") and lines[-1].startswith("| Overall ")


def test_report_html_is_written_with_prompts_and_images(tmp_path, capsys):
    run = make_run(tmp_path / "run", gold_then_wrong, data="sample", split="validation", limit=6)
    assert main(["report", str(run), "--html"]) == 0
    assert "report.html" in capsys.readouterr().err
    page = (run / "report.html").read_text()
    data = json.loads(page.split('id="items-data">', 1)[1].split("</script>", 1)[0])
    assert len(data) == 6
    first_mc = next(row for row in data if row["type"] == "multiple-choice")
    assert first_mc["prompt"].endswith("Answer with the option's letter from the given choices directly.")
    assert any(im["src"] for row in data for im in row["images"])
    assert main(["report", str(run), "--html", "--no-images"]) == 0
    page = (run / "report.html").read_text()
    data = json.loads(page.split('id="items-data">', 1)[1].split("</script>", 1)[0])
    assert not any(im["src"] for row in data for im in row["images"])
    assert "base64," not in page


def test_report_refuses_a_directory_that_is_not_a_run(tmp_path, capsys):
    assert main(["report", str(tmp_path)]) == 1
    assert "is not a run directory" in capsys.readouterr().err


def test_compare_reports_a_paired_test(tmp_path, capsys):
    a = make_run(tmp_path / "a", gold_then_wrong, data="sample", split="validation")
    b = make_run(tmp_path / "b", lambda it: f"({it.answer})" if it.question_type == "multiple-choice" else "0",
                 data="sample", split="validation")
    assert main(["compare", str(a), str(b), "--json", "--bootstrap", "200"]) == 0
    out = json.loads(capsys.readouterr().out)
    ra = json.loads((a / "results.json").read_text()) if (a / "results.json").exists() else None
    assert out["shared"] == 40 and ra is None  # compare rebuilt in memory, wrote nothing
    assert out["a_only_right"] == 0 and out["b_only_right"] == len(out["flips"]) > 0
    assert out["mcnemar_p"] == pytest.approx(2 * 0.5 ** out["b_only_right"])
    assert out["difference"] < 0 and out["ci95"][0] <= out["difference"] <= out["ci95"][1]

    assert main(["compare", str(a), str(b)]) == 0
    text = capsys.readouterr().out
    assert "exact McNemar" in text and "By discipline" in text and "Items that flip" in text


def test_compare_refuses_different_protocols_unless_allowed(tmp_path, capsys):
    a = make_run(tmp_path / "a", gold_then_wrong, data="sample", split="validation", limit=4)
    b = make_run(tmp_path / "b", gold_then_wrong, data="sample", split="validation", limit=4, prompt="cot")
    assert main(["compare", str(a), str(b)]) == 2
    assert "--allow-different-protocols" in capsys.readouterr().err
    assert main(["compare", str(a), str(b), "--allow-different-protocols"]) == 0
    assert "different protocols" in capsys.readouterr().out


def test_compare_needs_two_runs(tmp_path, capsys):
    a = make_run(tmp_path / "a", gold_then_wrong, data="sample", split="validation", limit=2)
    assert main(["compare", str(a)]) == 2
    assert "at least two run directories" in capsys.readouterr().err


@pytest.fixture
def test_snapshot(tmp_path) -> Path:
    """A test split with withheld answers: two multiple-choice items and one open item."""
    root = tmp_path / "snap"
    write_mmmu(root, "Art", "test", [
        mmmu_row("test_Art_1", answer="?"),
        mmmu_row("test_Art_2", answer="?"),
        mmmu_row("test_Art_3", answer="?", question_type="open", options="[]", question="How many? <image 1>"),
    ])
    return root


def test_test_split_gives_a_submission_and_with_answers_a_score(tmp_path, test_snapshot, capsys):
    texts = {"test_Art_1": "(B)", "test_Art_2": "(C)", "test_Art_3": "It is 1/4"}
    run = make_run(tmp_path / "run", lambda it: texts[it.id], data=str(test_snapshot), split="test", subjects=("Art",))
    assert main(["report", str(run), "--submission"]) == 0
    captured = capsys.readouterr()
    assert "No gold answers" in captured.out
    # One rule for results.json (run/outputs.py): the run's recorded scoring is saved, void or not,
    # as `run` and `score --save` save it; before, report alone kept an ungraded one unsaved.
    saved = json.loads((run / "results.json").read_text())
    assert saved["gold_available"] is False
    assert "rebuilt and saved" in captured.err
    # "It is 1/4": the official open parser's candidates are "1/4", 1.0, 4.0; the first is submitted.
    assert json.loads((run / "submission.json").read_text()) == {"test_Art_1": "B", "test_Art_2": "C", "test_Art_3": "1/4"}

    answers = tmp_path / "answer_dict_test.json"
    answers.write_text(json.dumps({
        "test_Art_1": {"question_type": "multiple-choice", "ground_truth": "B"},
        "test_Art_2": {"question_type": "multiple-choice", "ground_truth": "A"},
        "test_Art_3": {"question_type": "short-answer", "ground_truth": ["0.25", "1/4"]},
    }))
    (run / "results.json").unlink()
    assert main(["report", str(run), "--answers", str(answers), "--json"]) == 0
    scored = json.loads(capsys.readouterr().out)
    assert (scored["overall"]["n"], scored["overall"]["correct"]) == (3, 2)
    assert scored["gold_available"] is True
    # a one-off answer dict is not the run's recorded scoring: shown, never saved
    assert not (run / "results.json").exists()


def test_several_pro_runs_give_the_pro_headline(tmp_path, capsys):
    right = lambda it: f"Answer: {it.answer}"  # noqa: E731
    wrong = lambda it: "Answer: " + next(c for c in it.choices if c != it.answer)  # noqa: E731
    std = make_run(tmp_path / "std", right, benchmark="mmmu-pro", setting="standard-10", data="sample")
    vis = make_run(tmp_path / "vis", wrong, benchmark="mmmu-pro", setting="vision", data="sample")
    assert main(["report", str(std), str(vis)]) == 0
    out = capsys.readouterr().out
    assert "MMMU-Pro headline: 50.0%" in out  # mean of 100% (standard-10) and 0% (vision)


def test_several_runs_as_json_are_one_document_with_the_pro_headline(tmp_path, capsys):
    right = lambda it: f"Answer: {it.answer}"  # noqa: E731
    std = make_run(tmp_path / "std", right, benchmark="mmmu-pro", setting="standard-10", data="sample", limit=4)
    vis = make_run(tmp_path / "vis", right, benchmark="mmmu-pro", setting="vision", data="sample", limit=4)
    assert main(["report", str(std), str(vis), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert set(doc["runs"]) == {str(std), str(vis)}
    assert doc["mmmu_pro_headline"]["headline"] == 1.0


def test_compare_three_runs_compares_each_with_the_first(tmp_path, capsys):
    runs = [make_run(tmp_path / n, gold_then_wrong, data="sample", split="validation", limit=5) for n in "abc"]
    assert main(["compare", *map(str, runs), "--json", "--bootstrap", "50"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [(c["a"], c["b"]) for c in out] == [(str(runs[0]), str(runs[1])), (str(runs[0]), str(runs[2]))]
    assert all(c["difference"] == 0.0 and c["mcnemar_p"] == 1.0 for c in out)


def test_report_bootstrap_and_seed_set_the_intervals_of_a_rebuilt_results(tmp_path, capsys):
    import numpy as np

    run = make_run(tmp_path / "run", gold_then_wrong, data="sample", split="validation")
    assert main(["report", str(run), "--json", "--bootstrap", "0"]) == 0
    point = json.loads(capsys.readouterr().out)
    assert point["interval"]["resamples"] == 0
    # No resample: the bootstrap's interval is the point, of zero width, so the cell gets Wilson's.
    from mmmu_eval.stats.intervals import wilson_ci

    overall = point["overall"]
    assert overall["ci95"] == list(wilson_ci(overall["correct"], overall["n"])) and overall["ci_method"] == "wilson"

    (run / "results.json").unlink()
    assert main(["report", str(run), "--json", "--bootstrap", "300", "--bootstrap-seed", "5"]) == 0
    results = json.loads(capsys.readouterr().out)
    assert (results["interval"]["resamples"], results["interval"]["seed"]) == (300, 5)
    # The subject-stratified interval, computed here from the per-subject counts and seed 5.
    strata = [(row["n"], row["correct"]) for row in results["by_subject"].values()]
    counts = np.random.default_rng(5).binomial([n for n, _ in strata], [k / n for n, k in strata], size=(300, len(strata)))
    expected = [float(q) for q in np.quantile(counts.sum(axis=1) / 40, [0.025, 0.975])]
    assert results["overall"]["ci95"] == expected
    assert json.loads((run / "results.json").read_text())["interval"]["seed"] == 5  # what was saved


def test_report_image_budget_mb(tmp_path, capsys):
    run = make_run(tmp_path / "run", gold_then_wrong, data="sample", split="validation", limit=6)

    def images(*flags):
        assert main(["report", str(run), "--html", *flags]) == 0
        capsys.readouterr()
        page = (run / "report.html").read_text()
        return [im for row in json.loads(page.split('id="items-data">', 1)[1].split("</script>", 1)[0]) for im in row["images"]]

    assert all(im["src"] for im in images("--image-budget-mb", "64"))
    starved = images("--image-budget-mb", "0")
    assert starved and all(im["src"] is None and "budget" in im["note"] for im in starved)
    assert main(["report", str(run), "--html", "--image-budget-mb", "-1"]) == 2
    assert "--image-budget-mb must be 0 or more" in capsys.readouterr().err


def test_the_pro_headline_says_which_runs_it_leaves_out(tmp_path, capsys):
    right = lambda it: f"Answer: {it.answer}"  # noqa: E731
    std = make_run(tmp_path / "std", right, benchmark="mmmu-pro", setting="standard-10", data="sample", limit=4)
    again = make_run(tmp_path / "again", right, benchmark="mmmu-pro", setting="standard-10", data="sample", limit=4)
    boxed = make_run(tmp_path / "boxed", right, benchmark="mmmu-pro", setting="vision", data="sample", limit=4,
                     prompt="boxed")
    vis = make_run(tmp_path / "vis", right, benchmark="mmmu-pro", setting="vision", data="sample", limit=4)
    assert main(["report", str(std), str(again), str(boxed), str(vis)]) == 0
    captured = capsys.readouterr()
    err = " ".join(captured.err.split())
    assert f"{boxed}: prompt mode boxed is not part of the MMMU-Pro headline" in err
    assert f"two runs of standard-10 direct; using {again}" in err
    assert "MMMU-Pro headline: 100.0%" in captured.out
