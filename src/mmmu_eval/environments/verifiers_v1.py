"""The environments for verifiers 0.4 and later (``verifiers.v1``): taskset, task, harness, env.

How verifiers runs one (``vf-eval mmmu-pro``): the id names a module (``mmmu_pro``, a
top-level shim installed with mmmu-eval, see ``src/mmmu_pro``); from its ``__all__`` verifiers
takes the one ``Taskset`` subclass (the items), the one ``Harness`` subclass (the default
program the model runs in: here a single chat completion) and the one ``Env`` subclass (the
control flow: one agent, on the local runtime). Each piece is thin:

- ``MMMUProTaskset`` / ``MMMUTaskset`` yield one task per item from ``iter_examples``: the
  prompt is exactly ``mmmu-eval run --prompt boxed``'s, the item id is the task's ``id`` and
  ``key``, and ``info`` carries the item's facts into every saved trace;
- ``ItemTask`` scores the reply with ``rewards.scores``: the reward ``boxed_correct``, the
  metrics ``official_correct`` and ``boxed_found``. An item that cannot be asked is still a
  task: its setup fails with the message that names the item, so the rollout is recorded as
  an error (``--resume`` asks it again) and the run goes on;
- ``SingleTurnHarness`` sends the prompt once through verifiers' interception endpoint, in
  process (no program to install, nothing to run in a sandbox), so every call is traced and
  the run's sampling settings apply;
- ``SingleTurnEnv`` is verifiers' single-agent env with the subprocess runtime as default,
  since nothing runs in the runtime (the library's default is a remote sandbox).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Literal

import httpx
import verifiers.v1 as vf
from pydantic import Field, model_validator
from verifiers.v1.dialects.chat import message_to_wire
from verifiers.v1.errors import MODEL_TRANSPORT_ERROR_EXIT_CODE
from verifiers.v1.runtimes import ProgramResult

from mmmu_eval.environments.examples import iter_examples, resolve_setting
from mmmu_eval.environments.rewards import scores
from mmmu_eval.core.errors import ConfigError, DataError

__all__ = [
    "ItemData",
    "ItemTask",
    "MMMUProTaskset",
    "MMMUTaskset",
    "SingleTurnEnv",
    "SingleTurnHarness",
    "env_config",
    "load_environment",
]

#: Seconds the harness waits to connect to the interception endpoint (answers may take long).
CONNECT_TIMEOUT_S = 30.0


# ------------------------------------------------------------------------------------- tasks

class ItemData(vf.TaskData):
    """One item's task: the prompt (``TaskData.prompt``), its gold answer and its facts."""

    answer: str | None = None
    """The gold letter, or the gold text of an open question (the JSON list when several are accepted)."""
    info: dict[str, Any] = Field(default_factory=dict)
    """The example's ``info``: id, benchmark, split, setting, subject, options, question_type ..."""
    problem: str | None = None
    """Why the item cannot be asked (it names the item); None for every askable item."""


class ItemTask(vf.Task[ItemData]):
    """One benchmark item; its reward and metrics are the score stage's verdicts on the reply."""

    @property
    def key(self) -> str:
        """The item id: stable across runs, unique within a benchmark (what ``--resume`` matches)."""
        return self.data.id or self.hash

    async def setup(self, trace: vf.Trace, runtime: vf.Runtime) -> None:
        if self.data.problem is not None:
            raise DataError(self.data.problem)

    @vf.reward
    async def boxed_correct(self, trace: vf.Trace) -> float:
        """1.0 when the last ``\\boxed{}`` holds the gold answer (the ``boxed`` parser), else 0.0."""
        return scores(_reply(trace), self._example())["boxed_correct"]

    @vf.metric
    async def parsers(self, trace: vf.Trace) -> dict[str, float]:
        """``official_correct`` (the official parser, fallback counted 0) and ``boxed_found``."""
        verdicts = scores(_reply(trace), self._example())
        return {"official_correct": verdicts["official_correct"], "boxed_found": verdicts["boxed_found"]}

    def _example(self) -> dict[str, Any]:
        return {"id": self.data.id, "answer": self.data.answer, "info": self.data.info}


def _reply(trace: vf.Trace) -> str:
    """The last assistant message as the server sent it (not ``last_reply``, which strips it:
    the official parsers see surrounding whitespace)."""
    replies = trace.assistant_messages
    content = replies[-1].content if replies else ""
    if isinstance(content, str):
        return content
    return "".join(part.text for part in content or [] if isinstance(part, vf.TextContentPart))


# ----------------------------------------------------------------------------------- tasksets

class ItemsConfig(vf.TasksetConfig):
    """What both benchmarks' tasksets take (``--env.taskset.NAME``)."""

    data: str = "hub"
    """``hub`` (at mmmu-eval's pinned revision), ``sample`` (bundled), or a snapshot directory."""
    revision: str | None = None
    """Hub revision; None means the pinned one."""
    subset: str | list[str] | None = None
    """One subject or several (long or short names); None or ``all`` keeps all."""
    seed: int | None = None
    """Shuffle the items with this seed before ``limit``; None keeps the dataset's order."""
    limit: int | None = Field(None, ge=1)
    """Keep the first N items (after the shuffle)."""
    image_layout: Literal["interleaved", "images-first", "text-then-images"] = "interleaved"
    """Where images go, as ``mmmu-eval run --image-layout``."""
    max_image_pixels: int | None = Field(None, ge=1)
    """Down-scale larger images to this many pixels; None sends them as stored."""


class MMMUProConfig(ItemsConfig):
    """MMMU-Pro's knobs: the hub environment's ``mode`` and ``split``, and our ``setting``."""

    mode: Literal["standard", "vision"] = "standard"
    """``standard`` (the question, 10 options and its images) or ``vision`` (the screenshot alone)."""
    setting: Literal["standard-10", "standard-4", "vision"] | None = None
    """Overrides ``mode``: ``standard-10``, ``standard-4`` or ``vision``."""
    split: Literal["test"] = "test"
    """MMMU-Pro's only split."""

    @model_validator(mode="after")
    def _one_setting(self) -> "MMMUProConfig":
        try:
            resolve_setting("mmmu-pro", self.setting, self.mode)
        except ConfigError as exc:
            raise ValueError(str(exc)) from None
        return self


class MMMUConfig(ItemsConfig):
    """MMMU's knobs."""

    split: Literal["dev", "validation"] = "validation"
    """``dev`` or ``validation`` (the test split's answers are withheld)."""


class _ItemsTaskset:
    """The loading both tasksets share: ``iter_examples`` with the config's arguments."""

    benchmark: str
    config: Any

    def load(self) -> Iterator[ItemTask]:
        c = self.config
        where: dict[str, Any] = {"split": c.split}
        if self.benchmark == "mmmu-pro":
            where = {"mode": c.mode, "setting": c.setting}
        try:
            stream = iter_examples(
                self.benchmark, data=c.data, revision=c.revision, subset=c.subset, seed=c.seed,
                limit=c.limit, image_layout=c.image_layout, max_image_pixels=c.max_image_pixels, **where,
            )
            for example in stream:
                yield _task(example, c.task)
        except ConfigError as exc:  # a wrong setup: say it as verifiers says a bad option
            raise ValueError(f"env.taskset: {exc}") from None


class MMMUProTaskset(_ItemsTaskset, vf.Taskset[ItemTask, MMMUProConfig]):
    """MMMU-Pro (test split), one task per item, prompted as ``--prompt boxed``."""

    benchmark = "mmmu-pro"


class MMMUTaskset(_ItemsTaskset, vf.Taskset[ItemTask, MMMUConfig]):
    """MMMU (dev or validation), one task per item, open questions included."""

    benchmark = "mmmu"


def _task(example: dict[str, Any] | DataError, config: vf.TaskConfig) -> ItemTask:
    if isinstance(example, DataError):
        item_id = example.item_id or str(example).split(":", 1)[0]
        # verifiers refuses a task without a prompt before its setup runs; the prompt is never
        # sent, because the setup fails first with the problem.
        problem = str(example)
        return ItemTask(ItemData(id=item_id, name=item_id, prompt=problem, problem=problem), config)
    data = ItemData(id=example["id"], name=example["id"], prompt=example["prompt"],
                    answer=example["answer"], info=example["info"])
    return ItemTask(data, config)


# ------------------------------------------------------------------------------------ harness

class SingleTurnConfig(vf.HarnessConfig):
    """The single-turn harness has no knobs of its own; sampling is the run's ``--sampling.*``."""


class SingleTurnHarness(vf.Harness[SingleTurnConfig]):
    """One chat completion of the task's prompt, sent in process through the interception endpoint.

    The interception server records the exchange in the trace and applies the run's model and
    sampling settings; the reply is read back from the trace by the task.
    """

    APPENDS_SYSTEM_PROMPT = True
    EXECUTES_CODE = False
    NEEDS_CONTAINER = False

    async def launch(
        self,
        ctx: vf.ModelContext,
        trace: vf.Trace,
        runtime: vf.Runtime,
        endpoint: str,
        secret: str,
        mcp_urls: dict[str, str],
        data: vf.TaskData,
        tool_interception_url: str | None = None,
    ) -> ProgramResult:
        system, prompt = self.resolve_prompt(data)
        messages: list[dict[str, Any]] = [{"role": "system", "content": system}] if system else []
        if isinstance(prompt, str):
            messages.append({"role": "user", "content": prompt})
        else:
            messages.extend(message_to_wire(message) for message in prompt or [])
        body = {"model": ctx.model, "messages": messages}
        timeout = httpx.Timeout(None, connect=CONNECT_TIMEOUT_S)
        try:
            async with httpx.AsyncClient(timeout=timeout) as client:
                response = await client.post(
                    endpoint.rstrip("/") + "/chat/completions", json=body,
                    headers={"Authorization": f"Bearer {secret}"},
                )
        except httpx.TransportError as exc:
            return ProgramResult(MODEL_TRANSPORT_ERROR_EXIT_CODE, "", f"{type(exc).__name__}: {exc}")
        if response.status_code != 200:
            return ProgramResult(1, "", f"HTTP {response.status_code}: {response.text[:2000]}")
        return ProgramResult(0, "", "")


# ---------------------------------------------------------------------------------------- env

class SingleTurnEnvConfig(vf.SingleAgentEnvConfig):
    """verifiers' single-agent config with the local subprocess runtime as the default."""

    agent: vf.AgentConfig = vf.AgentConfig(runtime=vf.SubprocessConfig())
    """The one seat; ``--env.agent.*`` as for any verifiers env."""


class SingleTurnEnv(vf.Env[SingleTurnEnvConfig]):
    """One agent answers each task once; ``--env.agent.runtime.type`` still picks another runtime."""

    async def run(self, task: vf.Task, agents: vf.Agents) -> None:
        await agents.agent.run(task)


# ------------------------------------------------------------------------------ load by name

def env_config(env_id: str, **taskset: Any) -> vf.EnvConfig:
    """The verifiers env config for ``mmmu-pro`` or ``mmmu`` with these taskset arguments.

    Raises:
        ConfigError: an unknown argument or value, in one line.
    """
    try:
        return vf.resolve_env_config({"taskset": {"id": env_id, **taskset}})
    except ValueError as exc:  # pydantic's ValidationError is one
        raise ConfigError(f"{env_id}: {_first_error(exc)}") from None


def load_environment(env_id: str, **taskset: Any) -> vf.Env:
    """The verifiers Env for ``mmmu-pro`` or ``mmmu``, loaded the way ``vf-eval`` loads it."""
    return vf.load_environment(env_config(env_id, **taskset))


def _first_error(exc: ValueError) -> str:
    errors = getattr(exc, "errors", None)
    if callable(errors):
        first = errors()[0]
        where = ".".join(str(p) for p in first.get("loc", ()) if p != "taskset")
        return f"{where}: {first.get('msg')}" if where else str(first.get("msg"))
    return str(exc)
