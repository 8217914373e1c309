"""What we send that is secret never comes back into a stored or printed text (issue 29).

The end-to-end case (a real server echoing the headers) is in tests/run/test_hostile_servers.py;
these rows pin down what counts as a secret and what does not.
"""

from __future__ import annotations

import pytest

from mmmu_eval.backends.openai_http import REDACTED, Endpoint, StatusError

KEY = "sk-proj-abc123DEF456ghi789"


@pytest.fixture
def endpoint(monkeypatch):
    monkeypatch.setenv("OPENAI_ORG_ID", "org-secretorganisation")
    monkeypatch.setenv("OPENAI_PROJECT_ID", "proj_secretproject")
    return Endpoint("https://user:hunter2hunter2@api.example.com/v1", KEY, concurrency=1, timeout=None)


@pytest.mark.parametrize("text, shown", [
    (f"Authorization: Bearer {KEY}", f"Authorization: {REDACTED}"),
    (f"invalid key {KEY}.", f"invalid key {REDACTED}."),
    ("org org-secretorganisation, project proj_secretproject", f"org {REDACTED}, project {REDACTED}"),
    ("proxy saw https://user:hunter2hunter2@api.example.com", f"proxy saw https://user:{REDACTED}@api.example.com"),
    ("Content-Type: application/json; User-Agent: mmmu-eval/1", "Content-Type: application/json; User-Agent: mmmu-eval/1"),
])
def test_the_secrets_we_sent_are_taken_out_and_nothing_else(endpoint, text, shown):
    assert endpoint.redact(text) == shown


def test_a_status_error_holds_no_secret_in_its_message_nor_its_body(endpoint):
    content = ('{"error": {"message": "bad key Bearer ' + KEY + '", "headers": {"authorization": "Bearer ' + KEY + '"}}}').encode()
    error = StatusError(401, {}, content, endpoint.redact)
    assert KEY not in error.message and KEY not in str(error.body) and REDACTED in error.message


def test_a_placeholder_key_is_no_secret():
    """The ``EMPTY`` key sent to a local server would otherwise turn every "EMPTY" in a message into [redacted]."""
    local = Endpoint("http://127.0.0.1:8000/v1", "EMPTY", concurrency=1, timeout=None)
    assert local.redact("the queue is EMPTY") == "the queue is EMPTY"
    assert local.redact("Authorization: Bearer EMPTY") == f"Authorization: {REDACTED}"
