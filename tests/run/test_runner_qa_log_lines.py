"""Runner log lines as a user reads them (second-wave QA)."""

import logging

from fakes.scripted_backend import Raise, ScriptedBackend
from mmmu_eval.core.errors import DataError
from mmmu_eval.core.records import Request, TextPart
from mmmu_eval.run.runner import run_requests
from mmmu_eval.store.rundir import RunStore


async def test_an_item_error_is_logged_with_its_id_once(tmp_path, caplog):
    """The warning read "dev_Art_1: dev_Art_1: image_1 is not a readable image": stored errors
    already start with the item id and the runner prefixed it again."""
    store = RunStore.open(tmp_path / "run", {"protocol": {"fingerprint": "f"}}, resume=False)
    backend = ScriptedBackend([Raise(DataError("image_1 is not a readable image", "dev_Art_1"))])
    with caplog.at_level(logging.WARNING, logger="mmmu_eval.run.runner"):
        await run_requests(backend, [Request("dev_Art_1", (TextPart("Q"),), choices=("A", "B"))], store)
    assert [r.getMessage() for r in caplog.records] == ["dev_Art_1: image_1 is not a readable image"]
