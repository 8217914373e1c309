"""random, frequent and text-only: what each answers, and that it is reproducible.

``frequent`` is handed its answers (``run/prepare.frequent_answers``), never the items: the
ranking tests go through that function, the backend tests through what it hands over."""

import json

import pytest

from mmmu_eval.backends.baselines import FrequentBackend, RandomBackend, TextOnlyBackend
from mmmu_eval.backends.registry import make_backend
from mmmu_eval.backends.settings import BackendSettings, BaselineSettings, FixedAnswers
from mmmu_eval.core.config import RunConfig
from mmmu_eval.run.backend_settings import backend_settings
from mmmu_eval.run.prepare import frequent_answers
from mmmu_eval.core.errors import ConfigError
from mmmu_eval.core.records import ImagePart, ImageRef, Item, Request, TextPart

from fakes.scripted_backend import ScriptedBackend


def item(n, answer, options=("a", "b", "c", "d"), qtype="multiple-choice"):
    return Item(f"dev_Art_{n}", "mmmu", "dev", None, "Art", "Art and Design", "Q", tuple(options), answer, qtype, ())


def request(n, choices=("A", "B", "C", "D")):
    return Request(f"dev_Art_{n}", (TextPart("Q"),), choices=tuple(choices))


async def answers(backend, requests):
    return [(r.item_id, r.text) async for r in backend.generate(requests)]


async def test_random_is_the_same_for_the_same_seed_and_differs_for_another():
    requests = [request(i) for i in range(40)]
    first = await answers(RandomBackend(7), requests)
    assert first == await answers(RandomBackend(7), requests)
    assert first != await answers(RandomBackend(8), requests)
    assert {text for _, text in first} <= {"A", "B", "C", "D"}


async def test_random_draws_per_item_from_the_seed_and_the_id():
    """The documented scheme: random.Random("{seed}:{id}").choice(choices), one per item."""
    import random

    requests = [request(1, "AB"), request(2, "ABCDEFGHIJ"), request(3, "ABC")]
    expected = [random.Random(f"0:{r.item_id}").choice(r.choices) for r in requests]
    got = [text for _, text in await answers(RandomBackend(), requests)]
    assert got == expected


async def test_random_answers_an_item_the_same_in_a_subset_or_another_order():
    """Drawing from one generator in request order gave shards and resumed runs other picks."""
    requests = [request(i) for i in range(30)]
    whole = dict(await answers(RandomBackend(3), requests))
    shard = dict(await answers(RandomBackend(3), requests[1::3][::-1]))
    assert shard == {item_id: whole[item_id] for item_id in shard}


async def test_random_answers_open_questions_with_nothing_to_match():
    assert await answers(RandomBackend(), [request(1, ())]) == [("dev_Art_1", "")]


def test_random_takes_its_seed_from_the_config_default_zero():
    assert make_backend("random", backend_settings(RunConfig(model="random"))).seed == 0
    assert make_backend("random", backend_settings(RunConfig(model="random", seed=5))).seed == 5


def test_frequent_ranks_gold_letters_by_count_then_letter():
    items = [item(1, "C"), item(2, "C"), item(3, "A"), item(4, "B"), item(5, "A"), item(6, "D"),
             item(7, "C"), item(8, ("7",), (), "open"), item(9, "9", (), "open"), item(10, ("7", "seven"), (), "open")]
    # C: 3, A: 2, B: 1, D: 1 (B before D: tie goes to the earlier letter); open "7" twice, "9" once
    fixed = frequent_answers(items + [item(11, None)], [])
    assert (fixed.letter_ranking, fixed.open_answer, fixed.computed_from_items) == (("C", "A", "B", "D"), "7", 10)


async def test_frequent_answers_the_top_letter_an_item_offers():
    items = [item(1, "C"), item(2, "C"), item(3, "B")]
    requests = [request(1), request(2, "AB"), request(3, "A"), request(4, ())]
    fixed = frequent_answers(items, requests)
    assert dict(fixed.by_item) == {"dev_Art_1": "C", "dev_Art_2": "B", "dev_Art_3": "A", "dev_Art_4": ""}
    backend = FrequentBackend.from_settings("", BaselineSettings(fixed_answers=fixed))
    got = await answers(backend, requests)
    assert got == [("dev_Art_1", "C"), ("dev_Art_2", "B"), ("dev_Art_3", "A"), ("dev_Art_4", "")]
    assert backend.describe() == {"backend": "frequent", "letter_ranking": ["C", "B"], "answer": "C",
                                  "open_answer": None, "computed_from_items": 3}


async def test_frequent_gives_the_answers_it_was_handed_and_names_an_item_it_has_none_for():
    """The backend holds answers, not items: an item outside them is that item's error, not a guess."""
    backend = FrequentBackend(FixedAnswers({"dev_Art_1": "D"}, ("D",), None, 1))
    got = [(r.item_id, r.status, r.text) async for r in backend.generate([request(1), request(2)])]
    assert got[0] == ("dev_Art_1", "ok", "D")
    assert got[1][:2] == ("dev_Art_2", "error")
    assert "no answer fixed for this item" in [r async for r in backend.generate([request(2)])][0].error


def test_frequent_refuses_items_without_gold_answers():
    assert frequent_answers([item(1, None)], [request(1)]) is None
    with pytest.raises(ConfigError, match="needs gold answers"):
        FrequentBackend.from_settings("", BaselineSettings())
    with pytest.raises(ConfigError, match="needs gold answers"):
        make_backend("frequent", backend_settings(RunConfig(model="frequent")))


def test_ties_among_open_answers_go_to_the_first_met():
    assert frequent_answers([item(1, "x", (), "open"), item(2, "y", (), "open")], []).open_answer == "x"


async def test_text_only_strips_every_image_and_keeps_the_text():
    image = ImageRef.from_bytes("image_1", b"\x89PNG\r\n\x1a\n")
    req = Request("dev_Art_1", (TextPart("Look at "), ImagePart(image), TextPart(" and answer."), ImagePart(image)),
                  choices=("A", "B"), system="sys")
    inner = ScriptedBackend(["B"])
    backend = TextOnlyBackend(inner)
    await backend.preflight([req])
    assert await answers(backend, [req]) == [("dev_Art_1", "B")]
    sent = inner.asked[0]
    assert sent.images == () and sent.text == "Look at  and answer." and sent.choices == ("A", "B")
    assert sent.system == "sys" and inner.preflighted[0].images == ()
    assert backend.spec == "text-only:scripted"
    assert backend.describe() == {"backend": "text-only", "images": "withheld", "inner": inner.describe()}
    await backend.aclose()
    assert inner.closed


def test_text_only_wraps_any_registered_spec_once():
    fixed = frequent_answers([item(1, "A")], [request(1)])
    backend = make_backend("text-only:frequent", BackendSettings(baseline=BaselineSettings(fixed_answers=fixed)))
    assert isinstance(backend.inner, FrequentBackend) and backend.inner.answers is fixed
    with pytest.raises(ConfigError, match="already withheld"):
        make_backend("text-only:text-only:random")
    with pytest.raises(ConfigError, match="needs the spec"):
        make_backend("text-only:")


def test_frequent_shards_answer_as_the_whole_run_and_their_merge_equals_it(tmp_path):
    """The frequent choice is ranked over the whole evaluation, not over a shard's items: each
    shard (or launcher rank) gives the answers one process gives, so the merge is the same run."""
    from mmmu_eval import evaluate, merge
    from mmmu_eval.run.progress import NullDisplay
    from mmmu_eval.store.rundir import RunStore

    common = {"model": "frequent", "benchmark": "mmmu", "split": "validation", "data": "sample",
              "display": NullDisplay(), "html": False}
    whole = evaluate(out=str(tmp_path / "whole"), **common)
    for k in (1, 2, 3):
        evaluate(out=str(tmp_path / f"shard{k}"), shard=(k, 3), **common)
    merge([tmp_path / f"shard{k}" for k in (1, 2, 3)], tmp_path / "merged")
    texts = {i: r.text for i, r in RunStore.read(tmp_path / "whole").responses().items()}
    assert {i: r.text for i, r in RunStore.read(tmp_path / "merged").responses().items()} == texts
    assert json.loads((tmp_path / "merged" / "results.json").read_text())["overall"] == whole.results["overall"]
