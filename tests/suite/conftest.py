"""Suite fixtures: the fake OpenAI-compatible server answering every run of a suite by a known pattern.

The server cannot see which run a request belongs to, so the test builds every request of every
run the way the suite will (dataset -> RunConfig -> protocol -> build_request -> the OpenAI
backend's own body), keys it as the server keys it (``request_key``), and gives the server a table
from key to answer text. The pattern says, per run and item, whether the answer is right, so
each test can work out every figure of the study by hand.
"""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from dataclasses import dataclass

import pytest
from rich.console import Console

from fakes.fault_server import FaultServer, request_key
from mmmu_eval.backends.openai_api import OpenAIBackend
from mmmu_eval.core.config import RunConfig
from mmmu_eval.dataset.load import load_benchmark
from mmmu_eval.prompt.protocol import EvalProtocol, build_request
from mmmu_eval.core.records import Item
from mmmu_eval.suite.suite_progress import SuiteDisplay

#: (setting or None for MMMU, prompt) of every run a suite with ``ocr=True`` makes.
RUNS = [(s, p) for s in ("standard-4", "standard-10", "vision") for p in ("direct", "cot")] + [("vision", "ocr"), (None, "direct")]


def quiet() -> SuiteDisplay:
    return SuiteDisplay(Console(file=io.StringIO()), plain=True)


@dataclass
class Pattern:
    """Which item each run gets right: ``right[(setting, prompt)][item id] -> bool``."""

    items: dict[tuple[str | None, str], tuple[Item, ...]]
    right: dict[tuple[str | None, str], dict[str, bool]]
    answers: dict[str, str]
    """request key -> the server's answer text."""

    def answer(self, body: dict) -> str:
        """The server's answer to a request body (a request outside the suite gets a letter no item has)."""
        return self.answers.get(request_key(body), "The answer is (Z).")

    def accuracy(self, run: tuple[str | None, str]) -> float:
        marks = self.right[run]
        return sum(marks.values()) / len(marks)


def _run_config(setting: str | None, prompt: str, **extra) -> RunConfig:
    if setting is None:
        return RunConfig(model="openai:fake-model", benchmark="mmmu", split="validation", prompt=prompt, data="sample", **extra)
    return RunConfig(model="openai:fake-model", benchmark="mmmu-pro", setting=setting, prompt=prompt, data="sample", **extra)


def answer_text(item: Item, right: bool) -> str:
    """A response the official parsers read as the gold answer (right) or as another one (wrong)."""
    if item.question_type == "open":
        gold = item.answer if isinstance(item.answer, str) else item.answer[0]
        return f"The answer is {gold}." if right else "I cannot tell."
    letters = list(item.choices) or [chr(65 + i) for i in range(len(item.options))]
    letter = item.answer if right else next(x for x in letters if x != item.answer)
    return f"The answer is ({letter})."


def build_pattern(rule: Callable[[int, int, Item], bool], **config) -> Pattern:
    """The answers for every request of every run: ``rule(run index, item index, item) -> right``."""
    encoder = OpenAIBackend("fake-model", base_urls=["http://127.0.0.1:9/v1"], api_key="k")
    items, right, answers, verdicts = {}, {}, {}, {}
    for r, (setting, prompt) in enumerate(RUNS):
        cfg = _run_config(setting, prompt, **config)
        data = load_benchmark(cfg.benchmark, split=cfg.resolved_split if setting is None else None,
                            setting=cfg.resolved_setting, data="sample")
        protocol = EvalProtocol.from_config(cfg)
        items[(setting, prompt)] = data.items
        right[(setting, prompt)] = {}
        for i, item in enumerate(data.items):
            body = json.loads(encoder.encode_body(build_request(item, protocol))[0])
            key = request_key(body)
            # A request the server saw in an earlier run (validation_Accounting_29 has the same three
            # options in standard-4 and standard-10) gets the same answer again.
            ok = verdicts[key] if key in verdicts else rule(r, i, item)
            verdicts[key] = ok
            right[(setting, prompt)][item.id] = ok
            answers[key] = answer_text(item, ok)
    return Pattern(items, right, answers)


def periodic_pattern() -> Pattern:
    """Each run right on a different share of the items (every third, every second, ...)."""
    periods = [3, 2, 4, 5, 2, 3, 4, 3]  # per run in RUNS order

    def rule(r: int, i: int, item: Item) -> bool:
        return (i + r) % periods[r] != 0

    return build_pattern(rule)


@pytest.fixture
def pattern() -> Pattern:
    return periodic_pattern()


@pytest.fixture
def served(pattern):
    """A fault-free fake server that answers each request of the suite by the pattern."""
    with FaultServer(fault_rate=0.0, answer=pattern.answer) as server:
        yield server
