"""``verifiers``: what ``vf-eval`` saves after running a verifiers environment.

Two layouts, both read (PATH may be the run folder or the file in it):

- verifiers 0.4 (the ``v1`` API): ``traces.jsonl`` in the run folder, one *episode* a line:
  ``{env, task: {data: {id, answer, info, prompt}, key}, ok, errors, traces: [trace]}``; a trace
  holds the message graph (``nodes``, the model's turns marked ``sampled``), ``root_reply``,
  ``rewards`` (``{name: {score, weight}}``), ``metrics``, ``errors``. The configuration lies
  under ``configs/resolved/eval.json``.
- earlier releases: ``results.jsonl`` (one rollout a line: ``example_id``, ``prompt``,
  ``completion``, ``answer``, ``info``, ``reward``, the metrics flattened, ``error``) with
  ``metadata.json`` beside it (``env_id``, ``model``, ``avg_reward``).

mmmu-eval's own environments (``mmmu_eval.environments``) put our item id in ``info["id"]`` with
``benchmark``, ``split`` and ``setting``; other environments are keyed by the task's ``id`` or
``key``, or by ``example_id`` as a 0-based position in the dataset. A rollout's reward is the
harness's verdict: it counts as correct when its total (weighted) reward reaches 1, and the mean
reward is the harness's accuracy. When an example was rolled out several times, its first
rollout is scored and the others are counted in a note.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from mmmu_eval.core.errors import ConfigError, DataError
from mmmu_eval.core.jsonfile import loads
from mmmu_eval.scoring.boxed import last_boxed
from mmmu_eval.scoring.harness_verdicts import HarnessVerdict, RecordedScore
from mmmu_eval.harnesses.readers.foreign import (
    ForeignFile,
    ForeignRow,
    jsonl_rows,
    last_assistant_text,
    names_mmmu,
    no_rows_error,
    other_benchmark_error,
    prompt_text,
    read_json,
)

NAME = "verifiers"
EXPECTED = "a verifiers rollout (a traces.jsonl episode or a results.jsonl row)"
TRACES = "traces.jsonl"
RESULTS = "results.jsonl"


def sniff(path: Path, first: dict | None) -> str | None:
    """Why this is a verifiers output, or None."""
    if path.is_dir():
        for name in (TRACES, RESULTS):
            if (path / name).is_file():
                return f"a folder with {name}"
        return None
    if first is not None and "traces" in first and "task" in first:
        return "a JSONL episode with task and traces (verifiers 0.4)"
    if first is not None and "example_id" in first and ("completion" in first or "reward" in first):
        return "a JSONL rollout with example_id and completion (verifiers results.jsonl)"
    return None


def read(path: Path) -> ForeignFile:
    """Read every rollout; the first rollout of each example is scored."""
    file = _locate(path)
    problems: list[str] = []
    rows: list[ForeignRow] = []
    seen: set[object] = set()
    repeats = 0
    model = None
    env_id = None
    for where, record in jsonl_rows(file, problems):
        if "traces" in record:
            row, model = _episode(where, record, problems), model or _model(record)
            env = record.get("env")
            env_id = env_id or (env.get("id") if isinstance(env, Mapping) else env)
        elif "example_id" in record or "completion" in record:
            row = _legacy(where, record, problems)
        else:
            problems.append(f"{where}: neither an episode (task, traces) nor a rollout (example_id, completion); "
                            "nothing scored from it")
            continue
        if row is None:
            continue
        if row.key in seen:
            repeats += 1
            continue
        seen.add(row.key)
        rows.append(row)
    if not rows:
        raise no_rows_error(file, NAME, EXPECTED, problems)
    _refuse_other_env(file, env_id, rows, "its episodes name the environment")
    notes = [f"{repeats} further rollout(s) of examples already read: the first rollout of each is scored"] if repeats else []
    metadata = file.with_name("metadata.json")
    recorded = None
    if file.name == RESULTS and metadata.is_file():
        meta = read_json(metadata, "verifiers metadata.json")
        if isinstance(meta, dict):
            _refuse_other_env(metadata, meta.get("env_id"), rows, "its metadata.json names the environment")
            model = meta.get("model") if isinstance(meta.get("model"), str) else model
            if isinstance(meta.get("avg_reward"), (int, float)):
                recorded = RecordedScore(float(meta["avg_reward"]), f"{metadata.name}: avg_reward",
                                         meta.get("num_examples") if isinstance(meta.get("num_examples"), int) else None)
    return ForeignFile(
        format=NAME, path=str(path), rows=tuple(rows), problems=tuple(problems),
        index_scheme="position-0", model=model, recorded=recorded,
        sources=(str(file),) + ((str(metadata),) if recorded else ()), notes=tuple(notes),
    )


def _refuse_other_env(path: Path, env_id: object, rows: list[ForeignRow], how: str) -> None:
    """Refuse the output of an environment that is not MMMU's, unless its rows say they are.

    Our environments put ``benchmark`` in every row's info; another MMMU environment has MMMU
    in its id (``mmmu-pro``, ``vf-mmmu``).
    """
    if not isinstance(env_id, str) or not env_id or names_mmmu(env_id):
        return
    if any(row.benchmark in ("mmmu", "mmmu-pro") for row in rows):
        return
    raise other_benchmark_error(path, env_id, how)


def _episode(where: str, episode: dict, problems: list[str]) -> ForeignRow | None:
    task = episode.get("task") if isinstance(episode.get("task"), Mapping) else {}
    data = task.get("data") if isinstance(task.get("data"), Mapping) else {}
    info = data.get("info") if isinstance(data.get("info"), Mapping) else {}
    key = _key(info.get("id"), data.get("id"), task.get("key"), data.get("idx"))
    if key is None:
        problems.append(f"{where}: the episode's task names no id (info.id, data.id, key); nothing scored from it")
        return None
    traces = episode.get("traces") if isinstance(episode.get("traces"), list) else []
    trace = traces[0] if traces and isinstance(traces[0], Mapping) else {}
    text = trace.get("root_reply") if isinstance(trace.get("root_reply"), str) else None
    if text is None:
        sampled = [n.get("message") for n in trace.get("nodes") or [] if isinstance(n, Mapping) and n.get("sampled")]
        text = last_assistant_text(sampled)
    errors = [e for e in (trace.get("errors") or []) + (episode.get("errors") or []) if isinstance(e, Mapping)]
    if errors and (text is None or not trace.get("ok", True)):
        first = errors[-1]
        return ForeignRow(where=where, key=key, response=None, error=f"{first.get('type', 'Error')}: {first.get('message', '')}",
                          harness=_verdict(trace.get("rewards"), None), **_hints(info))
    if text is None:
        problems.append(f"{where} ({key}): the trace has no model reply; nothing scored from it")
        return None
    return ForeignRow(where=where, key=key, response=text, harness=_verdict(trace.get("rewards"), text),
                      prompt=prompt_text(data.get("prompt")), **_hints(info))


def _legacy(where: str, row: dict, problems: list[str]) -> ForeignRow | None:
    info = row.get("info")
    if isinstance(info, str):
        try:
            info = loads(info)
        except ValueError:
            info = {}
    info = info if isinstance(info, Mapping) else {}
    example = row.get("example_id")
    key = _key(info.get("id"), example if isinstance(example, (int, str)) and not isinstance(example, bool) else None)
    if key is None:
        problems.append(f"{where}: no info.id and no example_id; nothing scored from it")
        return None
    completion = row.get("completion")
    text = completion if isinstance(completion, str) else last_assistant_text(completion)
    reward = row.get("reward")
    rewards = {"reward": {"score": reward, "weight": 1.0}} if isinstance(reward, (int, float)) else None
    if "boxed_correct" in row:
        rewards = {"boxed_correct": {"score": row["boxed_correct"], "weight": 1.0}}
    error = row.get("error")
    if error and text is None:
        message = error.get("error_chain_repr") if isinstance(error, Mapping) else error
        return ForeignRow(where=where, key=key, response=None, error=str(message or "the rollout failed"),
                          harness=_verdict(rewards, None), **_hints(info))
    if text is None:
        problems.append(f"{where} ({key}): the completion holds no assistant text; nothing scored from it")
        return None
    return ForeignRow(where=where, key=key, response=text, harness=_verdict(rewards, text),
                      prompt=prompt_text(row.get("prompt")), **_hints(info))


def _verdict(rewards: object, text: str | None) -> HarnessVerdict | None:
    if not isinstance(rewards, Mapping) or not rewards:
        return None
    total = 0.0
    for reward in rewards.values():
        if isinstance(reward, Mapping) and isinstance(reward.get("score"), (int, float)):
            total += float(reward["score"]) * float(reward.get("weight", 1.0) or 0.0)
    named = ", ".join(rewards)
    pred = last_boxed(text) if text is not None and "boxed_correct" in rewards else None
    return HarnessVerdict(correct=total >= 1 - 1e-9, pred=pred, fallback=False, note=f"reward {total:g} ({named})")


def _key(*candidates: object) -> str | int | None:
    for value in candidates:
        if isinstance(value, str) and value.strip():
            return value.strip()
        if isinstance(value, int) and not isinstance(value, bool):
            return value
    return None


def _hints(info: Mapping) -> dict[str, str | None]:
    def text(name: str) -> str | None:
        value = info.get(name)
        return value if isinstance(value, str) and value else None

    return {"benchmark": text("benchmark"), "setting": text("setting"), "split": text("split")}


def _model(episode: dict) -> str | None:
    traces = episode.get("traces") or []
    agent = traces[0].get("agent") if traces and isinstance(traces[0], Mapping) else None
    config = agent.get("config") if isinstance(agent, Mapping) else None
    model = config.get("model") if isinstance(config, Mapping) else None
    return model if isinstance(model, str) else None


def _locate(path: Path) -> Path:
    if path.is_dir():
        for name in (TRACES, RESULTS):
            if (path / name).is_file():
                return path / name
        raise DataError(f"{path}: neither {TRACES} nor {RESULTS} in it; expected a vf-eval output folder")
    if not path.is_file():
        raise ConfigError(f"{path}: no such file or folder")
    return path

