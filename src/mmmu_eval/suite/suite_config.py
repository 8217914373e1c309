"""What a suite runs: the MMMU-Pro study, one ordinary run per setting and prompt.

The study is the one the MMMU-Pro paper reports (Yue et al., "MMMU-Pro: A More Robust
Multi-discipline Multimodal Understanding Benchmark", ACL 2025, arXiv:2409.02813): Table 1 takes
standard with 4 options, standard with 10 options and vision, each the better of the direct and
chain-of-thought prompts, and the model's MMMU validation accuracy beside them; section 3.3 asks
whether an OCR prompt helps in vision. So by default a suite is seven runs: the three settings
times ``direct`` and ``cot``, plus MMMU validation with the official direct prompt; ``ocr`` adds
vision with the OCR prompt, ``mmmu=False`` drops MMMU.

Each run is a RunConfig like any other, whose ``out`` is a directory under the suite: the suite
adds nothing to a run that ``mmmu-eval run`` would not write, so ``report``, ``compare``,
``score`` and ``merge`` work on it unchanged.

>>> config, model = resolve_suite_config(None, {"model": "random", "data": "sample", "out": "suites/r"})
>>> [run.name for run in config.runs()]
['standard-4-direct', 'standard-4-cot', 'standard-10-direct', ..., 'mmmu-validation-direct']
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mmmu_eval.backends.base import Backend
from mmmu_eval.core.config import RunConfig
from mmmu_eval.core.errors import ConfigError, did_you_mean
from mmmu_eval.run.dry_run import RunPlan
from mmmu_eval.run.resolve import RunTemplateArgs, Unpack, slug
from mmmu_eval.core.manifest import MANIFEST

__all__ = ["PROMPTS", "SETTINGS", "SuiteConfig", "SuiteConfigArgs", "SuiteRun", "backend_sharing", "plan_suite",
           "plan_totals", "resolve_suite_config"]

#: MMMU-Pro settings in the order of the paper's Table 1.
SETTINGS: tuple[str, ...] = ("standard-4", "standard-10", "vision")
#: The prompt modes Table 1 takes the better of.
PROMPTS: tuple[str, ...] = ("direct", "cot")
#: RunConfig fields the suite sets per run; a caller who sets them is told what to use instead.
_PER_RUN = {
    "benchmark": "the suite runs both benchmarks (mmmu=False leaves MMMU out)",
    "setting": "use settings=... (--settings)",
    "split": "the suite's MMMU run is the validation split",
    "prompt": "use prompts=... (--prompts) and ocr=True (--ocr)",
    "out": None,  # the suite's own out, below
    "resume": "a suite always continues the runs in its directory",
}


@dataclass(frozen=True)
class SuiteRun:
    """One run of a suite: what it evaluates, and the RunConfig that does it."""

    name: str
    """Directory name under the suite: ``standard-10-cot``, ``vision-ocr``, ``mmmu-validation-direct``."""
    config: RunConfig
    """The run's configuration; ``out`` is ``<suite>/<name>``."""

    @property
    def benchmark(self) -> str:
        return self.config.benchmark

    @property
    def setting(self) -> str | None:
        """The MMMU-Pro setting; None for the MMMU run."""
        return self.config.resolved_setting

    @property
    def prompt(self) -> str:
        return self.config.prompt

    @property
    def label(self) -> str:
        """``standard-10 (cot)``, ``MMMU validation (direct)``."""
        return f"{self.setting or 'MMMU ' + self.config.resolved_split} ({self.prompt})"

    def to_json(self) -> dict[str, Any]:
        """An entry of suite.json's ``planned``: enough to find the run again (``planned``)."""
        return {"name": self.name, "benchmark": self.benchmark, "setting": self.setting,
                "split": self.config.resolved_split, "prompt": self.prompt}

    @classmethod
    def planned(cls, entry: Mapping[str, Any], model: str, suite_dir: Path) -> "SuiteRun":
        """The run a ``planned`` entry of suite.json names (its configuration only as far as
        the entry tells: enough to read its directory back)."""
        benchmark = str(entry["benchmark"])
        config = RunConfig(
            model=model, benchmark=benchmark, prompt=str(entry["prompt"]),
            setting=entry.get("setting") if benchmark == "mmmu-pro" else None,
            split=entry.get("split") if benchmark == "mmmu" else None,
            out=Path(suite_dir) / str(entry["name"]),
        )
        return cls(str(entry["name"]), config)


@dataclass(frozen=True)
class SuiteConfig:
    """Everything that defines a suite: one run template and which runs to make of it."""

    run: RunConfig
    """Model, generation, selection and scoring settings shared by every run; its ``data`` and
    ``revision`` are MMMU-Pro's."""
    out: Path
    """The suite directory: one run directory per run, plus suite.json and report.html."""
    settings: tuple[str, ...] = SETTINGS
    """MMMU-Pro settings to run, from ``SETTINGS``."""
    prompts: tuple[str, ...] = PROMPTS
    """Prompt modes to run each setting with, from ``PROMPTS``."""
    ocr: bool = False
    """Also run vision with the OCR prompt (section 3.3; not in the official code)."""
    mmmu: bool = True
    """Also run MMMU validation with the official direct prompt (Table 1's MMMU (Val) and Δ3)."""
    mmmu_data: str | None = None
    """MMMU's source (hub, sample or a snapshot); None follows ``run.data`` (see ``mmmu_source``)."""
    mmmu_revision: str | None = None
    """MMMU's hub revision; None means the pinned default."""

    def __post_init__(self) -> None:
        for name, values, known in (("settings", self.settings, SETTINGS), ("prompts", self.prompts, PROMPTS)):
            if not values:
                raise ConfigError(f"--{name}: name at least one of {', '.join(known)}")
            for value in values:
                if value not in known:
                    raise ConfigError(f"--{name} {value!r} is not one of {', '.join(known)}{did_you_mean(value, known)}")
        if self.ocr and "vision" not in self.settings:
            raise ConfigError("--ocr adds vision with the OCR prompt, but --settings leaves vision out; add vision")
        if self.run.benchmark != "mmmu-pro":
            raise ConfigError("a suite's run template is MMMU-Pro's; the MMMU run is made from it")

    def mmmu_source(self) -> str:
        """Where the MMMU run reads its data.

        ``mmmu_data`` when given; otherwise ``run.data`` when that is ``hub`` or ``sample``, or a
        snapshot directory that holds an ``MMMU`` folder (``mmmu-eval data download`` writes
        both benchmarks into one).

        Raises:
            ConfigError: MMMU is wanted and its source cannot be told.
        """
        if self.mmmu_data is not None:
            return self.mmmu_data
        data = self.run.data
        if data in ("hub", "sample") or (Path(data).expanduser() / "MMMU").is_dir():
            return data
        if not Path(data).expanduser().is_dir():
            raise ConfigError(f"--data {data}: no such directory (expected hub, sample, or a snapshot directory)")
        raise ConfigError(
            f"--data {data} is an MMMU-Pro snapshot without an MMMU folder; give the MMMU validation "
            "data with --mmmu-data (hub, sample or a snapshot directory), or leave MMMU out with --no-mmmu"
        )

    def runs(self) -> list[SuiteRun]:
        """The suite's runs in the paper's order: each setting's direct, cot (and ocr), then MMMU."""
        out: list[SuiteRun] = []
        for setting in (s for s in SETTINGS if s in self.settings):
            modes = [p for p in PROMPTS if p in self.prompts]
            if setting == "vision" and self.ocr:
                modes.append("ocr")
            for mode in modes:
                out.append(self._run(f"{setting}-{mode}", benchmark="mmmu-pro", setting=setting, prompt=mode))
        if self.mmmu:
            out.append(self._run(
                "mmmu-validation-direct", benchmark="mmmu", split="validation", prompt="direct",
                data=self.mmmu_source(), revision=self.mmmu_revision,
            ))
        return out

    def _run(self, name: str, **changes: Any) -> SuiteRun:
        out = self.out / name
        config = dataclasses.replace(self.run, out=out, resume=(out / MANIFEST).exists(), **changes)
        return SuiteRun(name, config)

    def to_json(self) -> dict[str, Any]:
        """The ``config`` entry of suite.json; holds no secret (RunConfig never does)."""
        return {
            "settings": list(self.settings),
            "prompts": list(self.prompts),
            "ocr": self.ocr,
            "mmmu": self.mmmu,
            "data": self.run.data,
            "mmmu_data": self.mmmu_source() if self.mmmu else self.mmmu_data,
            "mmmu_revision": self.mmmu_revision,
            "run": {k: v for k, v in self.run.to_manifest().items() if k not in _PER_RUN},
        }


class SuiteConfigArgs(RunTemplateArgs, total=False):
    """The keyword arguments of ``evaluate_suite``, ``evaluate_suite_async`` and ``plan_suite``:
    SuiteConfig's fields (``run`` aside) and the RunConfig fields every run shares, typed
    (``RunTemplateArgs``). The fields a suite sets per run (benchmark, setting, split, prompt,
    resume) are not among them; ``out`` is the suite directory. Lists may be given as
    comma-separated strings, as in ``RunConfigArgs``."""

    out: str | Path | None
    settings: str | Sequence[str]
    prompts: str | Sequence[str]
    ocr: bool
    mmmu: bool
    mmmu_data: str | None
    mmmu_revision: str | None


def resolve_suite_config(
    config: SuiteConfig | None, overrides: Mapping[str, Any], *, named: Sequence[str] = ()
) -> tuple[SuiteConfig, str | Backend]:
    """One SuiteConfig from a config and keyword overrides, read leniently, with ``out`` decided.

    ``overrides`` may hold SuiteConfig fields (``settings``, ``prompts``, ``ocr``, ``mmmu``,
    ``mmmu_data``, ``mmmu_revision``, ``out``) and RunConfig fields for the run template; lists
    may be given as comma-separated strings. ``model`` may be a Backend object.

    Returns:
        The config and the model to build: its spec string, or the Backend object given.

    ``named``: the caller's own keyword parameters, offered when a misspelt name is refused.

    Raises:
        ConfigError: an unknown key (with the closest), a per-run field, or a bad value.
    """
    from mmmu_eval.run.resolve import resolve_config

    overrides = dict(overrides)
    suite_fields = {f.name for f in dataclasses.fields(SuiteConfig)} - {"run"}
    run_fields = {f.name for f in dataclasses.fields(RunConfig)}
    for key in overrides:
        if key in _PER_RUN and key != "out":
            raise ConfigError(f"{key!r} is decided per run in a suite: {_PER_RUN[key]}")
        if key not in suite_fields and key not in run_fields:
            raise ConfigError(f"unknown suite setting {key!r}{did_you_mean(key, sorted(suite_fields | run_fields | set(named)))}")
    suite = {k: overrides.pop(k) for k in list(overrides) if k in suite_fields}
    for key in ("settings", "prompts"):
        if isinstance(suite.get(key), str):
            suite[key] = tuple(v.strip() for v in suite[key].split(",") if v.strip())
        elif isinstance(suite.get(key), (list, tuple)):
            suite[key] = tuple(suite[key])
    if isinstance(suite.get("out"), str):
        suite["out"] = Path(suite["out"])
    if config is None:
        run, model = resolve_config(None, {**overrides, "benchmark": "mmmu-pro", "out": Path(".")})
        run = dataclasses.replace(run, out=None)
        out = suite.pop("out", None) or Path("suites") / default_suite_name(run)
        config = SuiteConfig(run=run, out=out, **suite)
    else:
        run, model = resolve_config(config.run, overrides) if overrides else (config.run, config.run.model)
        config = dataclasses.replace(config, run=dataclasses.replace(run, out=None), **suite)
    return config, model


def default_suite_name(run: RunConfig) -> str:
    """``openai-gpt-4o`` (hub), ``random-sample``, ``m-snapshot`` (plus ``-shard2of4``).

    No time stamp: running the same command again continues the same suite.
    """
    name = slug(run.model, limit=60, empty="model")
    if run.data != "hub":
        where = run.data if run.data == "sample" else Path(run.data).name
        name += "-" + slug(where, empty="data")
    if run.shard:
        name += f"-shard{run.shard[0]}of{run.shard[1]}"
    return name


def backend_sharing(model: str | Backend) -> str:
    """How the suite's runs use the model: ``concurrent``, ``sequential`` or ``per-run``.

    - ``concurrent``: one backend object for every run, the runs asking at the same time, so
      their requests share the backend's in-flight limit (API servers: the server stays busy
      across runs, and start-up is paid once).
    - ``sequential``: one backend object (one model load), the runs one after another: a local
      engine (``hf:``, ``vllm:``) batches inside one call and must not run two at once.
    - ``per-run``: a backend per run: ``frequent`` answers from the gold answers of the items it
      is built for, which differ per setting; ``random`` costs nothing to build.
    """
    spec = model if isinstance(model, str) else str(getattr(model, "spec", ""))
    while spec.startswith("text-only:"):
        spec = spec[len("text-only:"):]
    if spec in ("random", "frequent"):
        return "per-run" if isinstance(model, str) else "concurrent"
    if spec.startswith(("hf:", "vllm:")):
        return "sequential"
    return "concurrent"


def plan_suite(config: SuiteConfig | None = None, /, **overrides: Unpack[SuiteConfigArgs]) -> list[RunPlan]:
    """What each run of the suite would send (``api.plan_run`` per run), creating no backend.

    ``mmmu-eval suite --dry-run`` prints these and ``plan_totals``; nothing is written.

    >>> plans = plan_suite(model="openai:gpt-4o", data="sample", out="suites/x")
    >>> plan_totals(plans)["requests"]      # 24 items in each of 6 MMMU-Pro runs, 40 in MMMU validation
    184
    """
    from mmmu_eval.run.pipeline import plan_run

    config, _ = resolve_suite_config(config, overrides)
    return [plan_run(run.config) for run in config.runs()]


def plan_totals(plans: Sequence[RunPlan]) -> dict[str, Any]:
    """The plans summed: what the whole suite would send."""
    usd = [p.estimated_input_usd for p in plans if p.estimated_input_usd is not None]
    return {
        "runs": len(plans),
        "items": sum(p.items for p in plans),
        "already_answered": sum(p.already_answered for p in plans),
        "requests": sum(p.requests for p in plans),
        "images": sum(p.images for p in plans),
        "text_bytes": sum(p.text_bytes for p in plans),
        "image_bytes": sum(p.image_bytes for p in plans),
        "request_bytes": sum(p.request_bytes for p in plans),
        "wire_bytes": None if any(p.wire_bytes is None for p in plans) else sum(p.wire_bytes or 0 for p in plans),
        "preflight_probes": sum(p.preflight_probes for p in plans),
        "preflight_bytes": sum(p.preflight_bytes for p in plans),
        "sent_bytes": None if any(p.sent_bytes is None for p in plans) else sum(p.sent_bytes or 0 for p in plans),
        "estimated_prompt_tokens": sum(p.estimated_prompt_tokens for p in plans),
        "estimated_input_usd": sum(usd) if usd else None,
        "failures": sum(len(p.failures) for p in plans),
        "refused": [str(p.run_dir) for p in plans if p.refusal],
    }
