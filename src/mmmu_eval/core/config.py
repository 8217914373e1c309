"""One run configuration: every knob of a run, with its help text, and None for "not given".

The CLI builds a RunConfig from its flags and calls ``evaluate``; a notebook user builds the
same object. Because an unset value is None (never a falsy default), ``--temperature 0`` and
``--no-...`` flags really override. The resolved configuration goes into ``manifest.json``;
the API key never does (only the name of the variable that holds it).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Literal, Sequence

from mmmu_eval.core.errors import ConfigError

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
    """Everything that defines a run. Defaults reproduce the official protocol."""

    model: str = field(metadata={"help": "model spec: openai:NAME, hf:PATH, vllm:PATH, random, frequent, text-only:SPEC"})
    benchmark: str = field(default="mmmu", metadata={"help": "mmmu or mmmu-pro"})
    split: str | None = field(default=None, metadata={"help": "MMMU split: dev, validation (default) or test"})
    setting: str | None = field(default=None, metadata={"help": "MMMU-Pro setting: standard-10 (default), standard-4, vision"})
    prompt: str = field(default="direct", metadata={"help": "prompt mode: direct, cot, boxed (final letter in \\boxed{}; not official), ocr (vision only; not official), or forced-choice (standard only: answer although the images are withheld; the harden filter's, not official)"})
    data: str = field(default="hub", metadata={"help": "hub, sample (bundled), or a local snapshot directory"})
    revision: str | None = field(default=None, metadata={"help": "dataset revision on the hub; None means the pinned default"})
    subjects: tuple[str, ...] | None = field(default=None, metadata={"help": "subjects to keep (long or short names); None means all 30"})
    limit: int | None = field(default=None, metadata={"help": "keep the first N items (after the subject filter)"})
    ids: tuple[str, ...] | None = field(default=None, metadata={"help": "keep only these item ids"})
    sample: int | None = field(default=None, metadata={"help": "a seeded random sample of K items (after --subjects and --ids, before --limit and --shard); recorded in the manifest, reported with an exact interval for the full score"})
    sample_seed: int | None = field(default=None, metadata={"help": "seed of --sample (default 0)"})
    sample_audit: Path | None = field(default=None, metadata={"help": "with --sample: an audit's JSON (mmmu-eval audit --json) whose runs' answers stratify the sample by item difficulty and add a 2PL estimate of the full score, each only where the audit's hold-one-model-out check shows it beats uniform sampling (the check is recorded and printed)"})
    shard: tuple[int, int] | None = field(default=None, metadata={"help": "(K, N): run the K-th of N deterministic slices (1-based)"})
    out: Path | None = field(default=None, metadata={"help": "run directory; None picks runs/<benchmark>-<model>-<time>"})
    resume: bool = field(default=False, metadata={"help": "continue the run in `out`, re-running only missing and failed items"})
    allow_different_data: bool = field(default=False, metadata={"help": "continue a run although its data files now hold other contents (another digest; recorded in manifest.json as data_changes)"})
    image_layout: str = field(default="interleaved", metadata={"help": "interleaved, images-first, or text-then-images (the official GPT script)"})
    unreferenced_images: str = field(default="official", metadata={"help": "images no <image N> token refers to: official (not sent, as the official scripts) or append (sent after the referenced ones; not official)"})
    # Generation
    max_tokens: int | None = field(default=None, metadata={"help": "most new tokens per answer (tokens)"})
    temperature: float | None = field(default=None, metadata={"help": "sampling temperature; None leaves the backend default (greedy for hf)"})
    top_p: float | None = field(default=None, metadata={"help": "nucleus sampling mass"})
    seed: int | None = field(default=None, metadata={"help": "generation seed (also seeds the random baseline)"})
    extra_body: dict[str, object] | None = field(default=None, metadata={"help": "extra JSON fields sent to API servers"})
    system_prompt: str | None = field(default=None, metadata={"help": "system message; None sends none"})
    # API backend
    base_urls: tuple[str, ...] | None = field(default=None, metadata={"help": "OpenAI-compatible base URL(s); several spread the load"})
    api_key_env: str | None = field(default=None, metadata={"help": "environment variable holding the API key (default OPENAI_API_KEY)"})
    concurrency: int | None = field(default=None, metadata={"help": "requests in flight per endpoint (default 64)"})
    max_attempts: int | None = field(default=None, metadata={"help": "tries per request before it is stored as an error (default 6)"})
    request_timeout: float | None = field(default=None, metadata={"help": "seconds per request attempt (default 600)"})
    probe_timeout: float | None = field(default=None, metadata={"help": "seconds each start-up request (the model listing, the probe) may take before it counts as unanswered (default 60), so a server that never answers is found fast"})
    max_image_pixels: int | None = field(default=None, metadata={"help": "down-scale larger images to this many pixels; None never scales"})
    # Local backends
    batch_size: int | None = field(default=None, metadata={"help": "items per generate() call for hf (default 8)"})
    dtype: str | None = field(default=None, metadata={"help": "hf/vllm weight dtype: auto, bfloat16, float16, float32"})
    device: str | None = field(default=None, metadata={"help": "hf device: auto, cuda, cpu"})
    trust_remote_code: bool = field(default=False, metadata={"help": "let hf/vllm run the model repo's own code"})
    tensor_parallel_size: int | None = field(default=None, metadata={"help": "vLLM tensor parallel size"})
    pipeline_parallel_size: int | None = field(default=None, metadata={"help": "vLLM pipeline parallel size (model layers split over GPUs or nodes)"})
    data_parallel_size: int | None = field(default=None, metadata={"help": "vLLM data parallel size (model replicas inside one offline engine; not with torchrun)"})
    # Scoring and reporting (recorded in manifest.json as the run's ``scoring``; see scoring/spec.py)
    parsers: tuple[str, ...] | None = field(default=None, metadata={"help": "parsers to score with, the first gives the headline; None: official (boxed then official for --prompt boxed)"})
    fallback: str | None = field(default=None, metadata={"help": "unparseable multiple choice: official (seeded random letter; the default) or none (counted wrong)"})
    fallback_seed: int | None = field(default=None, metadata={"help": "seed of the official random fallback; None: 42, as the official scorer"})
    answers: Path | None = field(default=None, metadata={"help": "answer file (official answer-dict format) for the test split"})
    html: bool = field(default=True, metadata={"help": "write report.html at the end of the run"})
    # Cost (recorded in manifest.json; results.json prices the run's token usage with them)
    price_input: float | None = field(default=None, metadata={"help": "USD per million prompt tokens, to price the run"})
    price_output: float | None = field(default=None, metadata={"help": "USD per million completion tokens (reasoning included), to price the run"})

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
        if self.benchmark == "mmmu":
            return None
        return self.setting or "standard-10"

    def to_manifest(self) -> dict[str, object]:
        """The configuration as JSON-ready data; holds no secret by construction."""
        out: dict[str, object] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if isinstance(value, Path):
                value = str(value)
            elif isinstance(value, tuple):
                value = list(value)
            out[f.name] = value
        out["split"] = self.resolved_split
        out["setting"] = self.resolved_setting
        return out


def help_of(name: str) -> str:
    """The help text of a RunConfig field, so the CLI and the docs say the same thing."""
    for f in fields(RunConfig):
        if f.name == name:
            return str(f.metadata.get("help", ""))
    raise KeyError(name)


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
