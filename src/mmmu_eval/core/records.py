"""The records that flow through the pipeline: Item -> Request -> Response -> Verdict.

All are frozen, slotted dataclasses: cheap across 10,500 items, hashable, and no stage can
change one behind another's back. A Response is a new record, never a Request filled in later.
Records print who they are (id, counts), never image bytes.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass, field
from typing import Callable, Literal, Union

Benchmark = Literal["mmmu", "mmmu-pro"]
Setting = Literal["standard-10", "standard-4", "vision"]
QuestionType = Literal["multiple-choice", "open"]
Status = Literal["ok", "error", "truncated"]


def letters(n: int) -> tuple[str, ...]:
    """Choice letters for n options: A, B, ... with no stop at J (12 options give A..L)."""
    if 0 <= n <= len(_LETTERS):
        return _LETTERS[n]  # called several times per item while a run starts: made once
    return tuple(chr(ord("A") + i) for i in range(n))


_LETTERS = tuple(tuple(chr(ord("A") + i) for i in range(n)) for n in range(27))


def sniff_media_type(data: bytes) -> str:
    """The MIME type of encoded image bytes, read from their magic number."""
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if data.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if data[:6] in (b"GIF87a", b"GIF89a"):
        return "image/gif"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    if data[:2] == b"BM":
        return "image/bmp"
    if data[:4] in (b"II*\x00", b"MM\x00*"):
        return "image/tiff"
    return "application/octet-stream"


@dataclass(frozen=True, slots=True)
class ImageRef:
    """One dataset image, read only when ``load()`` is called.

    Holding a reference instead of bytes keeps a 10,500-item test split out of memory.
    """

    field: str
    """The dataset column: ``image_1`` ... ``image_7``, or ``image`` for MMMU-Pro vision."""
    loader: Callable[[], bytes] = field(repr=False, compare=False, hash=False)
    """Returns the encoded bytes exactly as stored; raises DataError when they are unreadable."""

    @property
    def number(self) -> int:
        """N of ``image_N``; the single vision image counts as 1."""
        return int(self.field.rsplit("_", 1)[1]) if "_" in self.field else 1

    def load(self) -> bytes:
        return self.loader()

    def peek(self) -> tuple[int, str] | None:
        """(byte length, MIME type) when known without reading the image, else None.

        Parquet-backed images know it once they were read (and checked) in this process.
        """
        peek = getattr(self.loader, "peek", None)
        return peek() if peek is not None else None

    @classmethod
    def from_bytes(cls, field_name: str, data: bytes) -> "ImageRef":
        """An image already in memory (tests, notebooks)."""
        return cls(field_name, lambda: data)


@dataclass(frozen=True, slots=True)
class Item:
    """One benchmark question, with every dataset quirk already normalised."""

    id: str
    """The official id, ``{split}_{Subject}_{n}`` (``validation_Accounting_1``)."""
    benchmark: Benchmark
    """``mmmu`` or ``mmmu-pro``."""
    split: str
    """``dev``, ``validation`` or ``test`` for MMMU; ``test`` for MMMU-Pro (the hub split)."""
    setting: Setting | None
    """MMMU-Pro setting; None for MMMU."""
    subject: str
    """Subject long name (``Basic_Medical_Science``)."""
    discipline: str
    """One of the six disciplines (``Health and Medicine``)."""
    question: str
    """Question text with its ``<image N>`` tokens; empty for MMMU-Pro vision."""
    options: tuple[str, ...]
    """Option texts in order (letters A, B, ... by position); empty for open questions."""
    answer: str | tuple[str, ...] | None
    """A letter for multiple choice; the accepted answer(s) for open; None when withheld (test)."""
    question_type: QuestionType
    """``multiple-choice`` or ``open`` (the dataset's ``short-answer`` is read as ``open``)."""
    images: tuple[ImageRef, ...] = field(repr=False)
    """The images the row has, ordered by field number; absent fields are simply not here."""
    img_type: tuple[str, ...] = ()
    """Image categories (``Diagrams``, ``Tables`` ...); empty when the row has none."""
    topic_difficulty: str | None = None
    """``Easy``, ``Medium`` or ``Hard``; None when absent."""
    subfield: str | None = None
    """Finer topic; None for MMMU-Pro, which has no such column."""
    explanation: str = field(default="", repr=False)
    """The dataset's explanation (mostly empty or ``?``)."""
    notes: tuple[str, ...] = field(default=(), repr=False)
    """What normalisation had to repair in this row (e.g. nested options), for the report."""

    @property
    def choices(self) -> tuple[str, ...]:
        """Choice letters of a multiple-choice item; empty for open questions."""
        return letters(len(self.options)) if self.question_type == "multiple-choice" else ()

    def image(self, number: int) -> ImageRef | None:
        """The image of field ``image_{number}``, or None when the row has no such image."""
        for ref in self.images:
            if ref.number == number:
                return ref
        return None

    def __repr__(self) -> str:
        return (
            f"Item({self.id!r}, {self.question_type}, {len(self.options)} options, "
            f"{len(self.images)} images)"
        )


@dataclass(frozen=True, slots=True)
class TextPart:
    """Literal prompt text."""

    text: str
    """The text, exactly as the model is sent it."""


@dataclass(frozen=True, slots=True)
class ImagePart:
    """An image placed at this point of the prompt."""

    image: ImageRef
    """The image, read lazily (``image.load()`` gives its bytes as the dataset stores them)."""


Part = Union[TextPart, ImagePart]


@dataclass(frozen=True, slots=True)
class GenerationSettings:
    """Sampling settings passed to every backend; None means "the backend's default"."""

    max_tokens: int | None = None
    """Most new tokens to generate (``--max-tokens``; MMMU-Pro's 4096 when the run gives none)."""
    temperature: float | None = None
    """Sampling temperature (``--temperature``); None: not sent, 0 (greedy) for local engines."""
    top_p: float | None = None
    """Nucleus sampling mass, above 0 and at most 1 (``--top-p``); None: not sent."""
    seed: int | None = None
    """Generation seed (``--seed``); None: not sent."""
    extra_body: tuple[tuple[str, object], ...] = ()
    """Extra JSON fields for API servers (e.g. vLLM's ``chat_template_kwargs``), as pairs."""


def derived_seed(text: str) -> int:
    """A generation seed drawn from ``text`` (a base seed and what the draw is for, such as
    ``"0:augment:item:1"``): the same on every machine and Python (sha256, not ``hash``), and
    below 2**31 - 1, so it fits a signed 32-bit seed field. harden's trials and proposals use it."""
    digest = hashlib.sha256(text.encode()).digest()
    return int.from_bytes(digest[:4], "big") % (2**31 - 1)


@dataclass(frozen=True, slots=True)
class Request:
    """What a backend is asked: ordered text and image parts for one item."""

    item_id: str
    """The item asked (``validation_Art_12``): the response is stored under it."""
    parts: tuple[Part, ...] = field(repr=False)
    """Text and images in the order the model should see them."""
    choices: tuple[str, ...] = ()
    """The item's choice letters (empty for open questions); baselines answer from these."""
    system: str | None = None
    """A system message, when the protocol has one."""
    generation: GenerationSettings = field(default_factory=GenerationSettings, repr=False)
    """The run's sampling settings, the same for every request of a run."""

    @property
    def images(self) -> tuple[ImageRef, ...]:
        """The image parts in prompt order, repeats kept."""
        return tuple(p.image for p in self.parts if isinstance(p, ImagePart))

    @property
    def text(self) -> str:
        """All text parts joined, with images shown as ``<image>``: the prompt a person reads."""
        return "".join(p.text if isinstance(p, TextPart) else "<image>" for p in self.parts)

    def __repr__(self) -> str:
        return f"Request({self.item_id!r}, {len(self.parts)} parts, {len(self.images)} images)"


#: The largest token count a Response holds: 2**53 - 1, the largest whole number every JSON reader
#: (a double, in a browser too) holds exactly, and far below any count a price multiplies into
#: an overflow. A server that reports more, or less than 0, reported no count.
MAX_COUNT = 2**53 - 1


def is_count(value: object) -> bool:
    """A token count: a whole number (not a bool) from 0 to ``MAX_COUNT``."""
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= MAX_COUNT


def is_seconds(value: object) -> bool:
    """A duration: a finite number of seconds >= 0 (JSON has no infinity; a NaN compares false)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value) and value >= 0


#: How a note marking a refusal starts. A refusal is an answer (status ``ok``, scored as the
#: official parser scores its text, so MMMU-Pro multiple choice gets the random fallback), and
#: the report and the doctor count it as its own cause. ``backends/openai_body.py`` writes it.
REFUSAL_NOTE = "refusal: "


def is_refusal(response: "Response") -> bool:
    """Whether the server refused to answer (``message.refusal``, or ``finish_reason: content_filter``)."""
    return any(note.startswith(REFUSAL_NOTE) for note in response.notes)


#: The note on a stored error whose request was never sent (it could not be built): ``prepare``
#: writes it, the usage summary counts such errors as sent to no one.
NOT_SENT = "not sent: the request could not be built"


@dataclass(frozen=True, slots=True)
class Response:
    """A backend's answer to one request, or the record of why there is none."""

    item_id: str
    """The item answered: the request's ``item_id``."""
    status: Status
    """``ok``; ``truncated`` (cut by the token limit; still scored); ``error`` (never scored)."""
    text: str = ""
    """The text that is parsed: the answer with any ``<think>`` block removed."""
    reasoning: str | None = None
    """Reasoning text the server returned separately or inside ``<think>``; None when none."""
    finish_reason: str | None = None
    """Why generation stopped, as the server or engine says: ``stop``, ``length`` (the token
    limit; status ``truncated``), ``content_filter`` ...; None when it says nothing."""
    prompt_tokens: int | None = None
    """Tokens of the prompt, images included, as the server reports them; None when it does not."""
    completion_tokens: int | None = None
    """Tokens generated, reasoning included, as the server reports them; None when it does not."""
    latency_s: float = 0.0
    """Seconds from the first attempt's start to the final answer."""
    attempts: int = 1
    """Requests sent for this answer, the first included (at most ``--max-attempts``)."""
    error: str | None = None
    """Why the item failed (status ``error``), or the last retried error; None otherwise."""
    notes: tuple[str, ...] = ()
    """Per-item remarks such as image down-scaling."""
    reasoning_tokens: int | None = None
    """Of ``completion_tokens``, those spent reasoning, where the server reports it; None otherwise."""

    @property
    def scorable(self) -> bool:
        """Whether the answer is scored: every status but ``error``."""
        return self.status != "error"


@dataclass(frozen=True, slots=True)
class Verdict:
    """The scorer's judgement of one response."""

    item_id: str
    """The item judged."""
    parser: str
    """Which parser judged it: ``official``, ``boxed``, ``strict`` ..."""
    pred: str | None
    """The parsed letter, or the open answer's first candidate; None when nothing was parsed."""
    correct: bool
    """Whether ``pred`` is the gold answer (False where the item has none: the test split)."""
    fallback: bool = False
    """True when the official random fallback chose ``pred``."""
    n_choices: int = 0
    """Number of options (0 for open), for the expected accuracy of fallbacks."""
