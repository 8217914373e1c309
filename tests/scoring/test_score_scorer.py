"""score_responses: fallback policies, draw order, statuses, test-split items, parsers side by side."""

from __future__ import annotations

import random

import pytest

from mmmu_eval.core.errors import ConfigError
from mmmu_eval.core.records import letters
from mmmu_eval.scoring.scorer import predictions_rows, score_responses

UNPARSEABLE = "no idea, sorry"


def test_fallback_draws_go_by_subject_alphabetically_then_by_id_number(make_item, response):
    """The official sequence: Accounting before Art; _2 before _10 (numbers, not strings)."""
    items = [make_item("validation_Art_1", "A"), make_item("validation_Accounting_10", "A"),
             make_item("validation_Accounting_2", "A")]
    responses = {it.id: response(it.id, UNPARSEABLE) for it in items}
    scoring = score_responses(items, responses)
    rng = random.Random(42)
    expected = {i: rng.choice(list("ABCD")) for i in
                ("validation_Accounting_2", "validation_Accounting_10", "validation_Art_1")}
    assert {i: v.pred for i, v in scoring.verdicts["official"].items()} == expected
    assert list(scoring.verdicts["official"]) == [it.id for it in items]  # reported in dataset order
    assert scoring.fallbacks == 3


def test_parsed_items_consume_no_draws(make_item, response):
    items = [make_item("validation_Art_1", "A"), make_item("validation_Art_2", "A")]
    responses = {"validation_Art_1": response("validation_Art_1", "(B)"),
                 "validation_Art_2": response("validation_Art_2", UNPARSEABLE)}
    scoring = score_responses(items, responses)
    assert scoring.verdicts["official"]["validation_Art_2"].pred == random.Random(42).choice(list("ABCD"))


def test_policy_none_counts_unparseable_wrong_without_a_prediction(make_item, response):
    items = [make_item("validation_Art_1", "A"), make_item("validation_Art_2", "B")]
    responses = {"validation_Art_1": response("validation_Art_1", UNPARSEABLE),
                 "validation_Art_2": response("validation_Art_2", "(B)")}
    scoring = score_responses(items, responses, fallback="none")
    verdict = scoring.verdicts["official"]["validation_Art_1"]
    assert (verdict.pred, verdict.correct, verdict.fallback) == (None, False, True)
    assert scoring.aggregates["official"].overall.correct == 1
    assert scoring.fallback_policy == "none"


def test_deterministic_and_expected_correct(make_item, response):
    items = [make_item("validation_Art_1", "A"), make_item("validation_Art_2", "A", options=("x", "y")),
             make_item("validation_Art_3", "B")]
    responses = {"validation_Art_1": response("validation_Art_1", UNPARSEABLE),
                 "validation_Art_2": response("validation_Art_2", UNPARSEABLE),
                 "validation_Art_3": response("validation_Art_3", "(B)")}
    scoring = score_responses(items, responses)
    assert scoring.deterministic_correct == 1
    assert scoring.expected_correct == pytest.approx(1 + 1 / 4 + 1 / 2)
    assert scoring.fallbacks == 2


@pytest.mark.parametrize("status", ["ok", "truncated", "error"])
def test_every_response_status(make_item, response, status):
    """Errors are never scored (listed instead); truncated answers are scored like ok ones."""
    item = make_item("validation_Art_1", "B")
    scoring = score_responses([item], {item.id: response(item.id, "(B)", status=status)})
    scored = item.id in scoring.verdicts["official"]
    assert scored is (status != "error")
    assert scoring.errors == ((item.id,) if status == "error" else ())
    assert scoring.aggregates["official"].overall.n == int(scored)


def test_errors_draw_nothing_and_missing_items_are_listed(make_item, response):
    items = [make_item("validation_Art_1", "A"), make_item("validation_Art_2", "A"), make_item("validation_Art_3", "A")]
    responses = {"validation_Art_1": response("validation_Art_1", "", status="error"),
                 "validation_Art_2": response("validation_Art_2", UNPARSEABLE)}
    scoring = score_responses(items, responses)
    assert scoring.missing == ("validation_Art_3",)
    assert scoring.errors == ("validation_Art_1",)
    assert scoring.verdicts["official"]["validation_Art_2"].pred == random.Random(42).choice(list("ABCD"))


def test_test_split_items_get_predictions_but_no_score(make_item, response):
    items = [make_item("test_Art_1", None), make_item("test_Art_2", None, options=())]
    responses = {"test_Art_1": response("test_Art_1", "(C)"), "test_Art_2": response("test_Art_2", "The answer is 42")}
    scoring = score_responses(items, responses)
    assert {i: v.pred for i, v in scoring.verdicts["official"].items()} == {"test_Art_1": "C", "test_Art_2": "42.0"}
    assert scoring.ungraded == ("test_Art_1", "test_Art_2")
    assert scoring.aggregates["official"].overall.n == 0
    assert scoring.deterministic_correct == 0


def test_open_questions_use_the_official_open_matching(make_item, response):
    item = make_item("validation_Math_1", "36", options=())
    scoring = score_responses([item], {item.id: response(item.id, "The answer is 36 watts")})
    verdict = scoring.verdicts["official"][item.id]
    assert (verdict.pred, verdict.correct, verdict.fallback) == ("36 watts", True, False)


def test_mmmu_pro_items_use_the_pro_parser(make_item, response):
    ten = tuple(f"option {i}" for i in range(10))
    item = make_item("test_History_1", "J", options=ten, benchmark="mmmu-pro", setting="standard-10")
    scoring = score_responses([item], {item.id: response(item.id, "So the answer is J. Done")})
    assert scoring.verdicts["official"][item.id].pred == "J"
    assert scoring.benchmark == "mmmu-pro"


def test_several_parsers_report_their_disagreements(make_item, response):
    items = [make_item("validation_Art_1", "B"), make_item("validation_Art_2", "C")]
    responses = {"validation_Art_1": response("validation_Art_1", "The answer is B"),
                 "validation_Art_2": response("validation_Art_2", "Answer: C")}
    scoring = score_responses(items, responses, parsers=("official", "strict", "boxed"))
    assert scoring.parsers == ("official", "strict", "boxed")
    assert [d["id"] for d in scoring.disagreements] == ["validation_Art_1", "validation_Art_2"]
    first = scoring.disagreements[0]
    assert first["preds"] == {"official": "B", "strict": None, "boxed": None}
    assert first["correct"] == {"official": True, "strict": False, "boxed": False}
    assert scoring.aggregates["strict"].overall.correct == 1


def test_each_parser_has_its_own_generator(make_item, response):
    """Adding a parser must not shift the headline parser's draws."""
    items = [make_item(f"validation_Art_{n}", "A") for n in range(1, 6)]
    responses = {it.id: response(it.id, UNPARSEABLE) for it in items}
    alone = score_responses(items, responses)
    together = score_responses(items, responses, parsers=("official", "mmmu-pro"))
    assert alone.verdicts["official"] == together.verdicts["official"]


def test_malformed_options_are_scored_wrong_and_reported(make_item, response):
    item = make_item("validation_Accounting_29", "B", options=(["A", "B", "Not enough information"],))
    scoring = score_responses([item], {item.id: response(item.id, "there is not enough information here")})
    assert scoring.verdicts["official"][item.id].correct is False
    assert scoring.problems and scoring.problems[0].startswith("validation_Accounting_29:")


def test_unknown_parser_and_policy_are_config_errors(make_item):
    with pytest.raises(ConfigError, match="did you mean strict"):
        score_responses([], {}, parsers=("strcit",))
    with pytest.raises(ConfigError, match="--fallback"):
        score_responses([], {}, fallback="random")


def test_predictions_rows_cover_scored_and_failed_items(make_item, response):
    items = [make_item("validation_Art_1", "B"), make_item("validation_Art_2", "B")]
    responses = {"validation_Art_1": response("validation_Art_1", "(B)"),
                 "validation_Art_2": response("validation_Art_2", "", status="error")}
    rows = predictions_rows(score_responses(items, responses), responses)
    assert rows == [{"id": "validation_Art_1", "response": "(B)", "pred": "B"},
                    {"id": "validation_Art_2", "response": "", "pred": None}]


def test_twelve_options_draw_from_twelve_letters(make_item, response):
    item = make_item("test_Computer_Science_61", "F", options=tuple(f"o{i}" for i in range(12)),
                     benchmark="mmmu-pro", setting="standard-10")
    scoring = score_responses([item], {item.id: response(item.id, UNPARSEABLE)})
    assert scoring.verdicts["official"][item.id].pred == random.Random(42).choice(list(letters(12)))
    assert scoring.expected_correct == pytest.approx(1 / 12)
