"""`mmmu-eval rescore --out`: a normal run directory that report, score, compare and the HTML report work on."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fakes.harness_outputs import write_json, write_jsonl

from mmmu_eval.cli.main import main



def _log(tmp_path: Path) -> Path:
    """An lmms-eval log: two items right on both sides, one where its letter differs from the official one."""
    def sample(doc_id, item_id, response, answer, parsed):
        acc = {"id": item_id, "subdomain": "Accounting", "question_type": "multiple-choice", "answer": answer,
               "parsed_pred": [parsed]}
        return {"doc_id": doc_id, "filtered_resps": response, "input": f"prompt of {item_id}", "mmmu_acc": acc,
                "mmmu_acc_pass_at_k": acc}

    return write_jsonl(tmp_path / "logs" / "20250101_samples_mmmu_val.jsonl", [
        sample(1, "validation_Accounting_2", "The answer is B.", "B", "B"),
        sample(2, "validation_Accounting_3", "A", "A", "A"),
        sample(36, "validation_Public_Health_1", "The picture shows a juniper tree on a hill (see note E.)", "B", "E"),
    ])


@pytest.fixture
def rescored(tmp_path, capsys):
    run = tmp_path / "runs" / "lmms"
    assert main(["rescore", str(_log(tmp_path)), "--data", "sample", "--partial", "--out", str(run)]) == 0
    return run, capsys.readouterr().out


def test_terminal_summary_official_beside_the_harness(rescored):
    _, out = rescored
    assert "format: lmms-eval (recognised: a JSONL row with doc_id and filtered_resps)" in out
    assert "joined 3 row(s) to Benchmark(mmmu validation" in out
    assert "3/3 correct = 1.0000 (95% CI" in out
    assert "lmms-eval per-item verdicts: 2/3 = 0.6667; official parser on the same items 3/3 = 1.0000 (+33.33 points)" in out
    assert "validation_Public_Health_1: letter; official B (right), lmms-eval E (wrong)" in out


def test_the_run_directory_holds_what_a_run_holds(rescored):
    run, _ = rescored
    for name in ("manifest.json", "responses.jsonl", "results.json", "predictions.jsonl", "report.html", "harness.jsonl"):
        assert (run / name).is_file(), name
    manifest = json.loads((run / "manifest.json").read_text())
    assert manifest["scoring"] == {"parsers": ["official"], "fallback": "official", "fallback_seed": 42, "answers": None}
    assert manifest["dataset"]["source"] == "sample" and manifest["config"]["data"] == "sample"
    assert manifest["rescored_from"]["format"] == "lmms-eval" and manifest["rescored_from"]["files"][0]["sha256"]
    # 3 rows of a 40-item split (rescored with --partial): the run directory says it is incomplete.
    assert manifest["status"] == "incomplete" and manifest["counts"]["ok"] == 3
    assert len(manifest["rescored_from"]["missing"]) == 37
    results = json.loads((run / "results.json").read_text())
    assert results["run"]["rescored_from"] == "lmms-eval" and results["overall"]["correct"] == 3
    assert results["harness"]["causes"]["letter"]["items"] == 1
    page = (run / "report.html").read_text()
    assert 'id="harness"' in page and "Verdicts differ from the harness (1)" in page
    assert "prompt of validation_Public_Health_1" in page     # the harness's prompt, not ours


def test_report_score_and_html_keep_the_harness(rescored, capsys):
    run, _ = rescored
    assert main(["report", str(run)]) == 0
    assert "lmms-eval per-item verdicts: 2/3" in capsys.readouterr().out
    (run / "results.json").unlink()
    assert main(["report", str(run), "--html"]) == 0             # rebuilt from the stored responses
    rebuilt = json.loads((run / "results.json").read_text())
    assert rebuilt["harness"]["differing"] == 1
    assert "Verdicts differ from the harness (1)" in (run / "report.html").read_text()
    assert main(["score", str(run), "--parser", "official", "--parser", "strict", "--save"]) == 0
    assert json.loads((run / "results.json").read_text())["harness"]["items"][0]["cause"] == "letter"


def test_compare_with_our_own_run_explains_what_it_measures(rescored, tmp_path, capsys):
    run, _ = rescored
    ours = tmp_path / "runs" / "ours"
    assert main(["run", "--benchmark", "mmmu", "--split", "validation", "--data", "sample", "--model", "random",
                 "--out", str(ours), "--no-html"]) == 0
    capsys.readouterr()
    assert main(["compare", str(ours), str(run), "--json"]) == 0
    comparison = json.loads(capsys.readouterr().out)
    assert comparison["shared"] == 3 and comparison["only_a"] == 37
    assert any("lmms-eval responses rescored here" in w for w in comparison["warnings"])


def test_rescoring_into_an_existing_run_is_refused(rescored, tmp_path, capsys):
    run, _ = rescored
    assert main(["rescore", str(_log(tmp_path)), "--data", "sample", "--partial", "--out", str(run)]) == 1
    assert "already holds a run" in capsys.readouterr().err


def test_official_files_keep_their_items_in_the_run(tmp_path, capsys):
    folder = tmp_path / "qwen"
    write_json(folder / "Art" / "output.json", [
        {"id": "validation_Art_1", "question_type": "multiple-choice", "answer": "A", "all_choices": ["A", "B"],
         "index2ans": {"A": "x", "B": "y"}, "response": "(A)"},
        {"id": "validation_Art_2", "question_type": "short-answer", "answer": "12", "response": "so it is 12"},
    ])
    run = tmp_path / "runs" / "official"
    assert main(["rescore", str(folder), "--out", str(run), "--no-html"]) == 0
    assert (run / "items.jsonl").is_file()
    assert json.loads((run / "manifest.json").read_text())["dataset"]["source"] == "file"
    capsys.readouterr()
    assert main(["report", str(run), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["overall"]["correct"] == 2


#: The official repository's own MMMU-Pro outputs, as published (../shared/fidelity/mmmu-pro).
OFFICIAL_PRO = Path(__file__).resolve().parents[2].parent / "shared" / "fidelity" / "mmmu-pro"


def test_an_official_file_with_a_nested_option_list_is_rescored_with_its_page(tmp_path, capsys):
    """validation_Accounting_29's options are a list inside the list: the page's loose-image check
    read them as text and stopped the command with a traceback after everything was scored."""
    source = OFFICIAL_PRO / "gpt-4o_standard(10 options)_cot.jsonl"
    run = tmp_path / "runs" / "gpt-4o"
    assert main(["rescore", str(source), "--out", str(run)]) == 0
    out = capsys.readouterr().out
    assert "validation_Accounting_29): malformed options" in out
    assert (run / "report.html").is_file()


@pytest.mark.slow
def test_item_browser_shows_the_differing_items_with_their_cause(rescored, chromium):
    run, _ = rescored
    from playwright import sync_api
    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(chromium),
                                     args=["--no-sandbox", "--disable-background-networking", "--disable-gpu"])
        page = browser.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto((run / "report.html").as_uri())
        page.wait_for_function("document.querySelectorAll('#items article.item').length > 0")
        page.select_option("#f-show", "harness")
        ids = page.eval_on_selector_all("#items article.item", "els => els.map(e => e.dataset.id)")
        assert ids == ["validation_Public_Health_1"]
        card = page.inner_text("#items article.item")
        assert "lmms-eval differs: letter" in card.lower() and "why they differ" in card.lower()
        browser.close()
    assert errors == []


def test_a_response_that_is_not_text_is_stored_as_an_error(tmp_path, capsys):
    """The official code would crash on a null response; a run directory holds text, so it is an error there."""
    path = write_jsonl(tmp_path / "m_vision_direct.jsonl", [
        {"id": "test_Art_1", "options": "['x', 'y']", "answer": "A", "response": "Answer: A", "subject": "Art"},
        {"id": "test_Art_2", "options": "['x', 'y']", "answer": "A", "response": None, "subject": "Art"},
    ])
    run = tmp_path / "run"
    # Two rows of the 1,730 an official MMMU-Pro file holds: partial, accepted with --partial.
    assert main(["rescore", str(path), "--out", str(run), "--no-html", "--partial"]) == 0
    assert "1 response(s) that are not text are stored as errors" in capsys.readouterr().out
    results = json.loads((run / "results.json").read_text())
    assert results["coverage"]["error_ids"] == ["test_Art_2"] and results["overall"]["n"] == 1


def test_the_rescored_page_leads_with_the_harness_and_leaves_out_what_the_run_did_not_do(rescored):
    """What broke (issue 28): the page said "DIRECT" although the prompt was lmms-eval's, showed a
    request and latency table for requests this tool never made, and put the harness's own
    figure beside ours last."""
    run, _ = rescored
    results = json.loads((run / "results.json").read_text())
    page = (run / "report.html").read_text()
    kicker = page[page.index('<div class="kicker">'):page.index("</div>", page.index('<div class="kicker">'))]
    assert "rescored from lmms-eval" in kicker and "direct" not in kicker.lower()
    assert "Prompt fingerprint" not in page and "<dt>Responses from</dt>" in page
    assert page.index('<section id="harness">') < page.index('<section id="disciplines">')
    assert 'id="usage"' not in page and "Cost and usage" not in page
    assert results["usage"] is not None  # still in results.json: the page leaves it out, the record keeps it
    assert main(["report", str(run)]) == 0


def test_the_rescored_terminal_report_has_no_usage_table(rescored, capsys):
    run, _ = rescored
    capsys.readouterr()
    assert main(["report", str(run)]) == 0
    out = capsys.readouterr().out
    assert "Cost and usage" not in out and "latency" not in out
