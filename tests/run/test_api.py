"""evaluate(): the whole pipeline on the bundled sample and on small snapshots, with scripted backends."""

import json
from datetime import datetime, timezone

import pytest

import mmmu_eval

from mmmu_eval.run.pipeline import RunInterrupted, evaluate, evaluate_async, select_items
from mmmu_eval.run.resolve import parse_shard
from mmmu_eval.core.config import RunConfig
from mmmu_eval.dataset.load import load_benchmark
from mmmu_eval.core.errors import BackendError, ConfigError, StoreError
from mmmu_eval.run.progress import NullDisplay
from mmmu_eval.store.rundir import RunStore

from fakes.parquet_rows import mmmu_row, write_mmmu
from fakes.scripted_backend import Hang, ScriptedBackend, Sigint

QUIET = {"display": NullDisplay(), "html": False}
DEV = {"benchmark": "mmmu", "split": "dev", "data": "sample"}
DEV_IDS = [it.id for it in load_benchmark("mmmu", split="dev", data="sample").items]


def test_a_random_run_on_the_sample_writes_a_complete_run_directory(tmp_path):
    result = evaluate(model="random", out=tmp_path / "run", display=NullDisplay(), **DEV)
    names = sorted(p.name for p in result.run_dir.iterdir())
    assert names == ["manifest.json", "predictions.jsonl", "report.html", "responses.jsonl", "results.json"]
    m = json.loads((result.run_dir / "manifest.json").read_text())
    assert m["status"] == "complete" and m["counts"] == {"items": 20, "ok": 20, "truncated": 0, "error": 0, "missing": 0}
    assert m["config"]["model"] == "random" and m["config"]["split"] == "dev"
    assert len(m["protocol"]["fingerprint"]) == 64 and m["protocol"]["official"] is True
    assert m["dataset"]["revision"].startswith("bundled-") and len(m["dataset"]["digest"]) == 64
    assert m["backend"] == {"backend": "random", "seed": 0, "open_questions": "empty answer"}
    assert m["item_ids"] == DEV_IDS and m["shard"] is None
    assert m["package_version"] == mmmu_eval.__version__
    started, ended = (datetime.fromisoformat(m[key]) for key in ("started_at", "ended_at"))
    assert started.tzinfo is not None and started <= ended <= datetime.now(timezone.utc)
    results = json.loads((result.run_dir / "results.json").read_text())
    assert results["overall"]["n"] == 20 and result.accuracy == results["overall"]["accuracy"]
    assert result.exit_status == 0 and result.message is None
    assert len((result.run_dir / "predictions.jsonl").read_text().splitlines()) == 20


def test_the_same_seed_gives_the_same_answers_and_another_seed_others(tmp_path):
    """With the seed not reaching the backend, the first check alone still passed."""
    def texts(result):
        return {i: r.text for i, r in RunStore.read(result.run_dir).responses().items()}

    a = evaluate(model="random", generation_seed=3, out=tmp_path / "a", **QUIET, **DEV)
    b = evaluate(model="random", generation_seed=3, out=tmp_path / "b", **QUIET, **DEV)
    c = evaluate(model="random", generation_seed=4, out=tmp_path / "c", **QUIET, **DEV)
    assert texts(a) == texts(b)
    assert texts(a) != texts(c)
    with pytest.warns(DeprecationWarning, match="seed= is deprecated .* pass generation_seed="):
        old = evaluate(model="random", seed=3, out=tmp_path / "old", **QUIET, **DEV)  # the name before, one release
    assert texts(old) == texts(a) and old.manifest["config"]["generation_seed"] == 3
    with pytest.raises(ConfigError, match="seed= and generation_seed= set the same thing"):
        evaluate(model="random", seed=3, generation_seed=4, out=tmp_path / "both", **QUIET, **DEV)


def test_resume_asks_only_failed_and_missing_items(tmp_path):
    out = tmp_path / "run"
    first = ScriptedBackend(["A", BackendError("HTTP 503"), "B", BackendError("timeout"), "C"])
    result = evaluate(model=first, ids=DEV_IDS[:5], out=out, **QUIET, **DEV)
    assert result.counts == {"items": 5, "ok": 3, "truncated": 0, "error": 2, "missing": 0}
    assert result.exit_status == 1 and "Make the same call again (or pass resume=True)" in result.message
    assert json.loads((out / "results.json").read_text())["overall"]["n"] == 3  # errors are never scored

    second = ScriptedBackend(["D", "E"])
    result = evaluate(model=second, ids=DEV_IDS[:5], out=out, resume=True, **QUIET, **DEV)
    assert [r.item_id for r in second.asked] == [DEV_IDS[1], DEV_IDS[3]]
    assert result.counts["ok"] == 5 and result.exit_status == 0
    assert [r.text for r in RunStore.read(out).responses().values()][-2:] == ["D", "E"]
    assert RunStore.read(out).manifest()["sessions"] == 2


def test_the_same_call_again_continues_the_run_as_the_same_command_does(tmp_path):
    """Issue 39: a repeat of ``evaluate(..., out=X)`` raised "pass --resume", while the same
    command again continued the run; now both continue it (here: finished already, nothing asked),
    and ``resume=False`` refuses it, naming the keyword that continues it."""
    first = evaluate(model="random", out=tmp_path / "run", limit=2, **QUIET, **DEV)
    again = evaluate(model="random", out=tmp_path / "run", limit=2, **QUIET, **DEV)
    assert (again.run_dir, again.counts, again.results) == (first.run_dir, first.counts, first.results)
    assert RunStore.read(tmp_path / "run").manifest()["sessions"] == 1  # answered from its files
    with pytest.raises(StoreError, match=r"already holds a run \(2 responses\); continue it with resume=True, or "
                                         "choose a new out="):
        evaluate(model="random", out=tmp_path / "run", limit=2, resume=False, **QUIET, **DEV)


def test_a_changed_protocol_cannot_resume(tmp_path):
    evaluate(model="random", out=tmp_path / "run", limit=2, **QUIET, **DEV)
    with pytest.raises(StoreError, match=r"differs in .*max_tokens: None -> 64.*new out="):
        evaluate(model="random", out=tmp_path / "run", limit=2, resume=True, max_tokens=64, **QUIET, **DEV)


@pytest.fixture
def snapshot(tmp_path):
    """dev_Art_2 refers to <image 3> but has one image: its request cannot be built."""
    root = tmp_path / "snap"
    write_mmmu(root, "Art", "dev", [
        mmmu_row("dev_Art_1"), mmmu_row("dev_Art_2", question="Compare <image 3>."), mmmu_row("dev_Art_3")])
    return root


def test_an_item_whose_request_cannot_be_built_is_a_stored_error_and_the_run_goes_on(tmp_path, snapshot):
    backend = ScriptedBackend(["B", "B"])
    result = evaluate(model=backend, benchmark="mmmu", split="dev", data=str(snapshot), out=tmp_path / "run", **QUIET)
    assert [r.item_id for r in backend.asked] == ["dev_Art_1", "dev_Art_3"]
    error = RunStore.read(result.run_dir).responses()["dev_Art_2"]
    assert error.status == "error" and error.error.startswith("dev_Art_2: ") and "<image 3>" in error.error
    assert result.counts == {"items": 3, "ok": 2, "truncated": 0, "error": 1, "missing": 0}
    assert result.results["overall"] == {**result.results["overall"], "n": 2, "correct": 2}


def test_ctrl_c_stops_cleanly_keeping_the_answers_and_the_same_call_finishes_the_run(tmp_path):
    out = tmp_path / "run"
    with pytest.raises(RunInterrupted) as info:
        evaluate(model=ScriptedBackend(["A", "B", Sigint()]), ids=DEV_IDS[:5], out=out, **QUIET, **DEV)
    assert f"2 of 5 items have an answer stored in {out}" in str(info.value) and "resume=True" in str(info.value)
    store = RunStore.read(out)
    assert list(store.responses()) == DEV_IDS[:2] and store.manifest()["status"] == "interrupted"

    rest = ScriptedBackend(["C", "D", "E"])
    result = evaluate(model=rest, ids=DEV_IDS[:5], out=out, **QUIET, **DEV)  # the same call, as the error says
    assert [r.item_id for r in rest.asked] == DEV_IDS[2:5] and result.counts["ok"] == 5


async def test_cancelling_evaluate_async_marks_the_run_interrupted(tmp_path):
    import asyncio

    out = tmp_path / "run"
    backend = ScriptedBackend(["A", Hang()])
    task = asyncio.create_task(evaluate_async(model=backend, limit=3, out=out, **QUIET, **DEV))
    deadline = asyncio.get_running_loop().time() + 60
    while not ((out / "responses.jsonl").exists() and (out / "responses.jsonl").read_text()):
        assert asyncio.get_running_loop().time() < deadline and not task.done(), "the first answer was not stored"
        await asyncio.sleep(0.005)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert RunStore.read(out).manifest()["status"] == "interrupted" and backend.closed


def test_shards_partition_the_selection_round_robin():
    items = load_benchmark("mmmu", split="validation", data="sample").items
    config = RunConfig(model="random", data="sample")
    slices = [select_items(items, RunConfig(model="random", data="sample", shard=(k, 3))) for k in (1, 2, 3)]
    assert sorted(it.id for s in slices for it in s) == sorted(it.id for it in items)
    for k, chosen in enumerate(slices, start=1):
        assert [it.id for it in chosen] == [it.id for i, it in enumerate(items) if i % 3 + 1 == k]
    assert select_items(items, config) == items


def test_a_shard_run_records_its_shard_and_its_items(tmp_path):
    result = evaluate(model="random", shard="2/3", out=tmp_path / "s2", **QUIET, **DEV)
    assert result.manifest["shard"] == [2, 3] and result.manifest["item_ids"] == DEV_IDS[1::3]


def test_limit_applies_before_the_shard_and_ids_keep_dataset_order():
    items = load_benchmark("mmmu", split="dev", data="sample").items
    picked = select_items(items, RunConfig(model="random", ids=(DEV_IDS[5], DEV_IDS[1], DEV_IDS[3]), limit=2, shard=(2, 2)))
    assert [it.id for it in picked] == [DEV_IDS[3]]


def test_an_unknown_id_is_a_config_error_with_the_closest_ids():
    items = load_benchmark("mmmu", split="dev", data="sample").items
    with pytest.raises(ConfigError, match=r"ids=: .*dev_Accounting_1"):
        select_items(items, RunConfig(model="random", ids=("dev_Acounting_1",)))


@pytest.mark.parametrize("text", ["0/3", "4/3", "2", "a/b"])
def test_a_bad_shard_is_refused(text):
    with pytest.raises(ConfigError, match=f"shard='{text}'"):
        parse_shard(text)


def test_an_unknown_setting_name_suggests_the_right_one():
    with pytest.raises(ConfigError, match="unknown run setting 'temprature'; did you mean temperature"):
        evaluate(model="random", temprature=0.0)


def test_the_api_key_never_reaches_the_manifest(tmp_path, monkeypatch):
    """A backend that let its key slip into describe() still leaves no key on disk."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret-123456789")

    class Leaky(ScriptedBackend):
        def describe(self):
            return {"backend": "leaky", "headers": {"Authorization": "Bearer sk-secret-123456789"}}

    result = evaluate(model=Leaky(["A"] * 2), limit=2, out=tmp_path / "run", **QUIET, **DEV)
    for path in result.run_dir.iterdir():
        assert "sk-secret-123456789" not in path.read_text()


@pytest.mark.parametrize("setting", ["standard-10", "standard-4", "vision"])
def test_mmmu_pro_settings_run_on_the_sample(tmp_path, setting):
    result = evaluate(model="random", benchmark="mmmu-pro", setting=setting, data="sample", out=tmp_path / setting, **QUIET)
    assert result.counts["ok"] == result.counts["items"] == 24
    assert result.manifest["protocol"]["setting"] == setting and result.results["setting"] == setting


def test_frequent_and_text_only_run_end_to_end(tmp_path):
    frequent = evaluate(model="frequent", out=tmp_path / "f", **QUIET, **DEV)
    assert frequent.manifest["backend"]["backend"] == "frequent" and frequent.exit_status == 0
    text_only = evaluate(model="text-only:random", out=tmp_path / "t", **QUIET, **DEV)
    assert text_only.manifest["backend"] == {"backend": "text-only", "images": "withheld",
                                             "inner": {"backend": "random", "seed": 0, "open_questions": "empty answer"}}


def test_the_mmmu_test_split_gets_a_submission_file(tmp_path, snapshot):
    write_mmmu(snapshot, "Art", "test", [mmmu_row("test_Art_1", answer="?"), mmmu_row("test_Art_2", answer="?")])
    result = evaluate(model=ScriptedBackend(["C", "A"]), benchmark="mmmu", split="test", data=str(snapshot),
                      out=tmp_path / "run", **QUIET)
    assert json.loads((result.run_dir / "submission.json").read_text()) == {"test_Art_1": "C", "test_Art_2": "A"}
    assert result.results["gold_available"] is False


def test_an_answer_file_scores_the_test_split(tmp_path, snapshot):
    write_mmmu(snapshot, "Art", "test", [mmmu_row("test_Art_1", answer="?"), mmmu_row("test_Art_2", answer="?")])
    answers = tmp_path / "answer_dict_test.json"
    answers.write_text(json.dumps({"test_Art_1": {"question_type": "multiple-choice", "ground_truth": "C"},
                                   "test_Art_2": {"question_type": "multiple-choice", "ground_truth": "B"}}))
    result = evaluate(model=ScriptedBackend(["C", "A"]), benchmark="mmmu", split="test", data=str(snapshot),
                      answers=str(answers), out=tmp_path / "run", **QUIET)
    assert result.results["gold_available"] is True
    assert (result.results["overall"]["n"], result.results["overall"]["correct"]) == (2, 1)


def test_a_failed_preflight_stops_before_anything_is_written(tmp_path):
    class Unreachable(ScriptedBackend):
        async def preflight(self, requests):
            raise ConfigError("http://127.0.0.1:9/v1 is not reachable; start the server or fix --base-url")

    backend = Unreachable([])
    with pytest.raises(ConfigError, match="not reachable"):
        evaluate(model=backend, out=tmp_path / "run", **QUIET, **DEV)
    assert not (tmp_path / "run").exists() and backend.closed


async def test_evaluate_inside_an_event_loop_runs_as_outside_it(tmp_path):
    """A notebook cell runs inside an event loop: evaluate() works there (tests/test_notebook.py has more)."""
    result = evaluate(model="random", out=tmp_path / "run", **QUIET, **DEV)
    assert result.exit_status == 0 and result.counts["ok"] == result.counts["items"]


def test_an_interrupted_run_records_its_counts(tmp_path):
    out = tmp_path / "run"
    with pytest.raises(RunInterrupted):
        evaluate(model=ScriptedBackend(["A", BackendError("HTTP 500"), Sigint()]), ids=DEV_IDS[:4], out=out, **QUIET, **DEV)
    assert RunStore.read(out).manifest()["counts"] == {"items": 4, "ok": 1, "truncated": 0, "error": 1, "missing": 2}


def test_a_mismatched_resume_is_refused_before_the_backend_is_built_or_probed(tmp_path):
    """Loading a local model takes minutes: the protocol check must come before it."""
    evaluate(model="random", out=tmp_path / "run", limit=2, **QUIET, **DEV)
    backend = ScriptedBackend([], spec="random")
    with pytest.raises(StoreError, match="differs in"):
        evaluate(model=backend, out=tmp_path / "run", limit=2, resume=True, prompt="cot", **QUIET, **DEV)
    assert backend.preflighted is None
    with pytest.raises(StoreError, match="unknown-model"):
        evaluate(model="hf:/nowhere/unknown-model", out=tmp_path / "run", limit=2, resume=True, **QUIET, **DEV)


async def test_the_openai_backends_manifest_entry_holds_no_key(monkeypatch):
    from mmmu_eval.run.pipeline import with_backend
    from mmmu_eval.run.prepare import load_items, run_manifest
    from mmmu_eval.backends.registry import make_backend
    from mmmu_eval.prompt.protocol import EvalProtocol
    from mmmu_eval.run.backend_settings import backend_settings

    monkeypatch.setenv("OPENAI_API_KEY", "sk-live-abcdef0123456789")
    config = RunConfig(model="openai:gpt-x", base_urls=("https://user:pw@api.example.com/v1",), data="sample", split="dev")
    dataset = load_items(config)
    backend = make_backend(config.model, backend_settings(config))
    try:
        manifest = with_backend(run_manifest(config, EvalProtocol.from_config(config), dataset, dataset.items), backend, config)
    finally:
        await backend.aclose()
    text = json.dumps(manifest)
    assert "sk-live-abcdef0123456789" not in text and manifest["backend"]["model"] == "gpt-x"
