"""Your own model in-process (``backends/custom.py``): a function, a ``generate`` object, a plug-in."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

import mmmu_eval
from mmmu_eval.backends.custom import as_backend, model_spec
from mmmu_eval.backends.openai_api import OpenAIBackend
from mmmu_eval.backends.registry import ENTRY_POINT_GROUP, make_backend, parse_spec
from mmmu_eval.backends.settings import CustomSettings
from mmmu_eval.core.config import RunConfig
from mmmu_eval.dataset.load import load_benchmark
from mmmu_eval.core.errors import ConfigError
from mmmu_eval.prompt.protocol import EvalProtocol, build_request
from mmmu_eval.core.records import Response
from mmmu_eval.run.backend_settings import backend_settings

PRO_VISION = {"benchmark": "mmmu-pro", "setting": "vision", "data": "sample"}


def _responses(run_dir: Path) -> dict[str, dict]:
    rows = [json.loads(line) for line in (run_dir / "responses.jsonl").read_text().splitlines()]
    return {row["item_id"]: row for row in rows}


def test_a_plain_function_gets_the_openai_messages_and_its_answers_are_scored(tmp_path):
    seen: dict[str, list] = {}

    def my_model(messages):
        key = json.dumps(messages)
        seen[key] = messages
        return "<think>look at the image</think>The answer is (B)."

    result = mmmu_eval.evaluate(model=my_model, out=str(tmp_path / "run"), **PRO_VISION)
    assert result.exit_status == 0 and result.counts["ok"] == result.counts["items"] == 24
    # byte for byte the messages openai: puts on the wire for each item
    config = RunConfig(model="openai:m", benchmark="mmmu-pro", setting="vision")
    protocol = EvalProtocol.from_config(config)
    wire = OpenAIBackend("m", api_key="k")
    for item in load_benchmark("mmmu-pro", setting="vision", data="sample").items:
        body, _ = wire.encode_body(build_request(item, protocol))
        assert json.dumps(json.loads(body)["messages"]) in seen, item.id
    stored = _responses(tmp_path / "run")
    assert {row["text"] for row in stored.values()} == {"The answer is (B)."}
    assert {row["reasoning"] for row in stored.values()} == {"look at the image"}
    predictions = [json.loads(line) for line in (tmp_path / "run" / "predictions.jsonl").read_text().splitlines()]
    assert {p["pred"] for p in predictions} == {"B"}
    manifest = json.loads((tmp_path / "run" / "manifest.json").read_text())
    assert manifest["config"]["model"] == model_spec(my_model)
    assert manifest["config"]["model"].endswith("test_custom_model.test_a_plain_function_gets_the_openai_messages_and_its_answers_are_scored.my_model")


def test_a_function_that_fails_on_some_items_stores_errors_and_resume_asks_only_those(tmp_path):
    calls: list[str] = []
    broken = {"on": True}

    def flaky(messages):
        text = json.dumps(messages)
        calls.append(text)
        if broken["on"] and len(calls) % 3 == 0:
            raise RuntimeError("GPU fell over")
        return "A"

    out = str(tmp_path / "run")
    first = mmmu_eval.evaluate(model=flaky, out=out, **PRO_VISION)
    errors = {k: v for k, v in _responses(Path(out)).items() if v["status"] == "error"}
    assert first.exit_status == 1 and len(errors) == 8
    assert {v["error"] for v in errors.values()} == {"the model function raised RuntimeError: GPU fell over"}
    broken["on"] = False
    calls.clear()
    second = mmmu_eval.evaluate(model=flaky, out=out, resume=True, **PRO_VISION)
    assert second.exit_status == 0 and len(calls) == 8, "only the failed items are asked again"


def test_a_function_that_returns_no_text_is_that_items_error(tmp_path):
    result = mmmu_eval.evaluate(model=lambda messages: None, out=str(tmp_path / "run"), **PRO_VISION)
    assert result.counts["error"] == 24
    assert {r["error"] for r in _responses(tmp_path / "run").values()} == {
        "the model function returned NoneType, not the answer's text (str)"}


def test_a_sync_function_runs_in_concurrency_threads_at_most(tmp_path):
    lock, now, peak, threads = threading.Lock(), [0], [0], set()

    def slow(messages):
        with lock:
            now[0] += 1
            peak[0] = max(peak[0], now[0])
            threads.add(threading.get_ident())
        time.sleep(0.02)
        with lock:
            now[0] -= 1
        return "C"

    mmmu_eval.evaluate(model=slow, out=str(tmp_path / "run"), concurrency=3, **PRO_VISION)
    assert peak[0] == 3 and threading.get_ident() not in threads


def test_an_async_function_is_awaited_concurrency_at_a_time(tmp_path):
    now, peak = [0], [0]

    async def remote(messages):
        now[0] += 1
        peak[0] = max(peak[0], now[0])
        await asyncio.sleep(0.01)
        now[0] -= 1
        return "D"

    result = mmmu_eval.evaluate(model=remote, out=str(tmp_path / "run"), concurrency=5, **PRO_VISION)
    assert result.counts["ok"] == 24 and peak[0] == 5


def test_an_object_with_only_generate_is_completed_into_a_backend(tmp_path):
    class Batched:
        spec = "my-batched-model"

        def __init__(self):
            self.closed = False

        async def generate(self, requests):
            for request in requests:
                yield Response(request.item_id, "ok", text="A", finish_reason="stop")

        def close(self):
            self.closed = True

    model = Batched()
    result = mmmu_eval.evaluate(model=model, out=str(tmp_path / "run"), **PRO_VISION)
    assert result.counts["ok"] == 24 and model.closed
    manifest = json.loads((tmp_path / "run" / "manifest.json").read_text())
    assert manifest["config"]["model"] == "my-batched-model"


def test_what_is_not_a_model_is_refused_saying_what_is_accepted():
    for wrong in (42, object(), int):
        with pytest.raises(ConfigError, match="a function messages -> str"):
            as_backend(wrong)


def test_the_spec_of_a_function_is_stable_and_names_it():
    def inner(messages):
        return "A"

    assert model_spec(inner) == model_spec(inner) == f"python:{__name__}.test_the_spec_of_a_function_is_stable_and_names_it.inner"


# -- plug-ins: a real installed distribution with an entry point, found by importlib.metadata --

PLUGIN_MODULE = '''
from mmmu_eval.core.records import Response


def echo(name):
    """A factory: the model object for --model echo:NAME answers NAME to every question."""
    def answer(messages):
        return f"The answer is ({name})."
    answer.spec = f"echo:{name}"
    return answer


class Fixed:
    """A class with from_settings, as the built-in backends: given a CustomSettings."""

    def __init__(self, letter, settings=None):
        self.spec, self.letter, self.settings = f"fixed:{letter}", letter, settings

    @classmethod
    def from_settings(cls, name, settings):
        return cls(name or "A", settings)

    async def preflight(self, requests):
        return None

    async def generate(self, requests):
        for request in requests:
            yield Response(request.item_id, "ok", text=self.letter, finish_reason="stop")

    async def aclose(self):
        return None

    def describe(self):
        return {"backend": "fixed", "letter": self.letter, "settings": type(self.settings).__name__,
                "concurrency": self.settings.concurrency, "seed": self.settings.seed}


class Legacy:
    """A class with the hook before settings records: from_config(name, config, items)."""

    @classmethod
    def from_config(cls, name, config, items=()):
        raise AssertionError("never called")
'''


@pytest.fixture
def plugin_path(tmp_path):
    site = tmp_path / "site"
    (site / "mmmu_eval_echo_plugin-0.1.dist-info").mkdir(parents=True)
    (site / "mmmu_eval_echo_plugin.py").write_text(PLUGIN_MODULE)
    info = site / "mmmu_eval_echo_plugin-0.1.dist-info"
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: mmmu-eval-echo-plugin\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(
        f"[{ENTRY_POINT_GROUP}]\necho = mmmu_eval_echo_plugin:echo\nfixed = mmmu_eval_echo_plugin:Fixed\n"
        "legacy = mmmu_eval_echo_plugin:Legacy\n"
        "openai = mmmu_eval_echo_plugin:echo\n"
    )
    return site


def test_an_installed_plugin_is_found_by_its_entry_point(plugin_path, monkeypatch):
    monkeypatch.syspath_prepend(str(plugin_path))
    entry, name = parse_spec("echo:C")
    assert (entry.module, entry.cls, name) == ("mmmu_eval_echo_plugin", "echo", "C")
    assert parse_spec("openai:gpt-4o")[0].module == "mmmu_eval.backends.openai_api", "a plug-in never shadows a built-in"


def test_a_plugin_class_is_given_the_documented_custom_settings_and_nothing_else(plugin_path, monkeypatch):
    """What a third-party backend receives (docs/guides/custom-model.md): a CustomSettings built
    from the run's flags; never the run's configuration, never its items."""
    monkeypatch.syspath_prepend(str(plugin_path))
    settings = backend_settings(RunConfig(model="fixed:D", concurrency=3, generation_seed=7, price_input=2.0))
    backend = make_backend("fixed:D", settings)
    assert backend.settings is settings.custom and isinstance(backend.settings, CustomSettings)
    assert backend.describe() == {"backend": "fixed", "letter": "D", "settings": "CustomSettings", "concurrency": 3, "seed": 7}
    with pytest.raises(ConfigError, match=r"from_config\(name, config, items\).*from_settings\(name, settings\)"):
        make_backend("legacy:x", settings)


@pytest.mark.slow
@pytest.mark.parametrize(("spec", "answer"), [("echo:C", "The answer is (C)."), ("fixed:D", "D")], ids=["factory", "class"])
def test_the_cli_runs_a_plugin_model(plugin_path, tmp_path, spec, answer):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(plugin_path), os.environ.get("PYTHONPATH", "")])}
    out = tmp_path / "run"
    done = subprocess.run(
        [sys.executable, "-m", "mmmu_eval", "run", "--benchmark", "mmmu-pro", "--setting", "vision", "--data",
         "sample", "--model", spec, "--out", str(out)], env=env, capture_output=True, text=True, timeout=120,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert {row["text"] for row in _responses(out).values()} == {answer}
    assert len(_responses(out)) == 24
    assert json.loads((out / "manifest.json").read_text())["config"]["model"] == spec
