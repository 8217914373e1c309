"""Issue 17, item 6: a suite's bad flags are found before any request, named once, in one line,
with the flag the user gave; and no suite.json is left saying ``running``."""

from __future__ import annotations

import logging
import subprocess
import sys

import pytest
from fakes.fault_server import FaultServer

from mmmu_eval.core.errors import ConfigError
from mmmu_eval.suite.execute import evaluate_suite

from .conftest import quiet


def errors_logged(caplog) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]


@pytest.mark.parametrize("flags, named", [
    ({"data": "/nonexistent"}, "--data /nonexistent: no such directory"),
    ({"data": "/nonexistent", "mmmu": False}, "--data /nonexistent: no such directory"),
    ({"data": "sample", "mmmu_data": "/nonexistent"}, "--mmmu-data /nonexistent: no such directory"),
])
def test_a_missing_data_directory_is_named_once_before_any_request(tmp_path, caplog, flags, named):
    with FaultServer(fault_rate=0.0) as server:
        with pytest.raises(ConfigError) as caught:
            evaluate_suite(model="openai:fake-model", base_urls=[server.url], out=tmp_path / "s", display=quiet(),
                           limit=2, **flags)
        assert (server.received, server.listings) == (0, 0), "found before any request"
    message = str(caught.value)
    assert message.startswith(named) and message.count("no such directory") == 1 and "\n" not in message
    assert "MMMU folder" not in message and errors_logged(caplog) == []
    assert not (tmp_path / "s").exists(), "nothing written"


def test_an_unreachable_server_is_said_once_and_leaves_no_running_suite(tmp_path, caplog):
    with pytest.raises(ConfigError, match="cannot reach http://127.0.0.1:9/v1") as caught:
        evaluate_suite(model="openai:fake-model", base_urls=["http://127.0.0.1:9/v1"], data="sample",
                       out=tmp_path / "s", display=quiet(), limit=2, max_attempts=1)
    assert "\n" not in str(caught.value)
    assert errors_logged(caplog) == [], "the one cause is raised once, not logged per run as well"
    assert not (tmp_path / "s" / "suite.json").exists()


def test_the_cli_prints_one_line_for_an_unreachable_server(tmp_path):
    out = subprocess.run([sys.executable, "-m", "mmmu_eval", "suite", "--model", "openai:fake-model",
                          "--base-url", "http://127.0.0.1:9/v1", "--data", "sample", "--limit", "2",
                          "--max-attempts", "1", "--out", str(tmp_path / "s")], capture_output=True, text=True, timeout=300)
    lines = [line for line in out.stderr.splitlines() if "cannot reach" in line]
    assert out.returncode != 0 and len(lines) == 1, out.stderr
    assert "Traceback" not in out.stderr
