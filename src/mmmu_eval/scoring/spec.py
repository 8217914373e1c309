"""How a run is scored, decided once: parsers in order, fallback policy and seed, answers file.

``run`` writes this into ``manifest.json`` (key ``scoring``) and every command that scores a run
directory again (``score``, ``report``, ``report --html``, ``compare``, ``merge``) reads it back
from there, so the headline of a run is the same whichever command prints it. Before this
record existed each command rebuilt the parsers its own way, and a boxed run was scored with
``[boxed, official]`` by ``run`` but with ``[official]`` by ``report``.

A run directory written before the record existed is scored as ``run`` would score it now:
the prompt mode's default parsers, the recorded ``fallback_seed`` (42 when absent), the official
fallback policy and the recorded answers file.

>>> spec = ScoringSpec.for_mode("boxed")
>>> spec.parsers, spec.to_manifest()["fallback"]
(('boxed', 'official'), 'official')
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mmmu_eval.core.config import RunConfig, check_scoring_names
from mmmu_eval.core.errors import ConfigError, StoreError
from mmmu_eval.core.records import Item, Response  # at run time: get_type_hints resolves the signatures
from mmmu_eval.scoring.judge import default_parsers
from mmmu_eval.scoring.scorer import OFFICIAL_SEED, Scoring, score_responses
from mmmu_eval.core.manifest import Manifest

#: The manifest key that holds the record.
MANIFEST_KEY = "scoring"


@dataclass(frozen=True)
class ScoringSpec:
    """Everything that turns a run's stored responses into its scores."""

    parsers: tuple[str, ...]
    """Parser names from ``judge.PARSERS``, in order; the first gives the headline."""
    fallback: str = "official"
    """``official`` (seeded random letter for an unparseable multiple-choice answer) or ``none`` (wrong)."""
    fallback_seed: int = OFFICIAL_SEED
    """Seed of each parser's fallback generator."""
    answers: str | None = None
    """Absolute path of the official answer-dict file the gold answers come from; None: the dataset's."""

    def __post_init__(self) -> None:
        if not self.parsers:
            raise ConfigError("--parser: name at least one parser")
        check_scoring_names(self.parsers, self.fallback)
        if isinstance(self.fallback_seed, bool) or not isinstance(self.fallback_seed, int) or self.fallback_seed < 0:
            raise ConfigError(f"--fallback-seed must be a whole number of at least 0, not {self.fallback_seed!r}")
        if self.answers is not None and not isinstance(self.answers, str):
            raise ConfigError(f"--answers must be a file path, not {self.answers!r}")

    # -- building ---------------------------------------------------------------------------

    @classmethod
    def for_mode(
        cls,
        prompt_mode: str | None,
        *,
        parsers: Sequence[str] | None = None,
        fallback: str | None = None,
        fallback_seed: int | None = None,
        answers: str | Path | None = None,
    ) -> ScoringSpec:
        """The record for a run asked with ``prompt_mode``; None for any field means its default.

        Args:
            prompt_mode: the protocol's prompt mode (``direct``, ``cot``, ``boxed``, ``ocr``).
            parsers: parsers in order; None: the mode's defaults (``judge.default_parsers``).
            fallback: ``official`` or ``none``; None: ``official``.
            fallback_seed: None: 42, the official seed.
            answers: an answer-dict file; stored as an absolute path so that the run directory
                can be reported from another working directory.
        """
        return cls(
            parsers=tuple(parsers) if parsers else default_parsers(prompt_mode),
            fallback=fallback or "official",
            fallback_seed=OFFICIAL_SEED if fallback_seed is None else fallback_seed,
            answers=_absolute(answers),
        )

    @classmethod
    def from_config(cls, config: RunConfig) -> ScoringSpec:
        """How a run of ``config`` is scored: the record ``run`` writes into manifest.json."""
        return cls.for_mode(
            config.prompt, parsers=config.parsers, fallback=config.fallback,
            fallback_seed=config.fallback_seed, answers=config.answers,
        )

    @classmethod
    def from_manifest(cls, manifest: Manifest | Mapping[str, Any]) -> ScoringSpec:
        """The record a run directory's manifest holds, or the defaults ``run`` gives its settings.

        Raises:
            StoreError: the manifest has a ``scoring`` entry that is not a valid record, or a
                field the manifest's checked reader refuses (``mmmu_eval.core.manifest``).
        """
        record = Manifest.of(manifest)  # checked: a scoring or config that is not an object is refused
        recorded = record.scoring
        if recorded is not None:
            try:
                return cls(
                    parsers=tuple(recorded.get("parsers") or ()),
                    fallback=str(recorded.get("fallback", "official")),
                    fallback_seed=recorded.get("fallback_seed", OFFICIAL_SEED),
                    answers=recorded.get("answers"),
                )
            except (ConfigError, TypeError) as exc:
                raise StoreError(f"manifest.json's {MANIFEST_KEY!r} entry is not valid ({exc}); "
                                 "delete the entry to score the run with its mode's defaults") from exc
        config = record.config
        try:
            return cls.for_mode(
                record.prompt_mode,
                parsers=config.get("parsers") or None,
                fallback=config.get("fallback") or None,
                fallback_seed=config.get("fallback_seed"),
                answers=config.get("answers") or None,
            )
        except (ConfigError, TypeError) as exc:
            raise StoreError(f"manifest.json's 'config' does not say how to score the run ({exc}); "
                             f"add a {MANIFEST_KEY!r} entry, or run `mmmu-eval score RUN_DIR --parser ...`") from exc

    def replace(
        self,
        *,
        parsers: Sequence[str] | None = None,
        fallback: str | None = None,
        fallback_seed: int | None = None,
        answers: str | Path | None = None,
    ) -> ScoringSpec:
        """This record with the values a command's flags set; None keeps the recorded value."""
        changes: dict[str, Any] = {}
        if parsers:
            changes["parsers"] = tuple(parsers)
        if fallback is not None:
            changes["fallback"] = fallback
        if fallback_seed is not None:
            changes["fallback_seed"] = fallback_seed
        if answers is not None:
            changes["answers"] = _absolute(answers)
        return dataclasses.replace(self, **changes) if changes else self

    # -- using ------------------------------------------------------------------------------

    def to_manifest(self) -> dict[str, Any]:
        """The ``scoring`` entry of manifest.json."""
        return {
            "parsers": list(self.parsers),
            "fallback": self.fallback,
            "fallback_seed": self.fallback_seed,
            "answers": self.answers,
        }

    def gold_items(self, items: Sequence[Item]) -> tuple[Item, ...]:
        """The items with their gold answers from ``answers`` when it is set, else as loaded.

        Raises:
            ConfigError: the answers file cannot be read (named, with what to do).
        """
        if self.answers is None:
            return tuple(items)
        from mmmu_eval.scoring.answers import apply_answers, load_answer_dict

        return apply_answers(items, load_answer_dict(self.answers))

    def score(self, items: Sequence[Item], responses: Mapping[str, Response]) -> Scoring:
        """Score ``responses`` to ``items`` (gold answers as they are in ``items``) by this record."""
        return score_responses(
            items, responses, parsers=self.parsers, fallback=self.fallback, fallback_seed=self.fallback_seed
        )

    def describe(self) -> str:
        """One line for the terminal: ``parsers boxed, official; fallback official (seed 42)``."""
        text = f"parsers {', '.join(self.parsers)}; fallback {self.fallback}"
        if self.fallback == "official":
            text += f" (seed {self.fallback_seed})"
        if self.answers:
            text += f"; answers {self.answers}"
        return text


def _absolute(path: str | Path | None) -> str | None:
    return None if path is None else str(Path(path).expanduser().resolve())
