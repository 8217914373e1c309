"""The evaluation protocol (benchmark, setting, prompt mode, image layout, generation) and the
two pure functions that turn an Item into what a model is asked.

``build_request`` and ``prompt_text`` do no I/O: they never load an image, only place
references to them. Which template a benchmark uses lives in its own module (``mmmu_templates.py``,
``mmmu_pro_templates.py``); where images go lives in ``layout.py``.

>>> from mmmu_eval.dataset import load_benchmark
>>> item = load_benchmark("mmmu-pro", setting="standard-10", data="sample").items[0]
>>> protocol = EvalProtocol("mmmu-pro", "standard-10", "direct")
>>> build_request(item, protocol)          # the item's id, its text and image parts
Request('test_Accounting_3', 3 parts, 1 images)
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field

from mmmu_eval.core.config import IMAGE_LAYOUTS, PRO_SETTINGS, PROMPT_MODES, UNREFERENCED_IMAGES, RunConfig
from mmmu_eval.core.errors import ConfigError, DataError, argument
from mmmu_eval.prompt import layout, mmmu_pro_templates, mmmu_templates
from mmmu_eval.core.records import GenerationSettings, Item, Request

#: Bumped when the way prompts are assembled changes in a way the template texts do not show.
PROTOCOL_VERSION = 1

#: MMMU-Pro's answer budget when the run gives none: ``max_tokens=4096`` in the official GPT
#: script and ``max_new_tokens=4096`` in the lmdeploy one (official-protocol.md, section 6.3).
#: MMMU has no such default: its only official settings are LLaVA's beam search, which is
#: specific to that model, so MMMU leaves every generation setting to the backend.
PRO_MAX_TOKENS = 4096


@dataclass(frozen=True)
class EvalProtocol:
    """Everything that decides what a model is asked, and so what a score means.

    Two runs with the same fingerprint asked every model the same thing.
    """

    benchmark: str
    """``mmmu`` or ``mmmu-pro``."""
    setting: str | None
    """MMMU-Pro: ``standard-10``, ``standard-4`` or ``vision``; None for MMMU."""
    mode: str
    """``direct``; ``cot``; ``boxed``; ``ocr`` (MMMU-Pro vision only); ``forced-choice`` (MMMU-Pro standard only). Official: MMMU direct, MMMU-Pro direct and cot."""
    image_layout: str = "interleaved"
    """``interleaved``, ``images-first`` or ``text-then-images`` (see ``prompt/layout.py``)."""
    system: str | None = None
    """A system message sent with every request; None sends none."""
    generation: GenerationSettings = field(default_factory=GenerationSettings)
    """Sampling settings; a None field leaves the backend's default."""
    unreferenced_images: str = "official"
    """Images no token refers to: ``official`` (not sent) or ``append`` (sent after the others; not official)."""

    def __post_init__(self) -> None:
        if self.benchmark == "mmmu":
            if self.setting is not None:
                raise ConfigError("MMMU has no settings; the protocol's setting must be None")
            if self.mode not in ("direct", "cot", "boxed"):
                raise ConfigError(f"{argument('mode', self.mode, flag='--prompt')}: MMMU has the official direct prompt (and cot, boxed)")
        elif self.benchmark == "mmmu-pro":
            if self.setting not in PRO_SETTINGS:
                raise ConfigError(f"{argument('setting', self.setting)} is not one of {', '.join(PRO_SETTINGS)}")
            if self.mode not in PROMPT_MODES:
                raise ConfigError(f"{argument('mode', self.mode, flag='--prompt')} is not one of {', '.join(PROMPT_MODES)}")
            if self.mode == "ocr" and self.setting != "vision":
                raise ConfigError(f"{argument('mode', 'ocr', flag='--prompt')} applies to {argument('setting', 'vision')} only")
            if self.mode == "forced-choice" and self.setting == "vision":
                raise ConfigError(f"{argument('mode', 'forced-choice', flag='--prompt')} applies to the standard settings only")
        else:
            raise ConfigError(f"{argument('benchmark', self.benchmark)} is not one of mmmu, mmmu-pro")
        if self.image_layout not in IMAGE_LAYOUTS:
            raise ConfigError(f"{argument('image_layout', self.image_layout)} is not one of {', '.join(IMAGE_LAYOUTS)}")
        if self.unreferenced_images not in UNREFERENCED_IMAGES:
            raise ConfigError(
                f"{argument('unreferenced_images', self.unreferenced_images)} is not one of {', '.join(UNREFERENCED_IMAGES)}"
            )

    @classmethod
    def from_config(cls, config: RunConfig) -> "EvalProtocol":
        """The protocol a run configuration asks for, with MMMU-Pro's 4096-token default."""
        max_tokens = config.max_tokens
        if max_tokens is None and config.benchmark == "mmmu-pro":
            max_tokens = PRO_MAX_TOKENS
        extra = tuple(sorted((config.extra_body or {}).items()))
        return cls(
            benchmark=config.benchmark,
            setting=config.resolved_setting,
            mode=config.prompt,
            image_layout=config.image_layout,
            system=config.system_prompt,
            generation=GenerationSettings(
                max_tokens=max_tokens,
                temperature=config.temperature,
                top_p=config.top_p,
                seed=config.generation_seed,
                extra_body=extra,
            ),
            unreferenced_images=config.unreferenced_images,
        )

    @property
    def official(self) -> bool:
        """True when the prompt texts are the official code's.

        False for the OCR, boxed and forced-choice prompts and for MMMU CoT, which the official code does not have.
        Image placement, system message and sampling vary between the official scripts
        themselves (the GPT script sends text then images, LLaVA an image then text), so they
        are recorded but do not clear this flag.
        """
        if self.mode in ("ocr", "boxed", "forced-choice"):
            return False
        if self.benchmark == "mmmu" and self.mode == "cot":
            return False
        if self.appends_loose_images:
            return False
        return True

    @property
    def appends_loose_images(self) -> bool:
        """True when images no token refers to are sent (``append``); never for vision, which has none."""
        return self.unreferenced_images == "append" and self.setting != "vision"

    @property
    def image_rule(self) -> str:
        """The rule for images no token refers to, as the fingerprint records it.

        The vision screenshot has no token and is sent after the instruction under either
        rule, so a vision protocol records that one rule whichever is chosen: its requests, and
        so its fingerprint, are the same as before ``official`` became the default.
        """
        if self.setting == "vision":
            return layout.UNREFERENCED_RULES["append"]
        return layout.UNREFERENCED_RULES[self.unreferenced_images]

    def templates(self) -> dict[str, str]:
        """The template texts this protocol uses, by name."""
        if self.benchmark == "mmmu":
            return mmmu_templates.templates(self.mode)
        return mmmu_pro_templates.templates(str(self.setting), self.mode)

    def _settings(self) -> dict[str, object]:
        return {
            "protocol_version": PROTOCOL_VERSION,
            "benchmark": self.benchmark,
            "setting": self.setting,
            "mode": self.mode,
            "image_layout": self.image_layout,
            "system": self.system,
            "generation": _generation_dict(self.generation),
            "image_token": layout.TOKEN_PATTERN,
            "unreferenced_images": self.image_rule,
        }

    def fingerprint(self) -> str:
        """sha256 (hex) of the template texts and every setting, canonically serialised.

        It changes when any template text or setting changes, and only then, so that a
        resumed run can refuse responses asked under another protocol.
        """
        payload = {"templates": self.templates(), "settings": self._settings()}
        blob = json.dumps(payload, sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=repr)
        return hashlib.sha256(blob.encode("utf-8")).hexdigest()

    def describe(self) -> dict[str, object]:
        """The protocol for ``manifest.json``: settings, template texts, official flag, fingerprint."""
        out = self._settings()
        out["official"] = self.official
        out["fingerprint"] = self.fingerprint()
        out["templates"] = self.templates()
        notes = []
        if self.mode == "ocr":
            notes.append("the ocr prompt is ours: the official code has no OCR prompt")
        if self.mode == "boxed":
            notes.append(
                "the boxed prompt is ours, the protocol of reinforcement-learning environments: the "
                "boxed parser is the headline, with the official parser reported beside it"
            )
        if self.mode == "forced-choice":
            notes.append(
                "the forced-choice prompt is ours (the text-only filter of `mmmu-eval harden`): it tells the "
                "model that the images are withheld and that it must pick an option anyway"
            )
        if self.benchmark == "mmmu" and self.mode == "cot":
            notes.append("the MMMU cot prompt is ours: the official MMMU code has no CoT prompt")
        if self.image_layout == "text-then-images":
            notes.append("text-then-images is the official GPT script's layout")
        if self.appends_loose_images:
            notes.append(
                "--unreferenced-images append is ours: images no <image N> token refers to are sent after the "
                "referenced ones, where the official scripts leave them out"
            )
        if self.setting == "vision":
            notes.append("vision: the screenshot is the whole question and is always sent, as the official scripts do")
        out["notes"] = notes
        return out


def prompt_text(item: Item, protocol: EvalProtocol) -> str:
    """The prompt string, byte for byte as the official code builds it.

    MMMU keeps ``<image N>`` tokens as written; MMMU-Pro standard shows each as ``<image>``;
    MMMU-Pro vision is the instruction alone. No image is loaded.

    Args:
        item: the item.
        protocol: benchmark, setting and mode.

    Returns:
        e.g. ``"Cost?\\n(A) $6\\n(B) $7\\n\\nAnswer with the option's letter from the given choices directly."``

    Examples:
        >>> from mmmu_eval.dataset import find_item, load_benchmark
        >>> item = find_item(load_benchmark("mmmu", split="dev", data="sample"), "dev_Art_1")
        >>> print(prompt_text(item, EvalProtocol("mmmu", None, "direct")))
        Name the shape drawn in <image 1>.
        Answer the question using a single word or phrase.
    """
    _check_item(item, protocol)
    if protocol.benchmark == "mmmu":
        return mmmu_templates.display_prompt(item, protocol.mode)
    return mmmu_pro_templates.display_prompt(item, str(protocol.setting), protocol.mode)


def build_request(item: Item, protocol: EvalProtocol) -> Request:
    """The request for one item: text and image parts in the protocol's layout.

    Raises DataError(item.id) when a token names an image the item does not have, or when a
    vision item has no image. Images are referenced, never loaded.

    Args:
        item: the item.
        protocol: benchmark, setting, mode, layout, system message and generation settings.

    Returns:
        A Request with the item's choice letters, the protocol's system message and settings.

    Examples:
        >>> from mmmu_eval.dataset import load_benchmark
        >>> item = load_benchmark("mmmu-pro", setting="vision", data="sample").items[0]
        >>> request = build_request(item, EvalProtocol("mmmu-pro", "vision", "cot"))
        >>> [type(p).__name__ for p in request.parts]      # the instruction, then the screenshot
        ['TextPart', 'ImagePart']
    """
    _check_item(item, protocol)
    if protocol.benchmark == "mmmu":
        layout.check_references(item)
        raw = mmmu_templates.raw_prompt(item, protocol.mode)

        def shown(text: str) -> str:
            return text

    else:
        setting = str(protocol.setting)
        if setting == "vision":
            if not item.images:
                raise DataError("the vision item has no image", item.id)
        else:
            layout.check_references(item)
        raw = mmmu_pro_templates.raw_prompt(item, setting, protocol.mode)

        def shown(text: str) -> str:
            return layout.TOKEN.sub(lambda _: mmmu_pro_templates.IMAGE_TOKEN_REPLACEMENT, text)

    if protocol.setting == "vision":
        trailing = item.images  # the screenshot: the instruction, then the image
    elif protocol.appends_loose_images:
        trailing = layout.unreferenced_images(item, raw)
    else:
        trailing = ()  # official: exactly the tokens' images
    parts = layout.arrange(item, raw, protocol.image_layout, shown_as=shown, trailing=trailing)
    return Request(
        item_id=item.id,
        parts=parts,
        choices=item.choices,
        system=protocol.system,
        generation=protocol.generation,
    )


def loose_images_record(items: Sequence[Item], protocol: EvalProtocol) -> dict[str, object]:
    """Which items have images no token refers to, and whether this protocol sends them.

    For ``manifest.json`` (``unreferenced_images``): ``rule`` (``official`` or ``append``),
    ``sent``, ``count``, ``ids`` (dataset order) and ``fields`` (id -> the loose image fields).
    """
    fields = {it.id: [ref.field for ref in layout.loose_images(it)] for it in items}
    fields = {item_id: names for item_id, names in fields.items() if names}
    return {
        "rule": protocol.unreferenced_images,
        "sent": protocol.appends_loose_images,
        "count": len(fields),
        "ids": list(fields),
        "fields": fields,
    }


def loose_images_line(record: dict[str, object], *, shown: int = 5) -> str | None:
    """The one log line a run gives about its loose images; None when no item has any."""
    ids = list(record["ids"])  # type: ignore[call-overload]
    if not ids:
        return None
    first = ", ".join(ids[:shown]) + (", ..." if len(ids) > shown else "")
    if record["sent"]:
        what = "sent after the referenced ones (--unreferenced-images append; not official)"
    else:
        what = "not sent, as the official scripts do (--unreferenced-images append sends them)"
    return f"{len(ids)} item(s) have images no <image N> token refers to, {what}: {first}"


def _check_item(item: Item, protocol: EvalProtocol) -> None:
    """A protocol for one benchmark or setting cannot ask another's items: a wrong setup."""
    if item.benchmark != protocol.benchmark or item.setting != protocol.setting:
        have = item.benchmark + (f" {item.setting}" if item.setting else "")
        want = protocol.benchmark + (f" {protocol.setting}" if protocol.setting else "")
        raise ConfigError(f"{item.id}: the item is from {have} but the protocol is for {want}")


def _generation_dict(g: GenerationSettings) -> dict[str, object]:
    out = asdict(g)
    out["extra_body"] = {k: v for k, v in g.extra_body}
    return out
