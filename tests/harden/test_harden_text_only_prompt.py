"""The text a filter (or check) model reads: MMMU-Pro's standard prompt string with the images
withheld and their places marked.

The marker is ``<image>``, what the official standard prompt puts where each image is
(official-protocol.md section 6.3): the text-only model reads exactly the characters a
multimodal model reads in the standard setting, less the pixels. An option that is only an image
reads ``A. <image>``, never an empty ``A. ``. The server below is a real HTTP server; what it
receives is what an OpenAI-compatible endpoint would.
"""

from __future__ import annotations

import threading

from fakes.fault_server import FaultServer
from fakes.mc_set import user_text, write_jsonl_set
from mmmu_eval.harden import FilterSettings, harden_filter
from mmmu_eval.harden.source import read_source
from mmmu_eval.prompt.mmmu_pro_templates import display_prompt

ROWS = [
    {"id": "test_Economics_1", "question": "According to <image 1>, which item costs 50?",
     "options": ["tea", "bread", "milk", "rice"], "answer": "B", "image_1": "auto"},
    {"id": "test_Biology_1", "question": "Which picture shows a cell?",
     "options": ["<image 1>", "<image 2>", "both <image 1> and <image 2>", "neither"], "answer": "A",
     "image_1": "auto", "image_2": "auto"},
]


class Recorder:
    """A model that answers A and keeps every request body it was sent."""

    def __init__(self) -> None:
        self.bodies: list[dict] = []
        self._lock = threading.Lock()

    def __call__(self, body: dict) -> str:
        with self._lock:
            self.bodies.append(body)
        return "A"


def test_the_trials_read_the_official_text_with_each_image_marked_and_no_image_sent(tmp_path, quiet):
    data = write_jsonl_set(tmp_path / "set", ROWS)
    items = {it.id: it for it in read_source(data).items}
    model = Recorder()
    with FaultServer(fault_rate=0.0, answer=model) as server:
        result = harden_filter(data, tmp_path / "hard", FilterSettings(models="openai:fake-model", base_urls=[server.url], trials=1, per_subject=0), display=quiet)
    assert result.status == "complete"
    asked = {}
    for body in model.bodies:
        text = user_text(body)
        for item_id in items:
            if items[item_id].question.split("<")[0] in text:
                asked[item_id] = (text, body)
    assert set(asked) == set(items)
    for item_id, (text, body) in asked.items():
        assert text == display_prompt(items[item_id], "standard-4", "forced-choice")
        parts = [p for m in body["messages"] for p in (m["content"] if isinstance(m["content"], list) else [])]
        assert all(p.get("type") == "text" for p in parts), "no image is sent"
    economics = asked["test_Economics_1"][0]
    assert economics.startswith("According to <image>, which item costs 50?\nA. tea\n")
    biology = asked["test_Biology_1"][0].splitlines()
    assert biology[1:5] == ["A. <image>", "B. <image>", "C. both <image> and <image>", "D. neither"]
    assert all(line.strip() not in ("A.", "B.", "C.", "D.") for line in biology)
