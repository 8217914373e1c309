"""The same tiny model answers the same through `transformers serve` + the API backend as in-process."""

import asyncio
import os
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

pytest.importorskip("torch")
pytest.importorskip("fastapi")

from fakes.tiny_models import build_tiny_llava, mmmu_like_requests  # noqa: E402

from mmmu_eval.backends.hf_transformers import HFBackend  # noqa: E402
from mmmu_eval.backends.openai_api import OpenAIBackend  # noqa: E402

pytestmark = pytest.mark.slow

CLI = Path(sys.executable).with_name("transformers")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """`transformers serve` of a tiny LLaVA on loopback; yields (model dir, base URL)."""
    if not CLI.exists() and shutil.which("transformers") is None:
        pytest.skip("the transformers CLI is not installed")
    model_dir = build_tiny_llava(tmp_path_factory.mktemp("served") / "llava")
    port = free_port()
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    log = (tmp_path_factory.mktemp("serve-log") / "serve.log").open("w")
    proc = subprocess.Popen(
        [str(CLI if CLI.exists() else "transformers"), "serve", str(model_dir), "--host", "127.0.0.1",
         "--port", str(port), "--device", "cpu"],
        stdout=log, stderr=subprocess.STDOUT, env=env,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            if proc.poll() is not None:
                pytest.fail(f"transformers serve exited with {proc.returncode}; see {log.name}")
            try:
                if httpx.get(f"{base}/health", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                pytest.fail(f"transformers serve did not come up in 60 s; see {log.name}")
            time.sleep(0.3)
        yield model_dir, f"{base}/v1"
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()


async def test_served_model_gives_the_same_text_and_prompt_tokens_as_the_hf_backend(served):
    model_dir, base_url = served
    requests = mmmu_like_requests(3, max_tokens=8, temperature=0.0)
    local = HFBackend(str(model_dir), batch_size=4, device="cpu")
    await local.preflight(requests)
    in_process = {r.item_id: r async for r in local.generate(requests)}
    await local.aclose()

    api = OpenAIBackend(str(model_dir), base_urls=(base_url,), api_key="EMPTY", concurrency=1)
    try:
        over_http = {r.item_id: r async for r in api.generate(requests)}
    finally:
        await api.aclose()

    assert {k: r.status for k, r in over_http.items()} == {k: r.status for k, r in in_process.items()}
    assert {k: r.text for k, r in over_http.items()} == {k: r.text for k, r in in_process.items()}
    assert {k: r.prompt_tokens for k, r in over_http.items()} == {k: r.prompt_tokens for k, r in in_process.items()}
    assert asyncio.get_running_loop()  # ran inside the test's loop, no nested loops
