"""Images no <image N> token refers to, end to end: what the server receives, the manifest, the log,
and resuming a run made under the old default."""

from __future__ import annotations

import base64
import json
import logging

import httpx
import pytest
from fakes.parquet_rows import image_cell, mmmu_row, png, pro_row, write_mmmu, write_pro

from mmmu_eval.run.pipeline import evaluate_async
from mmmu_eval.backends.openai_api import OpenAIBackend
from mmmu_eval.backends.retry import RetryPolicy
from mmmu_eval.core.errors import StoreError
from mmmu_eval.run.progress import NullDisplay

RED, GREEN, BLUE = png((200, 0, 0)), png((0, 200, 0)), png((0, 0, 200))
QUESTION = "Compare <image 2> with <image 1>."


class Recorder:
    """A MockTransport handler: lists the models, answers every completion, keeps each body."""

    def __init__(self) -> None:
        self.bodies: list[dict] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith("/models"):
            return httpx.Response(200, json={"object": "list", "data": [{"id": "m", "object": "model", "created": 0, "owned_by": "x"}]})
        self.bodies.append(json.loads(request.content))
        return httpx.Response(200, json={
            "id": "c", "object": "chat.completion", "created": 0, "model": "m",
            "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": "(A)"}}],
            "usage": {"prompt_tokens": 50, "completion_tokens": 2, "total_tokens": 52},
        })

    def images_of(self, marker: str) -> list[bytes]:
        """The images, in order, of the one request whose text contains ``marker``."""
        (body,) = [b for b in self.bodies if marker in json.dumps(b)]
        content = body["messages"][-1]["content"]
        return [base64.b64decode(p["image_url"]["url"].split(",", 1)[1]) for p in content if p["type"] == "image_url"]


def backend(recorder: Recorder) -> OpenAIBackend:
    return OpenAIBackend("m", base_urls=["http://127.0.0.1:9/v1"], api_key="k", transport=httpx.MockTransport(recorder),
                         policy=RetryPolicy(max_attempts=1, base_delay=0.0))


@pytest.fixture(params=["mmmu", "mmmu-pro"])
def snapshot(request, tmp_path):
    """(benchmark, data dir, loose item id): one row whose text names image_2 and image_1 but which also has image_3."""
    root = tmp_path / "snap"
    extra = dict(question=QUESTION, image_1=image_cell(RED, "r.png"), image_2=image_cell(GREEN, "g.png"),
                 image_3=image_cell(BLUE, "b.png"))
    if request.param == "mmmu":
        write_mmmu(root, "Art", "validation", [mmmu_row("validation_Art_1", **extra), mmmu_row("validation_Art_2")])
        return "mmmu", root, "validation_Art_1"
    write_pro(root, "standard-10", [pro_row("test_Art_1", **extra), pro_row("test_Art_2")])
    return "mmmu-pro", root, "test_Art_1"


def settings(benchmark, root, out, **more):
    return dict(benchmark=benchmark, data=str(root), subjects=("Art",), out=out, display=NullDisplay(), html=False, **more)


async def test_only_the_images_tokens_refer_to_are_sent_in_token_order_and_the_run_says_so(snapshot, tmp_path, caplog):
    benchmark, root, loose_id = snapshot
    recorder = Recorder()
    with caplog.at_level(logging.INFO, logger="mmmu_eval"):
        result = await evaluate_async(model=backend(recorder), **settings(benchmark, root, tmp_path / "run"))
    assert result.exit_status == 0
    assert recorder.images_of("Compare ") == [GREEN, RED]  # image_2 then image_1; image_3 not sent
    record = result.manifest["unreferenced_images"]
    assert record == {"rule": "official", "sent": False, "count": 1, "ids": [loose_id], "fields": {loose_id: ["image_3"]}}
    assert result.manifest["protocol"]["official"] is True
    lines = [r.getMessage() for r in caplog.records if "no <image N> token refers to" in r.getMessage()]
    assert len(lines) == 1
    assert lines[0].endswith(f"1 item(s) have images no <image N> token refers to, not sent, as the official scripts do "
                             f"(--unreferenced-images append sends them): {loose_id}")


async def test_append_sends_them_after_the_referenced_ones_and_is_not_official(snapshot, tmp_path):
    benchmark, root, loose_id = snapshot
    recorder = Recorder()
    result = await evaluate_async(model=backend(recorder), unreferenced_images="append",
                                  **settings(benchmark, root, tmp_path / "run"))
    assert recorder.images_of("Compare ") == [GREEN, RED, BLUE]
    assert result.manifest["unreferenced_images"]["sent"] is True
    assert result.manifest["protocol"]["official"] is False
    assert result.results["run"]["official"] is False


async def test_a_run_made_under_the_old_default_is_refused_with_the_flag_that_continues_it(snapshot, tmp_path):
    """A run made before the official rule recorded the appending rule; append reproduces its fingerprint."""
    benchmark, root, _ = snapshot
    out = tmp_path / "run"
    first = await evaluate_async(model=backend(Recorder()), unreferenced_images="append", limit=1,
                                 **settings(benchmark, root, out))
    assert first.counts["items"] == 1
    with pytest.raises(StoreError) as refused:
        await evaluate_async(model=backend(Recorder()), resume=True, **settings(benchmark, root, out))
    message = str(refused.value)
    assert "unreferenced_images: 'kept: after the referenced images" in message
    assert "Add --unreferenced-images append to continue it exactly as it was (marked not official)" in message
    recorder = Recorder()
    again = await evaluate_async(model=backend(recorder), unreferenced_images="append", resume=True,
                                 **settings(benchmark, root, out))
    assert again.exit_status == 0 and again.counts["ok"] == 2
    assert len([b for b in recorder.bodies if "Compare " in json.dumps(b)]) == 0  # the answered item is not asked again


def test_merged_shards_name_every_affected_item_as_the_whole_run_does(tmp_path):
    from mmmu_eval.run.pipeline import evaluate
    from mmmu_eval.cli.main import main
    from mmmu_eval.store.rundir import RunStore

    root = tmp_path / "snap"
    loose = dict(question="Only <image 1>.", image_2=image_cell(GREEN, "g.png"))
    write_mmmu(root, "Art", "validation", [
        mmmu_row(f"validation_Art_{k}", **(loose if k % 2 else {})) for k in range(1, 8)
    ])
    common = dict(model="random", data=str(root), subjects=("Art",), html=False)
    whole = evaluate(**common, out=tmp_path / "whole")
    shards = [evaluate(**common, shard=(k, 3), out=tmp_path / f"s{k}") for k in (1, 2, 3)]
    assert main(["merge", *(str(s.run_dir) for s in shards), "--out", str(tmp_path / "merged")]) == 0
    merged = RunStore.read(tmp_path / "merged").manifest()["unreferenced_images"]
    assert merged == whole.manifest["unreferenced_images"]
    assert merged["ids"] == ["validation_Art_1", "validation_Art_3", "validation_Art_5", "validation_Art_7"]
