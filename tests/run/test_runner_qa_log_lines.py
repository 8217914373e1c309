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


async def test_a_model_failing_every_item_logs_five_of_them_then_one_line_for_the_rest(tmp_path, caplog):
    """A broken model wrote a warning per item (900 stderr lines on validation, each its own output
    in a notebook); now the first five, then one line naming how many more and where they are."""
    from mmmu_eval.core.errors import BackendError

    store = RunStore.open(tmp_path / "run", {"protocol": {"fingerprint": "f"}}, resume=False)
    requests = [Request(f"dev_Art_{n}", (TextPart("Q"),), choices=("A", "B")) for n in range(1, 31)]
    backend = ScriptedBackend([BackendError("the model is broken") for _ in range(30)])
    with caplog.at_level(logging.WARNING, logger="mmmu_eval.run.runner"):
        summary = await run_requests(backend, requests, store)
    lines = [r.getMessage() for r in caplog.records]
    assert summary.errors == 30
    assert lines[:5] == [f"dev_Art_{n}: the model is broken" for n in range(1, 6)]
    assert len(lines) == 6
    assert lines[5] == (f"25 more failed items (30 in this session), not listed here: each is in "
                        f"{tmp_path / 'run' / 'responses.jsonl'} with its error")


async def test_every_failure_is_still_logged_at_debug(tmp_path, caplog):
    from mmmu_eval.core.errors import BackendError

    store = RunStore.open(tmp_path / "run", {"protocol": {"fingerprint": "f"}}, resume=False)
    requests = [Request(f"dev_Art_{n}", (TextPart("Q"),), choices=("A", "B")) for n in range(1, 9)]
    with caplog.at_level(logging.DEBUG, logger="mmmu_eval.run.runner"):
        await run_requests(ScriptedBackend([BackendError("broken") for _ in requests]), requests, store)
    assert all(any(r.getMessage() == f"dev_Art_{n}: broken" for r in caplog.records) for n in range(1, 9))


def test_evaluate_with_a_broken_model_logs_one_summary_for_the_run(tmp_path, caplog):
    """What a notebook shows for a model whose every call fails: five lines and the count."""
    import mmmu_eval
    from mmmu_eval.run.result import NO_SCORE_STATUS

    def broken(messages):
        raise RuntimeError("no GPU")

    with caplog.at_level(logging.WARNING, logger="mmmu_eval.run.runner"):
        result = mmmu_eval.evaluate(model=broken, benchmark="mmmu-pro", setting="vision", data="sample",
                                    out=str(tmp_path / "run"), display=None)
    lines = [r.getMessage() for r in caplog.records]
    assert result.counts["error"] == 24 and result.exit_status == NO_SCORE_STATUS  # nothing scored: void
    assert len(lines) == 6 and all("the model function raised RuntimeError: no GPU" in line for line in lines[:5])
    assert lines[5].startswith("19 more failed items (24 in this session)")
