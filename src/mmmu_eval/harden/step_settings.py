"""One settings object per harden step, instead of one long list of prefixed parameters.

``harden all`` once took 26 keyword arguments, ``augment_temperature`` beside ``temperature``;
now each step takes its own frozen settings (``FilterSettings``, ``AugmentSettings`` with its
``CheckSettings``, ``RenderSettings``), and what every step shares is said once: which
questions of ``--data`` are read (``SourceSettings``), the seed, and the RunConfig fields every
model request uses (``run_settings``, a ``RunConfigArgs``). The CLI builds these from its flags
(``cli/harden.py``); the values are checked where the step uses them, as before, so the errors
and their order are the command's.

For example (the augment step asks a server, so a sketch, not a doctest)::

    harden_all("sample", "hard", filter=FilterSettings(models="frequent,frequent,frequent,random"),
               augment=AugmentSettings(model="openai:gpt-4o"))
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from mmmu_eval.screenshots.item_page import FONT_SIZES, PAGE_WIDTHS, PHOTO_SHARE
from mmmu_eval.harden.trials import Model

__all__ = ["OPTIONS", "PER_SUBJECT", "WORKERS", "AugmentSettings", "CheckSettings", "FilterSettings", "RenderSettings",
           "SourceSettings"]

#: Questions sampled per subject after the filter: MMMU-Pro's 60.
PER_SUBJECT = 60
#: Options per question after augmenting: MMMU-Pro's 10.
OPTIONS = 10
#: Browser pages rendering side by side.
WORKERS = 4


@dataclass(frozen=True)
class SourceSettings:
    """Which questions of ``data`` a step reads (``source.read_source``); the default reads all."""

    split: str | None = None
    """MMMU split to read from sample, hub or an MMMU directory (default validation)."""
    subjects: Sequence[str] | None = None
    """Keep only these subjects."""
    limit: int | None = None
    """Keep the first N usable questions (to try a setting out)."""
    default_subject: str | None = None
    """Subject of JSONL rows that name none."""


@dataclass(frozen=True)
class FilterSettings:
    """The filter step: which text-only models, how often each is asked, and what is kept."""

    models: str | Sequence[str] | Sequence[Model]
    """The text-only models, as specs (``"openai:a,frequent"``; ``SPEC@URL`` gives one its own
    endpoints) or Models."""
    trials: int = 10
    """Answers per model per question (the paper's 10)."""
    min_models: int | None = None
    """Exclude a question answerable by at least this many models; None: ceil(3/4 x models)."""
    per_subject: int | None = PER_SUBJECT
    """Questions sampled per subject from those kept; 0 or None keeps all."""
    temperature: float | None = None
    """Sampling temperature of the trials; None: 1.0."""
    base_urls: Sequence[str] | None = None
    """Endpoints of ``openai:`` models that name none of their own."""


@dataclass(frozen=True)
class CheckSettings:
    """The text-only check of the augmented set (Figure 5's third bar)."""

    models: str | Sequence[str] | None = None
    """The models to check with; None: the filter's; ``""``: no check."""
    trials: int | None = None
    """Their trials; None: the filter's."""
    base_urls: Sequence[str] | None = None
    """Endpoints whose ``user:password@`` the filter's models send again: harden.json records
    their endpoints without credentials, so one recorded there takes them from the URL here that
    names the same server (``text_check.with_credentials``); None: the augment step's."""


@dataclass(frozen=True)
class AugmentSettings:
    """The augment step: the model that proposes distractors, and how it is asked."""

    model: str | None = None
    """The spec of the model that proposes distractors (the step refuses None)."""
    options: int = OPTIONS
    """Options per question after augmenting."""
    attempts: int = 3
    """Tries per question before its proposals count as failed."""
    temperature: float | None = 0.7
    """Its sampling temperature."""
    max_tokens: int | None = 1024
    """Most tokens per proposal."""
    base_urls: Sequence[str] | None = None
    """Its endpoints; in ``harden_all``, None takes the filter's."""
    position_dependent: str = "keep"
    """``keep`` ('Both A and B' held meaningful in place) or ``flag`` (those questions left unaugmented)."""
    check: CheckSettings = field(default_factory=CheckSettings)
    """The text-only check of the augmented set."""


@dataclass(frozen=True)
class RenderSettings:
    """The render step: how each question's page is drawn (``page.choose_style``)."""

    workers: int = WORKERS
    """Browser pages rendering side by side."""
    fonts: Sequence[str] | None = None
    """Font families to draw from; None: every installed one of ``page.SERIF``, ``SANS``, ``HANDWRITING``, ``MONO``."""
    font_sizes: tuple[int, int] = FONT_SIZES
    """Font size range in pixels, inclusive."""
    page_widths: tuple[int, int] = PAGE_WIDTHS
    """Page width range in pixels, inclusive."""
    backgrounds: Sequence[str] | None = None
    """Names from ``page.BACKGROUNDS``; None: all."""
    photo_share: float = PHOTO_SHARE
    """The share of pages made photos of a screen (``photo.py``), 0 to 1."""
