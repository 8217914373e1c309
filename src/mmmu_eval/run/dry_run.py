"""``plan_run``: what a run would send, found without creating or calling any backend.

``mmmu-eval run --dry-run`` prints it. The plan goes through the same stages as ``evaluate``
up to the backend (load items, select, protocol, requests, the run directory's resume check),
then counts instead of sending: requests, images, bytes, and an estimate of the prompt tokens.
It writes nothing and imports no model code, so it is safe to run before a long or paid run.

>>> plan = plan_run(RunConfig(model="openai:gpt-4o", benchmark="mmmu-pro", data="sample", out="runs/gpt-4o"))
>>> print("\\n".join(plan.lines()[:4]))
dry run: nothing is sent and nothing is written (runs/gpt-4o would hold the run)
mmmu-pro standard-10, prompt direct, official, fingerprint ..., model openai:gpt-4o
items        24 selected
requests     24, after 1 preflight probe(s)

The stages before a backend are ``prepare.prepare_run`` and the resume rules ``resume``, as
``evaluate`` runs them.
"""

from __future__ import annotations

import dataclasses
import io
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mmmu_eval.backends.openai_body import PROBE_TEXT
from mmmu_eval.core.config import PRICE_PER_TOKENS, RunConfig
from mmmu_eval.core.errors import DataError, StoreError
from mmmu_eval.run.prepare import prepare_run
from mmmu_eval.run.resolve import RunConfigArgs, Unpack, resolve_config
from mmmu_eval.run.resume import answered_before, check_run_dir, inherited_answers, preflight_needed, requests_to_ask
from mmmu_eval.prompt.protocol import loose_images_record
from mmmu_eval.core.records import ImagePart, ImageRef, Request, TextPart

__all__ = ["CHARS_PER_TOKEN", "IMAGE_TOKEN_NOTE", "TOKEN_RULE", "RunPlan", "plan_run", "wrap_line"]

#: The backend that sends JSON bodies over HTTP, whose bytes the plan counts as sent.
OPENAI_PREFIX = "openai:"
#: The prompt-token estimate: characters of text per token (English prose in common tokenizers).
CHARS_PER_TOKEN = 4
TOKEN_RULE = f"ceil(characters / {CHARS_PER_TOKEN}) of text per request (text parts and system message)"
IMAGE_TOKEN_NOTE = (
    "images are not in the estimate: their tokens depend on the model (e.g. Qwen2-VL about one per "
    "28x28 pixels, GPT-4o 85 plus 170 per 512-pixel tile at high detail)"
)


@dataclass(frozen=True)
class RunPlan:
    """What one run would send, counted; ``lines()`` for people, ``to_json()`` for programs."""

    run_dir: Path
    """Where the run would write (nothing is written by the plan)."""
    model: str
    """The model spec."""
    benchmark: str
    """``mmmu`` or ``mmmu-pro``."""
    split: str
    """The split read (``test`` for MMMU-Pro)."""
    setting: str | None
    """The MMMU-Pro setting; None for MMMU."""
    prompt_mode: str
    """``direct``, ``cot``, ``boxed``, ``ocr`` or ``forced-choice``."""
    fingerprint: str
    """The protocol fingerprint the run would record."""
    official: bool
    """Whether the prompts are the official code's (``EvalProtocol.official``)."""
    items: int
    """Items selected."""
    already_answered: int
    """Of those, items the run directory already holds an answer for (a resumed run skips them)."""
    requests: int
    """Requests the run would send: selected items, less those answered, less failures."""
    images: int
    """Image parts in those requests (an image a prompt shows twice counts twice)."""
    text_chars: int
    """Characters of the text parts and system messages."""
    text_bytes: int
    """UTF-8 bytes of the text parts and system messages."""
    image_bytes: int
    """Image bytes as stored, which is how they are sent (no re-encoding; see prompt/images.py)."""
    image_pixels: int
    """Sum of width x height over the image parts (0 for an image whose size cannot be read)."""
    estimated_prompt_tokens: int
    """Text only, by ``TOKEN_RULE``."""
    failures: tuple[tuple[str, str], ...]
    """(item id, why) for items whose request cannot be built; a run stores each as an error."""
    loose_images_sent: bool
    """True under ``--unreferenced-images append``."""
    loose_image_ids: tuple[str, ...]
    """Items with images no token refers to (not sent by default)."""
    wire_bytes: int | None = None
    """The requests' JSON bodies as the OpenAI-compatible backend sends them (images in base64),
    byte for byte; None for a backend that sends no HTTP (local models, baselines)."""
    preflight_probes: int = 0
    """Probe requests the preflight sends before the first request (one per endpoint)."""
    preflight_bytes: int = 0
    """Their JSON bodies, byte for byte (as many tiny images as the widest request)."""
    preflight_images: int = 0
    """Images in each probe."""
    images_withheld: bool = False
    """``text-only:`` model: the requests carry no image."""
    max_image_pixels: int | None = None
    """The run's ``--max-image-pixels`` (pixels, width times height); None: images are not scaled."""
    price_input: float | None = None
    """The run's ``--price-input``, US dollars per million prompt tokens; None: no estimate."""
    refusal: str | None = None
    """Why the run would stop before its first request (the run directory holds another protocol), or None."""

    @property
    def request_bytes(self) -> int:
        """Text plus image bytes of the requests to send."""
        return self.text_bytes + self.image_bytes

    @property
    def sent_bytes(self) -> int | None:
        """Everything the run POSTs: the requests' bodies and the preflight probes; None without HTTP."""
        return None if self.wire_bytes is None else self.wire_bytes + self.preflight_bytes

    @property
    def preflight_tokens(self) -> int:
        """The probes' text by ``TOKEN_RULE`` (their images are tiny, and not estimated either)."""
        return self.preflight_probes * math.ceil(len(PROBE_TEXT) / CHARS_PER_TOKEN)

    @property
    def estimated_input_usd(self) -> float | None:
        """The text-only token estimate, probes included, at ``--price-input``: a lower bound (images are extra)."""
        if self.price_input is None:
            return None
        return (self.estimated_prompt_tokens + self.preflight_tokens) * self.price_input / PRICE_PER_TOKENS

    def to_json(self) -> dict[str, Any]:
        """The plan as JSON-ready data (``run --dry-run --json``)."""
        out = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        out["run_dir"] = str(self.run_dir)
        out["failures"] = [{"id": i, "reason": why} for i, why in self.failures]
        out["loose_image_ids"] = list(self.loose_image_ids)
        out["request_bytes"] = self.request_bytes
        out["sent_bytes"] = self.sent_bytes
        out["preflight_tokens"] = self.preflight_tokens
        out["estimated_input_usd"] = self.estimated_input_usd
        out["token_rule"] = f"{TOKEN_RULE}; {IMAGE_TOKEN_NOTE}"
        return out

    def text(self, width: int | None = None) -> str:
        """``lines()`` for a terminal ``width`` wide: each wraps under its value, no word or path split."""
        if width is None:
            return "\n".join(self.lines())
        return "\n".join(wrap_line(line, width) for line in self.lines())

    def lines(self) -> list[str]:
        """The plan as plain lines, for the terminal."""
        where = self.setting or self.split
        official = "official" if self.official else "NOT official"
        out = [
            f"dry run: nothing is sent and nothing is written ({self.run_dir} would hold the run)",
            f"{self.benchmark} {where}, prompt {self.prompt_mode}, {official}, fingerprint {self.fingerprint[:12]}, model {self.model}",
            f"items        {self.items} selected"
            + (f", {self.already_answered} already answered in the run directory" if self.already_answered else ""),
            f"requests     {self.requests}"
            + (f", after {self.preflight_probes} preflight probe(s)" if self.preflight_probes else ""),
            f"images       {self.images} ({_size(self.image_bytes)}, {self.image_pixels / 1e6:.1f} megapixels)"
            + (" - withheld: text-only model" if self.images_withheld else ""),
        ]
        raw = f"text {_size(self.text_bytes)} + images {_size(self.image_bytes)} as stored"
        if self.wire_bytes is None:
            out.append(f"bytes        {_size(self.request_bytes)} ({raw}; this backend sends nothing over HTTP)")
        else:
            out.append(f"bytes        {_size(self.sent_bytes or 0)} sent ({self.sent_bytes:,} B of JSON bodies, images in "
                       f"base64): requests {_size(self.wire_bytes)}, preflight {_size(self.preflight_bytes)}; raw {raw}")
        if self.preflight_probes:
            out.append(f"preflight    {self.preflight_probes} probe(s) of {self.preflight_images} tiny image(s) and "
                       f"a one-token answer, one per endpoint, before the first request ({self.preflight_tokens} "
                       "tokens of text in the estimate below)")
        out.append(f"tokens       about {self.estimated_prompt_tokens:,} prompt tokens of text ({TOKEN_RULE}); "
                   f"{IMAGE_TOKEN_NOTE}")
        if self.max_image_pixels is not None:
            out.append(f"note         image sizes are as stored; --max-image-pixels {self.max_image_pixels} "
                       "down-scales larger ones when sent")
        if self.estimated_input_usd is not None:
            out.append(f"cost         at least ${self.estimated_input_usd:.4f} for the prompt text"
                       + (" and the probes" if self.preflight_probes else "")
                       + f" (--price-input {self.price_input:g}; images and answers are extra)")
        if self.loose_image_ids:
            shown = ", ".join(self.loose_image_ids[:5]) + (" ..." if len(self.loose_image_ids) > 5 else "")
            what = "sent after the referenced ones (--unreferenced-images append)" if self.loose_images_sent else "not sent (official rule)"
            out.append(f"loose images {len(self.loose_image_ids)} item(s) have images no token refers to, {what}: {shown}")
        for item_id, why in self.failures:
            out.append(f"failure      {item_id}: {why}")
        if self.refusal:
            out.append(f"REFUSED      the run would stop before its first request: {self.refusal}")
        return out


def wrap_line(line: str, width: int, indent: int = 13) -> str:
    """One ``name  value`` line of a plan folded at ``width``, continuing under the value."""
    import textwrap

    return textwrap.fill(line, width=max(width, indent + 20), subsequent_indent=" " * indent,
                         break_long_words=False, break_on_hyphens=False)


def plan_run(config: RunConfig | None = None, /, **overrides: Unpack[RunConfigArgs]) -> RunPlan:
    """Load items and build requests exactly as ``evaluate`` would, and count what would be sent.

    Takes what ``evaluate`` takes: a RunConfig, keyword overrides of its fields, or both.

    No backend is created or called, and nothing is written. The model spec is checked (an
    unknown one raises ConfigError as a run would), but no model module is imported.

    Raises:
        ConfigError, DataError: as ``evaluate`` would raise them before its first request.
    """
    from mmmu_eval.backends.openai_servers import endpoint_urls
    from mmmu_eval.run.backend_settings import backend_settings
    from mmmu_eval.backends.openai_body import encode_body, preflight_probe
    from mmmu_eval.backends.registry import parse_spec

    config, _ = resolve_config(config, overrides)
    withheld = config.model.startswith("text-only:")
    entry, name = parse_spec(config.model.removeprefix("text-only:") if withheld else config.model)
    http = entry.prefix == OPENAI_PREFIX
    prepared = prepare_run(config)
    items, protocol, requests, build_failures = prepared.items, prepared.protocol, prepared.requests, prepared.failures
    manifest = prepared.manifest
    refusal = None
    try:
        check_run_dir(config, manifest)
    except StoreError as exc:
        refusal = str(exc)
    answered = set() if refusal else _answered(Path(str(config.out)), [it.id for it in items])
    if withheld:
        from mmmu_eval.backends.baselines import TextOnlyBackend

        requests = [TextOnlyBackend.strip(r) for r in requests]
    counts = _Counts()
    wire_bytes = 0
    failures = [(f.item_id, _reason(f.item_id, f.error or "")) for f in build_failures if f.item_id not in answered]
    for request in requests:
        if request.item_id in answered:
            continue
        problem = counts.add(request)
        if problem:
            failures.append((request.item_id, problem))
        elif http:
            wire_bytes += len(encode_body(request, name, config.max_image_pixels)[0])
    # The preflight gets the requests still to ask, and only when there are some, as evaluate
    # sends it (resume.preflight_needed).
    pending = requests_to_ask(requests, dict.fromkeys(answered))
    sends_probe = http and preflight_needed(pending)
    probe, widest = preflight_probe(name, pending) if sends_probe else (b"", None)
    probes = len(endpoint_urls(backend_settings(config).openai)) if sends_probe else 0
    loose = loose_images_record(items, protocol)
    return RunPlan(
        run_dir=Path(str(config.out)),
        model=config.model,
        benchmark=config.benchmark,
        split=config.resolved_split,
        setting=config.resolved_setting,
        prompt_mode=protocol.mode,
        fingerprint=protocol.fingerprint(),
        official=protocol.official,
        items=len(items),
        already_answered=len(answered),
        requests=counts.requests,
        images=counts.images,
        text_chars=counts.chars,
        text_bytes=counts.text_bytes,
        image_bytes=counts.image_bytes,
        image_pixels=counts.pixels,
        estimated_prompt_tokens=counts.tokens,
        failures=tuple(failures),
        loose_images_sent=protocol.appends_loose_images,
        loose_image_ids=tuple(loose["ids"]),
        wire_bytes=wire_bytes if http else None,
        preflight_probes=probes,
        preflight_bytes=probes * len(probe),
        preflight_images=len(widest.images) if widest else 0,
        images_withheld=withheld,
        max_image_pixels=config.max_image_pixels,
        price_input=config.price_input,
        refusal=refusal,
    )


def _answered(out: Path, ids: Sequence[str]) -> set[str]:
    """Items the run already holds an answer for (none when it holds no run), in its directory
    or, for a distributed run's directory, in its ranks' shards (``resume.inherited_answers``)."""
    stored = answered_before(out)
    stored = {**inherited_answers(out, stored), **stored}
    return {i for i in ids if i in stored}


def _reason(item_id: str, message: str) -> str:
    return message.removeprefix(f"{item_id}: ")


class _Counts:
    """Running totals over the requests a run would send."""

    def __init__(self) -> None:
        self.requests = self.images = self.chars = self.text_bytes = self.image_bytes = self.pixels = self.tokens = 0
        self._sizes: dict[tuple[str, str], tuple[int, int]] = {}

    def add(self, request: Request) -> str | None:
        """Count one request; the reason it would fail instead (an unreadable image), or None."""
        texts = [p.text for p in request.parts if isinstance(p, TextPart)] + ([request.system] if request.system else [])
        sizes = []
        for part in request.parts:
            if isinstance(part, ImagePart):
                try:
                    sizes.append(self._size(request.item_id, part.image))
                except DataError as exc:
                    return _reason(request.item_id, str(exc))
        chars = sum(len(t) for t in texts)
        self.requests += 1
        self.images += len(sizes)
        self.chars += chars
        self.text_bytes += sum(len(t.encode("utf-8")) for t in texts)
        self.image_bytes += sum(n for n, _ in sizes)
        self.pixels += sum(p for _, p in sizes)
        self.tokens += math.ceil(chars / CHARS_PER_TOKEN)
        return None

    def _size(self, item_id: str, ref: ImageRef) -> tuple[int, int]:
        """(bytes, pixels) of one image, read once per item and field."""
        key = (item_id, ref.field)
        if key not in self._sizes:
            data = ref.load()
            self._sizes[key] = (len(data), _pixels(data))
        return self._sizes[key]


def _pixels(data: bytes) -> int:
    """width x height from the image header (not decoded); 0 when Pillow cannot tell."""
    from PIL import Image

    try:
        with Image.open(io.BytesIO(data)) as image:
            return image.width * image.height
    except Exception:  # a viewer's figure: an unreadable header is not a failure of the plan
        return 0


def _size(n: int) -> str:
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if n >= scale:
            return f"{n / scale:.1f} {unit}"
    return f"{n} B"
