"""``doctor`` / ``diagnose``: each cause counted exactly on runs made to have it, and on real outputs."""

import json
import re

import pytest

from mmmu_eval import diagnose
from mmmu_eval.run.pipeline import evaluate
from mmmu_eval.cli.main import main
from mmmu_eval.core.errors import ConfigError

from mmmu_eval.run.progress import NullDisplay


def _pct(k, n):
    return round(100.0 * k / n, 4)


def _by_cause(diagnosis):
    return {c["cause"]: c for c in diagnosis.to_json()["causes"]}


def test_every_cause_of_the_faulty_run_is_counted_exactly(faulty_run):
    """9 scored of 10 asked: 5 right (2 parsed, 3 lucky fallbacks), 4 wrong."""
    d = diagnose(faulty_run)
    assert (d.figure["correct"], d.figure["n"]) == (5, 9)
    causes = _by_cause(d)
    assert set(causes) == {"truncated", "unparsed", "sampling", "prompt", "images", "errors", "coverage"}

    cut = causes["truncated"]
    assert cut["items"] == 3 and cut["points"] == _pct(3, 9)
    assert cut["examples"] == ["dev_Accounting_2", "dev_Art_2", "dev_Computer_Science_1"]
    assert {k: cut["detail"][k] for k in ("finish_length", "unclosed_think", "limit", "used_all_tokens", "wrong")} == {
        "finish_length": 2, "unclosed_think": 1, "limit": 64, "used_all_tokens": 1, "wrong": 3}

    unparsed = causes["unparsed"]
    # the official parser reads no letter in "I cannot tell", "No idea", \boxed{C}, \boxed{B}
    assert unparsed["examples"] == ["dev_Design_1", "dev_Economics_1", "dev_Energy_and_Power_2", "dev_Psychology_1"]
    assert unparsed["items"] == 4 and unparsed["points"] == _pct(1, 9)  # 3 of the 4 random letters hit
    detail = unparsed["detail"]
    assert (detail["fallbacks"], detail["fallback_hits"]) == (4, 3)
    assert detail["expected_correct"] == round(1 / 2 + 1 / 4 + 1 / 3 + 1 / 5, 4)
    assert detail["expected_points"] == round(100 * (1 / 2 + 1 / 4 + 1 / 3 + 1 / 5) / 9, 4)
    assert detail["parsers"] == {"boxed": {"accuracy": _pct(2, 9), "moves": _pct(-3, 9)},
                                 "strict": {"accuracy": _pct(4, 9), "moves": _pct(-1, 9)}}
    assert (detail["boxed_share"], detail["answer_line_share"]) == (round(2 / 9, 4), round(2 / 9, 4))

    sampling = causes["sampling"]
    assert sampling["detail"]["differs"] == {"max_tokens": {"run": 64, "official": None},
                                             "temperature": {"run": 0.7, "official": None}}
    assert sampling["items"] == 9 and sampling["points"] == _pct(4, 9) and sampling["detail"]["points_down"] == _pct(5, 9)

    assert causes["prompt"]["items"] == 9 and any("append" in n for n in causes["prompt"]["detail"]["notes"])

    images = causes["images"]
    assert images["items"] == 1 and images["examples"] == ["dev_History_1"] and images["points"] == 0.0
    assert images["detail"]["downscaled_images"] == 1 and images["detail"]["downscaled_to"] == ["400x300"]
    assert images["detail"]["unreferenced_rule"] == "append"

    errors = causes["errors"]
    assert errors["items"] == 1 and errors["examples"] == ["dev_Math_2"]
    assert errors["points"] == round(100 * (6 / 10 - 5 / 9), 4)  # had the failed item been right

    coverage = causes["coverage"]
    assert coverage["items"] == 140 and coverage["detail"]["full_set"] == 150 and coverage["detail"]["evaluated"] == 10

    points = [c["points"] for c in d.to_json()["causes"]]
    assert points == sorted(points, reverse=True)


def test_an_official_run_at_default_settings_shows_no_sampling_prompt_or_image_cause(tmp_path):
    run = evaluate(model="random", benchmark="mmmu", split="dev", data="sample", out=tmp_path / "run",
                   display=NullDisplay(), html=False).run_dir
    causes = _by_cause(diagnose(run))
    assert not {"sampling", "prompt", "images", "truncated", "errors"} & set(causes)
    assert causes["coverage"]["items"] == 130 and causes["coverage"]["detail"]["subset"] == {"data": "sample"}


def test_a_published_value_inside_the_interval_and_the_causes_that_cover_the_gap(faulty_run):
    d = diagnose(faulty_run, published=0.8)
    p = d.published
    assert p["value"] == 80.0 and p["source"] == "given" and p["inside_interval"] is True
    assert p["gap"] == round(80 - 100 * 5 / 9, 4)
    # sampling concerns every scored item: its 4 wrong ones (44.4 points) reach the 24.4-point gap alone
    assert p["covered_by"] == ["sampling"] and p["covered"] is True

    low = diagnose(faulty_run, published=0.1).published
    assert low["inside_interval"] is False and low["gap"] == round(10 - 100 * 5 / 9, 4)
    assert low["covered_by"] == ["sampling"] and low["coverable"] == _pct(5, 9)
    assert diagnose(faulty_run, published="95%").published["inside_interval"] is False  # above 88.9


def test_causes_over_the_same_items_are_counted_once_toward_a_gap(faulty_run):
    """Without sampling and prompt, truncated (3 wrong) and unparsed (1 wrong) are disjoint; 33.3 + 11.1 > 40."""
    from mmmu_eval.doctor.examine import _against

    d = diagnose(faulty_run)
    rest = [c for c in d.causes if c.cause not in ("sampling", "prompt", "coverage")]
    p = _against(100 * 5 / 9 + 40, "given", d.figure, rest)
    assert p["covered_by"] == ["truncated", "unparsed"] and p["coverable"] == _pct(4, 9) and p["covered"]
    twice = _against(100 * 5 / 9 + 40, "given", d.figure, [rest[0], rest[0]])
    assert twice["coverable"] == _pct(3, 9) and not twice["covered"]


def test_the_rescored_harness_differences_are_the_parser_cause(lmms_run):
    causes = _by_cause(diagnose(lmms_run))
    parser = causes["parser"]
    assert parser["items"] == 1 and parser["examples"] == ["validation_Public_Health_1"]
    assert parser["detail"]["by_cause"] == {"letter": 1} and parser["detail"]["net_points"] == _pct(-1, 3)
    assert parser["points"] == _pct(1, 3)
    assert "judge" not in causes and "sampling" not in causes


def test_the_qwen_vl_official_outputs_against_the_leaderboard(fidelity_runs):
    """325/900 with 48 fallbacks (16 hit, 14.25 expected: 323.25 - 309), against the published 35.9."""
    d = diagnose(fidelity_runs["qwen"], published="Qwen-VL-7B-Chat")
    assert (d.figure["correct"], d.figure["n"]) == (325, 900)
    causes = _by_cause(d)
    assert list(causes) == ["unparsed"]
    unparsed = causes["unparsed"]
    assert unparsed["items"] == 48 and unparsed["points"] == _pct(32, 900)
    assert unparsed["detail"]["fallback_hits"] == 16 and unparsed["detail"]["expected_correct"] == 14.25
    assert unparsed["examples"][0] == "validation_Accounting_8"
    p = d.published
    assert p["value"] == 35.9 and "leaderboard" in p["source"] and p["inside_interval"] is True
    assert p["gap"] == round(35.9 - 100 * 325 / 900, 4) and p["covered_by"] == ["unparsed"] and p["covered"]
    # the official parse-and-eval rows keep no question and no image: how many had several images is
    # not known, and the doctor says why instead of a bare null
    kinds = d.failures["no_letter"]
    assert kinds["count"] == 48 and kinds["multi_image"] is None
    assert "keeps neither the question text nor the images of 48 of these items" in kinds["multi_image_unknown"]
    assert "no_letter 48, how many with several images not known (the run keeps neither" in "\n".join(d.lines())


def test_gpt4o_mmmu_pro_outputs_against_table1(fidelity_runs):
    d = diagnose(fidelity_runs["gpt4o-std10-cot"], published="gpt-4o (0513)")
    assert (d.figure["correct"], d.figure["n"]) == (952, 1730)
    unparsed = _by_cause(d)["unparsed"]
    assert unparsed["items"] == 0 and unparsed["detail"]["parsers"]["strict"]["accuracy"] == _pct(946, 1730)
    assert d.published["value"] == 54.0 and d.published["inside_interval"] is True
    assert d.published["gap"] == round(54.0 - 100 * 952 / 1730, 4)


def test_an_unknown_model_name_is_refused_with_what_is_published(faulty_run):
    with pytest.raises(ConfigError, match="no model of that name is published for mmmu/dev"):
        diagnose(faulty_run, published="GPT-9")


def test_the_cli_prints_the_causes_and_writes_the_json_schema(faulty_run, tmp_path, capsys):
    out = tmp_path / "doctor.json"
    assert main(["doctor", str(faulty_run), "--published", "80", "--json", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "truncated" in printed and "limit 64 tokens, 1 used it all" in printed
    assert "worst case (a bound, not an estimate): sampling could reach the gap" in printed
    assert "points are not explained by anything recorded in this run" in printed
    data = json.loads(out.read_text())
    assert set(data) == {"run", "figure", "causes", "effects", "failures", "together", "published"}
    assert all(set(c) == {"cause", "items", "points", "detail", "examples"} for c in data["causes"])
    assert {"value", "source", "inside_interval", "gap"} <= set(data["published"])
    assert [c["points"] for c in data["causes"]] == sorted((c["points"] for c in data["causes"]), reverse=True)


def test_the_cli_names_a_directory_that_is_no_run(tmp_path, capsys):
    assert main(["doctor", str(tmp_path)]) == 1
    assert "neither a run directory" in capsys.readouterr().err


def test_a_suite_gets_its_table1_row_and_one_section_per_run(tmp_path, capsys):
    from mmmu_eval import evaluate_suite

    suite = evaluate_suite(model="frequent", data="sample", out=tmp_path / "suite", html=False)
    d = diagnose(suite.suite_dir, published="Frequent Choice")
    assert d.table1["ours"]["overall"] == suite.table1["overall"]["percent"] == 20.8
    assert d.table1["published"] == {"model": "Frequent Choice", "scores": {
        "standard_4": 27.8, "standard_10": 12.1, "vision": 12.1, "overall": 12.1, "mmmu_val": 26.8}}
    by_name = {r.run.rsplit("/", 1)[1]: r for r in d.runs}
    assert set(by_name) == {"standard-4-direct", "standard-4-cot", "standard-10-direct", "standard-10-cot",
                            "vision-direct", "vision-cot", "mmmu-validation-direct"}
    std10 = by_name["standard-10-direct"]
    assert (std10.figure["correct"], std10.figure["n"]) == (5, 24)
    assert std10.published["value"] == 12.1 and std10.published["gap"] == round(12.1 - 100 * 5 / 24, 4)
    assert _by_cause(std10)["coverage"]["items"] == 1730 - 24
    # MMMU-Pro runs send max_tokens 4096, as the official scripts: no sampling cause
    assert std10.figure["model"] == "frequent" and "sampling" not in _by_cause(std10)
    assert main(["doctor", str(suite.suite_dir), "--json", str(tmp_path / "d.json")]) == 0
    data = json.loads((tmp_path / "d.json").read_text())
    assert set(data) == {"suite", "table1", "runs"} and len(data["runs"]) == 7
    assert "Table 1 row" in capsys.readouterr().out


def test_a_suite_of_a_2025_model_is_set_against_its_leaderboard_row(tmp_path, capsys):
    """Claude Opus 4.5 is not in Table 1: the suite's row is set against the leaderboard's figures it lists
    (MMMU-Pro overall 73.9, MMMU validation 80.7), with their source; its MMMU validation run against 80.7."""
    from mmmu_eval import evaluate_suite

    suite = evaluate_suite(model="frequent", data="sample", out=tmp_path / "suite", html=False)
    d = diagnose(suite.suite_dir, published="Claude Opus 4.5")
    assert d.table1["published"]["model"] == "Claude Opus 4.5"
    assert d.table1["published"]["scores"] == {"overall": 73.9, "mmmu_val": 80.7}
    assert "MMMU leaderboard data" in d.table1["published"]["source"]
    val = next(r for r in d.runs if r.run.endswith("mmmu-validation-direct"))
    assert val.published["value"] == 80.7
    assert all(r.published is None for r in d.runs if not r.run.endswith("mmmu-validation-direct"))
    assert "published (Claude Opus 4.5, MMMU leaderboard data" in "\n".join(d.lines())


def test_report_html_carries_the_same_causes(faulty_run, capsys):
    """The page a user shares lists each cause with its items, expected effect and bound (labelled
    a bound) and first ids, in the command's order, from the command's own diagnosis."""
    import re
    from html import unescape

    from mmmu_eval.doctor.diagnosis import effect_text

    assert main(["report", str(faulty_run), "--html", "--no-images"]) == 0
    page = (faulty_run / "report.html").read_text()
    section = page[page.index('<section id="doctor"'):]
    section = section[: section.index("</section>")]
    rows = re.findall(r'<tr data-cause="[a-z]+"><td>([a-z]+)</td><td class="n">(\d+)</td><td>([^<]*)</td>'
                      r'<td class="n">([+\-\d.]+) \(a bound\)</td>', section)
    d = diagnose(faulty_run)
    effects = {e.cause: e for e in d.effects}
    assert [(c, n, unescape(e), b) for c, n, e, b in rows] == [
        (c.cause, str(c.items), effect_text(effects[c.cause]), f"{c.points:+.2f}") for c in d.causes]
    # by hand: the 3 cut answers (all wrong) at the 5/6 the 6 finished answers scored, over 9 scored items;
    # range the central 95% of Binomial(3, 5/6) items gained: P(0) = 0.005 < 0.025 <= P(<= 1) = 0.074, so 1 to 3
    assert ("truncated", "3", "expected +27.78 points (plausible +11.11 to +33.33)", "+33.33") in rows
    # the 4 random letters (3 hit) drawn again at 1/2, 1/4, 1/3, 1/5: none right (-3 items) has chance 1/5,
    # and all but 1/120 of the outcomes have 3 or fewer right (0 items)
    assert ("unparsed", "4", "expected -19.07 points (plausible -33.33 to +0.00)", "+11.11") in rows
    assert "dev_Design_1, dev_Economics_1" in section and "limit 64 tokens, 1 used it all" in section
    assert "how: 3 answers at the run&#x27;s accuracy on the answers that finished" in section
    # no published figure: the run's causes together, each item once; by hand (3 * 5/6 + 1.2833 - 3) / 9 items
    together = re.search(r'<p id="doctor-together">([^<]*)</p>', section).group(1)
    assert together.startswith("together, each item counted once (7 items): expected +8.70 points")
    assert together in "\n".join(d.lines()) and d.to_json()["together"]["union_items"] == 7


def test_the_suite_report_lists_each_run_s_causes(tmp_path):
    from mmmu_eval import evaluate_suite

    suite = evaluate_suite(model="frequent", data="sample", out=tmp_path / "suite", html=True)
    page = (suite.suite_dir / "report.html").read_text()
    section = page[page.index('<section id="doctor"'):]
    section = section[: section.index("</section>")]
    std10 = section[section.index("<h3>standard-10-direct</h3>"):]
    assert std10.index('<tr data-cause="coverage"><td>coverage</td><td class="n">1706</td>') < std10.index("<h3>", 4)
    assert section.count('<td>coverage</td>') == 7 and section.count('class="doctor-run"') == 7


def test_a_harness_judge_and_its_parser_are_separate_causes(vlmevalkit_run):
    """Art_3: VLMEvalKit's LLM judge made 'a square' an A (right); CS_3: it took C where official reads (B)."""
    d = diagnose(vlmevalkit_run)
    assert (d.figure["correct"], d.figure["n"]) == (1, 3)
    causes = _by_cause(d)
    judge, parser = causes["judge"], causes["parser"]
    assert (judge["items"], judge["examples"], judge["detail"]["by_cause"]) == (1, ["validation_Art_3"], {"judge": 1})
    assert (parser["items"], parser["examples"], parser["detail"]["by_cause"]) == (
        1, ["validation_Computer_Science_3"], {"letter": 1})
    assert judge["points"] == parser["points"] == _pct(1, 3)
    assert judge["detail"]["net_points"] == _pct(1, 3) and judge["detail"]["harness"] == "vlmevalkit"


def test_a_real_server_that_cuts_at_the_limit_boxes_and_answers_without_a_letter(tmp_path, mc_ids):
    """Through the OpenAI backend and a loopback server: 3 answers cut at max_tokens 12, 2 boxed, 3 without a letter."""
    from fakes.fault_server import FaultServer

    from mmmu_eval.backends.openai_api import OpenAIBackend
    from mmmu_eval.backends.retry import RetryPolicy
    from mmmu_eval.dataset.load import load_benchmark

    long = "Let us work through the figures one step at a time before deciding which option fits, so Answer: B"
    plan = {"dev_Accounting_2": long, "dev_Art_2": long, "dev_Computer_Science_1": long,
            "dev_Design_1": "\\boxed{A}", "dev_Economics_1": "\\boxed{A}",
            "dev_Energy_and_Power_2": "Answer: C", "dev_History_1": "Answer: A",
            "dev_History_2": "I am not sure.", "dev_Math_2": "I am not sure.", "dev_Psychology_1": "I am not sure."}
    # each item's request is told by the longest stretch of its question and its number of images
    marks = {it.id: (max(re.split(r"<image \d+>", it.question), key=len).strip()[:40], len(it.images))
             for it in load_benchmark("mmmu", split="dev", data="sample").items if it.id in mc_ids}

    def answer(body):
        parts = [part for m in body["messages"] if isinstance(m.get("content"), list) for part in m["content"]]
        text = "".join(part.get("text", "") for part in parts)
        shown = sum(1 for part in parts if part.get("type") == "image_url")
        found = [i for i, (mark, n) in marks.items() if mark in text and n == shown]
        return plan[found[0]] if len(found) == 1 else "I am not sure."  # History_2's twin, and the preflight probe

    with FaultServer(fault_rate=0.0, answer=answer, cut_at_max_tokens=True) as server:
        backend = OpenAIBackend("fake-model", base_urls=[server.url], api_key="k", concurrency=2,
                                policy=RetryPolicy(max_attempts=2, base_delay=0.001, max_delay=0.01, timeout=60.0))
        run = evaluate(model=backend, benchmark="mmmu", split="dev", data="sample", ids=mc_ids, max_tokens=12,
                       out=tmp_path / "run", display=NullDisplay(), html=False).run_dir
    results = json.loads((run / "results.json").read_text())
    causes = _by_cause(diagnose(run))
    cut = causes["truncated"]
    assert cut["examples"] == ["dev_Accounting_2", "dev_Art_2", "dev_Computer_Science_1"]
    assert (cut["items"], cut["detail"]["finish_length"], cut["detail"]["limit"], cut["detail"]["used_all_tokens"]) == (3, 3, 12, 3)
    unparsed = causes["unparsed"]["detail"]
    # cut before their letter (3), boxed (2: the official parser reads no box), no letter (3)
    assert unparsed["fallbacks"] == results["parse"]["fallbacks"] == 8
    assert unparsed["fallback_hits"] == results["overall"]["correct"] - 2  # the two Answer: lines are right
    assert unparsed["parsers"]["boxed"]["accuracy"] == 20.0 and unparsed["parsers"]["strict"]["accuracy"] == 40.0
    assert (unparsed["boxed_share"], unparsed["answer_line_share"]) == (0.2, 0.2)
    assert causes["sampling"]["detail"]["differs"] == {"max_tokens": {"run": 12, "official": None}}


def test_the_api_takes_a_fraction_or_a_percent_string_and_the_cli_a_percent(faulty_run, capsys):
    """Issue 39: one unit in the API. Accuracies come back as fractions, so ``published=`` takes one
    (or a percent typed as one, ``"80%"``); 80 is refused naming 0.8, not read as 8,000%. The
    command line takes the percent a user types, and still refuses 0.8 there as a mistake."""
    assert diagnose(faulty_run, published=0.8).published["value"] == 80.0
    assert diagnose(faulty_run, published="80%").published["value"] == 80.0
    with pytest.raises(ConfigError, match=r"published=80 is not a fraction from 0 to 1.* pass 0\.8"):
        diagnose(faulty_run, published=80)
    assert main(["doctor", str(faulty_run), "--published", "80"]) == 0
    assert "80" in capsys.readouterr().out
    assert main(["doctor", str(faulty_run), "--published", "0.8"]) == 2
    assert "in percent" in capsys.readouterr().err
