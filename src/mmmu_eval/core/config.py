"""One run configuration: every knob of a run, with its help text, and None for "not given".

The CLI builds a RunConfig from its flags and calls ``evaluate``; a notebook user builds the
same object. Because an unset value is None (never a falsy default), ``--temperature 0`` and
``--no-...`` flags really override. The resolved configuration goes into ``manifest.json``;
the API key never does (only the name of the variable that holds it).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Literal, Sequence

from mmmu_eval.core.errors import ConfigError
from mmmu_eval.core.urls import without_credentials

PromptMode = Literal["direct", "cot", "boxed", "ocr", "forced-choice"]
ImageLayout = Literal["interleaved", "images-first", "text-then-images"]

BENCHMARKS = ("mmmu", "mmmu-pro")
MMMU_SPLITS = ("dev", "validation", "test")
PRO_SETTINGS = ("standard-10", "standard-4", "vision")
PROMPT_MODES = ("direct", "cot", "boxed", "ocr", "forced-choice")
IMAGE_LAYOUTS = ("interleaved", "images-first", "text-then-images")
#: What happens to an image no ``<image N>`` token refers to: left out (the official scripts) or appended.
UNREFERENCED_IMAGES = ("official", "append")
#: ``--price-input`` and ``--price-output`` are dollars per this many tokens (the dry run's
#: estimate and the report's cost both divide by it).
PRICE_PER_TOKENS = 1_000_000
#: Every parser a run may be scored with, the headline one first (``scoring/judge.py`` holds how
#: each one reads an answer). Named here, below the score stage, so that a RunConfig naming an
#: unknown one is refused when it is built, before a request.
PARSERS: tuple[str, ...] = ("official", "mmmu", "mmmu-pro", "boxed", "strict", "eval-only")
#: The seed of ``--sample`` when none is given.
SAMPLE_SEED = 0
#: What an unparseable multiple-choice answer is given: the official seeded random letter, or nothing.
FALLBACK_POLICIES: tuple[str, ...] = ("official", "none")


#: Chat-body fields the run writes itself: an ``--extra-body`` that set them would replace the
#: model or the prompt of every request (and break the body's image splicing), so it is refused.
OWN_BODY_FIELDS = ("model", "messages")


def check_extra_body(extra: object) -> None:
    """Refuse an ``--extra-body`` the run cannot send as asked, before any request.

    Raises:
        ConfigError: not a JSON object; it sets a field the run writes (``OWN_BODY_FIELDS``) or
            asks for an event stream (answers are read whole); it holds NaN or infinity (not JSON).
    """
    import json

    if not isinstance(extra, dict):
        raise ConfigError(f"--extra-body must be a JSON object, not {type(extra).__name__}")
    for name in OWN_BODY_FIELDS:
        if name in extra:
            raise ConfigError(f"--extra-body must not set {name!r}: the run writes it from --model and the "
                              "prompt; remove it (per-request fields such as chat_template_kwargs are fine)")
    if extra.get("stream"):
        raise ConfigError('--extra-body must not set "stream": true: answers are read whole; remove it')
    try:
        json.dumps(extra, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"--extra-body cannot be sent as JSON ({exc})") from None


#: Upper bound of ``--price-input`` and ``--price-output`` (dollars per ``PRICE_PER_TOKENS``):
#: far above any price, and low enough that no run's cost overflows a float.
MAX_PRICE = 1e9

#: (field, type, lower bound, bound allowed): checked when a RunConfig is built.
_NUMBER_RULES: tuple[tuple[str, type | tuple[type, ...], float, bool], ...] = (
    ("limit", int, 1, True),
    ("sample", int, 1, True),
    ("sample_seed", int, 0, True),
    ("max_tokens", int, 1, True),
    ("temperature", (int, float), 0, True),
    ("top_p", (int, float), 0, False),
    ("seed", int, 0, True),
    ("concurrency", int, 1, True),
    ("max_attempts", int, 1, True),
    ("request_timeout", (int, float), 0, False),
    ("probe_timeout", (int, float), 0, False),
    ("max_response_bytes", int, 1, True),
    ("max_image_pixels", int, 1, True),
    ("batch_size", int, 1, True),
    ("tensor_parallel_size", int, 1, True),
    ("pipeline_parallel_size", int, 1, True),
    ("data_parallel_size", int, 1, True),
    ("fallback_seed", int, 0, True),
    ("price_input", (int, float), 0, True),
    ("price_output", (int, float), 0, True),
)


@dataclass(frozen=True)
class RunConfig:
    """Everything that defines a run. Defaults reproduce the official protocol.

    Each field is the ``mmmu-eval run`` flag of the same name (``--max-tokens`` for
    ``max_tokens``; the few exceptions are named on the field) and a keyword of ``evaluate``.
    A field left None is "not given": the default named on it applies, and a resumed run keeps
    what its manifest recorded. The first paragraph of each field's text is the flag's help.
    """

    model: str
    """Model spec: openai:NAME, hf:PATH, vllm:PATH, random, frequent, text-only:SPEC.

    Or a plug-in's ``NAME:ARG`` (the custom model guide); ``evaluate`` also takes a model object
    here (a function, an object with ``generate``, a Backend), recorded as its spec. Required.
    Flag: ``--model``."""
    benchmark: str = "mmmu"
    """The benchmark: mmmu or mmmu-pro.

    Default: ``mmmu``. Flag: ``--benchmark``."""
    split: str | None = None
    """MMMU split: dev, validation or test.

    Default: None, meaning ``validation`` (``resolved_split``); MMMU-Pro has only ``test`` and
    takes none. Flag: ``--split``."""
    setting: str | None = None
    """MMMU-Pro setting: standard-10, standard-4 or vision.

    Default: None, meaning ``standard-10`` (``resolved_setting``); MMMU takes none. Flag:
    ``--setting``."""
    prompt: str = "direct"
    """Prompt mode: direct, cot, boxed (final letter in \\boxed{}; not official), ocr (vision only; not official), or forced-choice (standard only: answer although the images are withheld; the harden filter's, not official).

    MMMU has direct (its official prompt), cot and boxed. Default: ``direct``. Flag:
    ``--prompt``."""
    data: str = "hub"
    """The data: hub, sample (bundled), or a local snapshot directory.

    ``hub`` reads the Hugging Face dataset at ``revision``; ``sample`` the few items shipped in
    the package; a directory a snapshot (``mmmu-eval data download``). Default: ``hub``. Flag:
    ``--data``."""
    revision: str | None = None
    """Dataset revision on the hub: a commit, tag or branch.

    Default: None, meaning the commit pinned for the benchmark (``dataset.DEFAULT_REVISIONS``);
    every run records the commit it read. Flag: ``--revision``."""
    subjects: tuple[str, ...] | None = None
    """Subjects to keep (long or short names).

    Default: None, meaning all 30. Flag: ``--subjects`` (space- or comma-separated)."""
    limit: int | None = None
    """Keep the first N items (after the subject filter and the sample).

    Unit: items. Default: None, meaning every item. Flag: ``--limit``."""
    ids: tuple[str, ...] | None = None
    """Keep only these item ids.

    Default: None, meaning every item. Flag: ``--ids`` (space- or comma-separated)."""
    sample: int | None = None
    """A seeded random sample of K items (after --subjects and --ids, before --limit and --shard); recorded in the manifest, reported with an exact interval for the full score.

    Unit: items. Default: None, meaning no sample: every item. Flag: ``--sample``."""
    sample_seed: int | None = None
    """Seed of --sample.

    Default: None, meaning 0 (``SAMPLE_SEED``). Flag: ``--sample-seed``."""
    sample_audit: Path | None = None
    """With --sample: an audit's JSON (mmmu-eval audit --json) whose runs' answers stratify the sample by item difficulty and add a 2PL estimate of the full score, each only where the audit's hold-one-model-out check shows it beats uniform sampling (the check is recorded and printed).

    Default: None, meaning a uniform sample. Flag: ``--sample-audit``."""
    shard: tuple[int, int] | None = None
    """(K, N): run the K-th of N deterministic slices (1-based).

    Every N-th item from the K-th, after every other selection; ``mmmu-eval merge`` joins the
    shards. Default: None, meaning the whole selection. Flag: ``--shard K/N``."""
    out: Path | None = None
    """Run directory.

    Default: None, meaning ``runs/<benchmark>-<split or setting>-<model>-<time>``
    (``run.resolve.default_run_name``). Flag: ``--out``."""
    resume: bool = False
    """Continue the run in ``out``, re-running only missing and failed items.

    Default: False (the command line continues an ``--out`` that holds a run without it).
    Flag: ``--resume`` / ``--no-resume``."""
    allow_different_data: bool = False
    """Continue a run although its data files now hold other contents (another digest; recorded in manifest.json as data_changes).

    Default: False (refused). Flag: ``--allow-different-data``."""
    image_layout: str = "interleaved"
    """Where the images stand: interleaved, images-first, or text-then-images (the official GPT script).

    Default: ``interleaved``, each image at its ``<image N>`` token. Flag: ``--image-layout``."""
    unreferenced_images: str = "official"
    """Images no ``<image N>`` token refers to: official (not sent, as the official scripts) or append (sent after the referenced ones; not official).

    Default: ``official``. Flag: ``--unreferenced-images``."""
    # Generation
    max_tokens: int | None = None
    """Most new tokens per answer.

    Unit: tokens. Default: None, meaning 4096 for MMMU-Pro (the official scripts' budget,
    ``prompt.protocol.PRO_MAX_TOKENS``); for MMMU none is sent to a server (its own limit applies)
    and ``hf:`` and ``vllm:`` stop at 128. Flag: ``--max-tokens``."""
    temperature: float | None = None
    """Sampling temperature.

    Default: None, meaning not sent to a server (its own default applies) and 0, greedy, for
    ``hf:`` and ``vllm:``. Flag: ``--temperature``."""
    top_p: float | None = None
    """Nucleus sampling mass, above 0 and at most 1.

    Default: None, meaning not sent (the server's or engine's own). Flag: ``--top-p``."""
    seed: int | None = None
    """Generation seed (also seeds the random baseline).

    Default: None, meaning not sent (an unseeded engine), and 0 for ``random``. Flag:
    ``--seed``."""
    extra_body: dict[str, object] | None = None
    """Extra JSON fields sent to API servers.

    Merged into every chat completion body (``chat_template_kwargs``, ``top_k`` ...); it may not
    set ``model``, ``messages`` or ``stream``. Default: None, meaning nothing added. Flag:
    ``--extra-body JSON``."""
    system_prompt: str | None = None
    """System message.

    Default: None, meaning no system message (the official protocol sends none). Flag:
    ``--system-prompt``."""
    # API backend
    base_urls: tuple[str, ...] | None = None
    """OpenAI-compatible base URL(s); several spread the load.

    Default: None, meaning ``OPENAI_BASE_URL``, else ``https://api.openai.com/v1``. Flag:
    ``--base-url`` (repeat it for several)."""
    api_key_env: str | None = None
    """Environment variable holding the API key.

    Only the variable's name is recorded, never the key. Default: None, meaning
    ``OPENAI_API_KEY`` (a server on this machine needs none). Flag: ``--api-key-env``."""
    concurrency: int | None = None
    """Requests in flight per endpoint.

    Unit: requests. Default: None, meaning 64 for ``openai:`` and 8 calls for a Python
    function model. Flag: ``--concurrency``."""
    max_attempts: int | None = None
    """Tries per request before it is stored as an error.

    Unit: attempts, the first included. Default: None, meaning 6. Flag: ``--max-attempts``."""
    request_timeout: float | None = None
    """Seconds per request attempt.

    Unit: seconds. Default: None, meaning 600. Flag: ``--request-timeout``."""
    probe_timeout: float | None = None
    """Seconds each start-up request (the model listing, the probe) may take before it counts as unanswered, so a server that never answers is found fast.

    Unit: seconds. Default: None, meaning 60. Flag: ``--probe-timeout``."""
    max_response_bytes: int | None = None
    """Most bytes of one server answer, read decoded (gzip and deflate inflated as they stream in); past it the attempt fails, named, and the item is an error.

    Unit: bytes. Default: None, meaning 67108864 (64 MiB: far above any real answer). Flag:
    ``--max-response-bytes``."""
    max_image_pixels: int | None = None
    """Down-scale larger images to this many pixels.

    Unit: pixels (width times height). Default: None, meaning never scaled: images are sent as
    the dataset stores them. Flag: ``--max-image-pixels``."""
    # Local backends
    batch_size: int | None = None
    """Items per generate() call for hf.

    Unit: requests. Default: None, meaning 8 for ``hf:`` and 256 for ``vllm:``. Flag:
    ``--batch-size``."""
    dtype: str | None = None
    """Weight dtype of hf/vllm: auto, bfloat16, float16, float32.

    Default: None, meaning ``auto`` (the checkpoint's own). Flag: ``--dtype``."""
    device: str | None = None
    """Device of hf: auto, cuda, cpu.

    Default: None, meaning ``auto`` (every visible GPU, else the CPU). Flag: ``--device``."""
    trust_remote_code: bool = False
    """Let hf/vllm run the model repo's own code.

    Default: False. Flag: ``--trust-remote-code``."""
    tensor_parallel_size: int | None = None
    """vLLM tensor parallel size.

    Unit: GPUs. Default: None, meaning 1. Flag: ``--tensor-parallel-size``."""
    pipeline_parallel_size: int | None = None
    """vLLM pipeline parallel size (model layers split over GPUs or nodes).

    Unit: GPUs. Default: None, meaning vLLM's own (1). Flag: ``--pipeline-parallel-size``."""
    data_parallel_size: int | None = None
    """vLLM data parallel size (model replicas inside one offline engine; not with torchrun).

    Unit: replicas. Default: None, meaning vLLM's own (1). Flag: ``--data-parallel-size``."""
    # Scoring and reporting (recorded in manifest.json as the run's ``scoring``; see scoring/spec.py)
    parsers: tuple[str, ...] | None = None
    """Parsers to score with, the first gives the headline.

    One of official, mmmu, mmmu-pro, boxed, strict, eval-only each (``PARSERS``). Default: None,
    meaning ``official`` (``boxed`` then ``official`` for ``prompt="boxed"``). Flag:
    ``--parser`` (repeat it for several)."""
    fallback: str | None = None
    """Unparseable multiple choice: official (seeded random letter) or none (counted wrong).

    Default: None, meaning ``official``. Flag: ``--fallback``."""
    fallback_seed: int | None = None
    """Seed of the official random fallback.

    Default: None, meaning 42, as the official scorer. Flag: ``--fallback-seed``."""
    answers: Path | None = None
    """Answer file (official answer-dict format) for the test split.

    The test split's gold answers are not public. Default: None, meaning the test split is
    answered but not scored. Flag: ``--answers``."""
    html: bool = True
    """Write report.html at the end of the run.

    Default: True. Flag: ``--html`` / ``--no-html``."""
    # Cost (recorded in manifest.json; results.json prices the run's token usage with them)
    price_input: float | None = None
    """USD per million prompt tokens, to price the run.

    Unit: US dollars per 1,000,000 tokens (``PRICE_PER_TOKENS``). Default: None, meaning no
    cost is reported. Flag: ``--price-input``."""
    price_output: float | None = None
    """USD per million completion tokens (reasoning included), to price the run.

    Unit: US dollars per 1,000,000 tokens. Default: None, meaning no cost is reported. Flag:
    ``--price-output``."""

    def __post_init__(self) -> None:
        if self.benchmark not in BENCHMARKS:
            raise ConfigError(f"--benchmark {self.benchmark!r} is not one of {', '.join(BENCHMARKS)}")
        if self.benchmark == "mmmu":
            if self.setting is not None:
                raise ConfigError("--setting applies to mmmu-pro only; MMMU has splits (--split)")
            if self.split is not None and self.split not in MMMU_SPLITS:
                raise ConfigError(f"--split {self.split!r} is not one of {', '.join(MMMU_SPLITS)}")
            if self.prompt not in ("direct", "cot", "boxed"):
                raise ConfigError(f"--prompt {self.prompt!r}: MMMU has the official direct prompt (and cot, boxed)")
        else:
            if self.setting is not None and self.setting not in PRO_SETTINGS:
                raise ConfigError(f"--setting {self.setting!r} is not one of {', '.join(PRO_SETTINGS)}")
            if self.split not in (None, "test"):
                raise ConfigError("MMMU-Pro has one split (test); drop --split")
            if self.prompt not in PROMPT_MODES:
                raise ConfigError(f"--prompt {self.prompt!r} is not one of {', '.join(PROMPT_MODES)}")
            if self.prompt == "ocr" and self.resolved_setting != "vision":
                raise ConfigError("--prompt ocr applies to --setting vision only")
            if self.prompt == "forced-choice" and self.resolved_setting == "vision":
                raise ConfigError("--prompt forced-choice applies to the standard settings only (the text is what it shows)")
        if self.image_layout not in IMAGE_LAYOUTS:
            raise ConfigError(f"--image-layout {self.image_layout!r} is not one of {', '.join(IMAGE_LAYOUTS)}")
        if self.unreferenced_images not in UNREFERENCED_IMAGES:
            raise ConfigError(
                f"--unreferenced-images {self.unreferenced_images!r} is not one of {', '.join(UNREFERENCED_IMAGES)}"
            )
        if self.shard is not None:
            k, n = self.shard
            if not (n >= 1 and 1 <= k <= n):
                raise ConfigError(f"--shard {k}/{n}: need 1 <= K <= N")
        if self.sample_audit is not None and self.sample is None:
            raise ConfigError("--sample-audit applies to a sampled run: add --sample K")
        self._check_numbers()
        # unknown parsers or fallback policy stop the run before a request (the scoring record,
        # ``ScoringSpec.from_config``, checks them the same way)
        check_scoring_names(self.parsers or (), self.fallback or "official")

    def _check_numbers(self) -> None:
        """Numbers in range and of the right kind, so a bad value stops the run before a request.

        A Python caller may pass ``limit="5"``; the CLI already converts. Zero is refused where
        it would mean "nothing" rather than silently replaced by a default.
        """
        for name, kind, low, inclusive in _NUMBER_RULES:
            value = getattr(self, name)
            if value is None:
                continue
            flag = "--" + name.replace("_", "-")
            if isinstance(value, bool) or not isinstance(value, kind):
                expected = "a whole number" if kind is int else "a number"
                raise ConfigError(f"{flag} must be {expected}, not {value!r}")
            if isinstance(value, float) and not math.isfinite(value):  # nan compares false to every bound
                raise ConfigError(f"{flag} must be a finite number, not {value!r}")
            if value < low or (value == low and not inclusive):
                bound = f"at least {low}" if inclusive else f"greater than {low}"
                raise ConfigError(f"{flag} must be {bound}, not {value!r}")
        for name in ("price_input", "price_output"):
            price = getattr(self, name)
            if price is not None and price > MAX_PRICE:
                raise ConfigError(f"--{name.replace('_', '-')} must be at most {MAX_PRICE:g} dollars per million tokens, not {price!r}")
        if self.extra_body is not None:
            check_extra_body(self.extra_body)
        if self.top_p is not None and self.top_p > 1:
            raise ConfigError(f"--top-p must be at most 1, not {self.top_p!r}")

    @property
    def resolved_split(self) -> str:
        """The hub split actually read (MMMU-Pro has only ``test``)."""
        if self.benchmark == "mmmu-pro":
            return "test"
        return self.split or "validation"

    @property
    def resolved_setting(self) -> str | None:
        """The MMMU-Pro setting actually run (``standard-10`` when none is given); None for MMMU."""
        if self.benchmark == "mmmu":
            return None
        return self.setting or "standard-10"

    def to_manifest(self) -> dict[str, object]:
        """The configuration as JSON-ready data; holds no secret: the key is never in it (only
        the variable's name), and a base URL's ``user:password@`` is taken out."""
        out: dict[str, object] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name == "base_urls" and value is not None:
                value = [without_credentials(u) for u in value]
            elif isinstance(value, Path):
                value = str(value)
            elif isinstance(value, tuple):
                value = list(value)
            out[f.name] = value
        out["split"] = self.resolved_split
        out["setting"] = self.resolved_setting
        return out


def help_of(name: str) -> str:
    """The help of a RunConfig field: the first paragraph of its docstring, so the CLI and the API
    reference say the same thing. Written as a flag's help is (a lower-case start, no final stop,
    no ``code`` marks): ``help_of("limit")`` is ``keep the first N items (after ...)``.

    Raises:
        KeyError: no such field.
    """
    text = field_docs()[name].split("\n\n", 1)[0]
    text = " ".join(text.split()).replace("``", "").removesuffix(".")
    first = text.split(" ", 1)[0]
    if first[:1].isupper() and first[1:] == first[1:].lower():  # "The", "A"; never "MMMU", "OpenAI"
        text = text[0].lower() + text[1:]
    return text


@functools.cache
def field_docs() -> dict[str, str]:
    """Each RunConfig field's docstring (the string under it), read from this module's source:
    the one text the API reference renders and ``help_of`` takes the flag's help from.
    Attribute docstrings are not kept at run time, so they are parsed here, once."""
    import ast
    import inspect
    import textwrap

    body = ast.parse(textwrap.dedent(inspect.getsource(RunConfig))).body[0].body  # type: ignore[attr-defined]
    docs: dict[str, str] = {}
    for node, after in zip(body, body[1:]):
        if (isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and isinstance(after, ast.Expr)
                and isinstance(after.value, ast.Constant) and isinstance(after.value.value, str)):
            docs[node.target.id] = inspect.cleandoc(after.value.value)
    return docs


def check_scoring_names(parsers: Sequence[str], fallback: str) -> None:
    """Each parser known and named once, and a known fallback policy.

    Raises:
        ConfigError: naming the flag and the value, and listing the known ones.
    """
    unknown = [p for p in parsers if p not in PARSERS]
    if unknown:
        raise ConfigError(f"--parser {unknown[0]!r} is not one of {', '.join(PARSERS)}")
    if len(set(parsers)) != len(parsers):
        raise ConfigError(f"--parser: {', '.join(parsers)} names a parser twice")
    if fallback not in FALLBACK_POLICIES:
        raise ConfigError(f"--fallback {fallback!r} is not one of {', '.join(FALLBACK_POLICIES)}")
