"""Token usage read from chat completions: prompt, completion and, where reported, reasoning tokens."""

from __future__ import annotations

import pytest

from mmmu_eval.backends.openai_api import parse_completion


def completion(usage: object) -> dict:
    return {
        "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": "(B)"}}],
        "usage": usage,
    }


def test_reasoning_tokens_come_from_completion_tokens_details():
    """OpenAI's o-series and vLLM reasoning parsers report them under completion_tokens_details."""
    usage = {"prompt_tokens": 900, "completion_tokens": 350, "total_tokens": 1250,
             "completion_tokens_details": {"reasoning_tokens": 320, "accepted_prediction_tokens": 0}}
    r = parse_completion("i", completion(usage))
    assert (r.prompt_tokens, r.completion_tokens, r.reasoning_tokens) == (900, 350, 320)


@pytest.mark.parametrize(
    "usage",
    [
        {"prompt_tokens": 9, "completion_tokens": 3},
        {"prompt_tokens": 9, "completion_tokens": 3, "completion_tokens_details": None},
        {"prompt_tokens": 9, "completion_tokens": 3, "completion_tokens_details": {"reasoning_tokens": "many"}},
        {"prompt_tokens": 9, "completion_tokens": 3, "completion_tokens_details": {"reasoning_tokens": True}},
    ],
)
def test_servers_that_do_not_report_reasoning_tokens_leave_them_none(usage):
    r = parse_completion("i", completion(usage))
    assert (r.prompt_tokens, r.completion_tokens, r.reasoning_tokens) == (9, 3, None)


def test_no_usage_at_all_leaves_every_count_none():
    r = parse_completion("i", completion(None))
    assert (r.prompt_tokens, r.completion_tokens, r.reasoning_tokens) == (None, None, None)
