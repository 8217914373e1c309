"""The scope record: one phrase per way of choosing items, worked out from the manifest alone.

Rows: the manifest's config (and rescore record), the items evaluated, the kind and the text
every headline prints beside its figure (issue 28).
"""

from __future__ import annotations

import pytest

from mmmu_eval.results.scope import Scope, combined_scope, scope_of, scope_of_results

VAL = {"benchmark": "mmmu", "split": "validation", "data": "hub"}
PRO = {"benchmark": "mmmu-pro", "setting": "vision", "data": "hub"}


@pytest.mark.parametrize(
    ("manifest", "items", "kind", "text"),
    [
        ({"config": VAL}, 900, "full", "full validation split (900 items)"),
        ({"config": PRO}, 1730, "full", "full vision setting (1,730 items)"),
        ({"config": {**VAL, "subjects": ["Art"]}}, 30, "subset", "subset: 30 of 900 items (subjects Art)"),
        ({"config": {**VAL, "limit": 10}}, 10, "subset", "subset: 10 of 900 items (--limit 10)"),
        ({"config": {**VAL, "ids": ["validation_Art_1", "validation_Art_2"]}}, 2, "subset",
         "subset: 2 of 900 items (--ids (2 asked))"),
        ({"config": {**PRO, "data": "/snap"}}, 40, "subset", "subset: 40 of 1,730 items (the data holds only these)"),
        ({"config": {**VAL, "shard": [2, 8]}}, 113, "shard", "shard 2/8: 113 of 900 items"),
        ({"config": {**VAL, "data": "sample"}}, 40, "sample", "bundled sample: 40 synthetic items, not the benchmark"),
        ({"config": {**VAL, "data": "sample", "subjects": ["Art"]}}, 4, "sample",
         "bundled sample: 4 synthetic items (subjects Art), not the benchmark"),
        ({"config": VAL, "rescored_from": {"format": "lmms-eval"}}, 450, "partial", "partial rescore: 450 of 900 items"),
        ({"config": VAL, "rescored_from": {"format": "lmms-eval"}}, 900, "full", "full validation split (900 items)"),
    ],
)
def test_each_way_of_choosing_items_has_its_scope(manifest, items, kind, text):
    scope = scope_of(manifest, items=items)
    assert (scope.kind, scope.text) == (kind, text)
    assert scope.full is (kind == "full")
    assert Scope.from_json(scope.to_json()) == scope


def test_the_rescore_readers_decide_partial_through_the_flag():
    """``partial`` is the rescore readers' call (issue 27): the record takes it as given."""
    manifest = {"config": VAL, "rescored_from": {"format": "lmms-eval"}}
    assert scope_of(manifest, items=900, partial=True).kind == "partial"
    assert scope_of(manifest, items=450, partial=False).kind == "subset"  # fewer items all the same
    assert scope_of({"config": VAL, "rescored_from": {"format": "x", "partial": True}}, items=900).kind == "partial"


def test_an_older_results_file_gets_its_scope_from_the_manifest():
    results = {"benchmark": "mmmu", "split": "validation", "setting": None, "coverage": {"items": 30}}
    assert scope_of_results(results, {"config": {**VAL, "subjects": ["Art"]}}).text == "subset: 30 of 900 items (subjects Art)"


def test_a_suite_takes_the_least_comparable_of_its_runs():
    full = scope_of({"config": PRO}, items=1730)
    part = scope_of({"config": {**PRO, "limit": 5}}, items=5)
    sample = scope_of({"config": {**PRO, "data": "sample"}}, items=24)
    assert combined_scope({"a": full, "b": full})["kind"] == "full"
    assert combined_scope({"a": full, "b": part})["text"] == "not the full splits: b on a subset: 5 of 1,730 items (--limit 5)"
    assert combined_scope({"a": part, "b": sample})["kind"] == "sample"
