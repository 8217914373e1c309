"""The official open-answer parser reads '=' as an answer indicator on the last line only.

``get_key_subresponses`` adds ``=`` to the indicators for the last sub-response alone, so an
equation on an earlier line gives no key, and one on the last line does (official-protocol.md 5.3).
"""

from __future__ import annotations

import pytest

from mmmu_eval.scoring.open_answer import eval_open, key_subresponses, parse_open


@pytest.mark.parametrize("response, keys, candidates", [
    ("x = 5\nThe answer is 7", ["7"], [7.0]),        # '=' on the first line is no indicator
    ("The total\ncost = 12", ["12"], [12.0]),         # on the last line it is
    ("a = 3\nb = 4", ["4"], [4.0]),                   # only the last line's equation counts
])
def test_equals_is_an_indicator_on_the_last_line_only(response, keys, candidates):
    assert key_subresponses(response) == keys
    assert parse_open(response) == candidates


def test_an_equation_before_the_last_line_is_not_the_answer():
    assert not eval_open("5", parse_open("x = 5\nThe answer is 7"))
    assert eval_open("7", parse_open("x = 5\nThe answer is 7"))
