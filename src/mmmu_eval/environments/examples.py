"""Examples for trainers: each benchmark item as OpenAI chat messages, its gold answer and its facts.

Nothing here is a second prompt builder. An example's ``prompt`` is what ``mmmu-eval run
--prompt boxed --model openai:...`` sends for the item, byte for byte: the dataset stage loads
the item (hub at the pinned revision, a snapshot, or the bundled sample, through the same
``load_benchmark`` as ``run``), the prompt stage builds its Request (``build_request`` with the
boxed protocol), and its chat form (``prompt/messages.build_messages``, the messages the OpenAI
backend sends) turns that into chat messages with the stored image bytes as data URLs, every
image in token order.

    for example in examples("mmmu-pro", setting="vision", data="sample"):
        example["id"], example["answer"], example["info"]["options"]

Items that cannot be asked (a token naming a missing image, unreadable image bytes, a row
whose options cannot be read) are never raised out of the loop: each becomes a DataError that
names the item, handed to ``on_problem`` (default: a warning in the log), and the others go on.
"""

from __future__ import annotations

import json
import logging
import random
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, Union

from mmmu_eval.core.config import MMMU_SPLITS, PRO_SETTINGS
from mmmu_eval.dataset.load import Benchmark, load_benchmark
from mmmu_eval.core.errors import ConfigError, DataError
from mmmu_eval.core.renamed import renamed_keywords
from mmmu_eval.prompt.messages import build_messages
from mmmu_eval.prompt.protocol import EvalProtocol, build_request
from mmmu_eval.core.records import Item

__all__ = ["Example", "examples", "iter_examples", "item_from_info", "resolve_setting"]

log = logging.getLogger(__name__)

#: One example: ``id``, ``prompt`` (chat messages), ``answer`` and ``info`` (see ``to_example``).
Example = dict[str, Any]

#: The prompt mode of every example: the final answer in ``\boxed{}``.
PROMPT_MODE = "boxed"

#: MMMU-Pro's two modes, as the verifiers hub environment names them, and the setting each means.
PRO_MODES = {"standard": "standard-10", "vision": "vision"}


def resolve_setting(benchmark: str, setting: str | None = None, mode: str | None = None) -> str | None:
    """The MMMU-Pro setting that ``setting`` or ``mode`` names; None for MMMU.

    ``mode`` is the hub environment's argument (``standard`` means 10 options, ``vision`` the
    screenshot); ``setting`` is ours and wins when given, but may not contradict ``mode``.

    >>> resolve_setting("mmmu-pro", mode="vision"), resolve_setting("mmmu-pro", "standard-4")
    ('vision', 'standard-4')
    """
    if benchmark == "mmmu":
        if setting is not None or mode not in (None, "standard"):
            raise ConfigError("MMMU has no settings or modes (they are MMMU-Pro's); leave setting and mode unset")
        return None
    if benchmark != "mmmu-pro":
        raise ConfigError(f"benchmark {benchmark!r} is not one of mmmu, mmmu-pro")
    if mode is not None and mode not in PRO_MODES:
        raise ConfigError(f"mode {mode!r} is not one of {', '.join(PRO_MODES)}")
    if setting is None:
        return PRO_MODES[mode or "standard"]
    setting = PRO_MODES.get(setting, setting)  # "standard" as a setting means standard-10
    if setting not in PRO_SETTINGS:
        raise ConfigError(f"setting {setting!r} is not one of {', '.join(PRO_SETTINGS)}")
    if mode == "vision" and setting != "vision":
        raise ConfigError(f"mode 'vision' contradicts setting {setting!r}; give one of them")
    return setting


@renamed_keywords(seed="shuffle_seed")
def examples(
    benchmark: str,
    *,
    setting: str | None = None,
    mode: str | None = None,
    data: str | Path = "hub",
    subset: str | Sequence[str] | None = None,
    split: str | None = None,
    revision: str | None = None,
    shuffle_seed: int | None = None,
    limit: int | None = None,
    image_layout: str = "interleaved",
    max_image_pixels: int | None = None,
    on_problem: Callable[[DataError], None] | None = None,
) -> Iterator[Example]:
    """Yield each item of a benchmark as a training example, prompted as ``--prompt boxed``.

    Args:
        benchmark: ``mmmu-pro`` or ``mmmu``.
        setting: MMMU-Pro ``standard-10`` (default), ``standard-4`` or ``vision``.
        mode: MMMU-Pro ``standard`` or ``vision``, the hub environment's name for the setting.
        data: ``hub`` (at the pinned revision), ``sample`` (bundled), or a snapshot directory.
        subset: one subject or several (long or short names); None or ``all`` keeps all.
        split: MMMU ``dev`` or ``validation`` (default); MMMU-Pro has only ``test``.
        revision: hub revision; None means the pinned one.
        shuffle_seed: shuffle the items with ``random.Random(shuffle_seed)`` before ``limit``;
            None keeps the dataset's order.
        limit: keep the first N items (after the shuffle).
        image_layout: ``interleaved`` (default, as ``run``), ``images-first`` or ``text-then-images``.
        max_image_pixels: down-scale larger images, as ``run --max-image-pixels``; None never scales.
        on_problem: called with each item that cannot be asked; None logs a warning.

    Returns:
        An iterator of dicts: ``id``; ``prompt`` (OpenAI chat messages, images as data URLs);
        ``answer`` (the gold letter, or the gold text of an open question; when several answers
        are accepted, their JSON list as a string, so the column has one type and
        ``datasets.Dataset.from_list`` takes the rows: ``info["answers"]`` holds the list); ``info`` (id, benchmark, split, setting, subject, discipline,
        question_type, options, answers, img_type, topic_difficulty, subfield, notes).

    Raises:
        ConfigError: an unknown benchmark, setting, split or subject, or a bad ``data``.

    Examples:
        >>> first = next(examples("mmmu", split="dev", data="sample"))
        >>> first["prompt"][0]["content"][0]["type"], first["answer"]
        ('image_url', '140')
    """
    report = on_problem or _log_problem
    for example in iter_examples(
        benchmark, setting=setting, mode=mode, data=data, subset=subset, split=split, revision=revision,
        shuffle_seed=shuffle_seed, limit=limit, image_layout=image_layout, max_image_pixels=max_image_pixels,
    ):
        if isinstance(example, DataError):
            report(example)
        else:
            yield example


def iter_examples(
    benchmark: str,
    *,
    shuffle_seed: int | None = None,
    limit: int | None = None,
    image_layout: str = "interleaved",
    max_image_pixels: int | None = None,
    **selection: Any,
) -> Iterator[Union[Example, DataError]]:
    """As ``examples``, but each item that cannot be asked is yielded as its DataError.

    ``selection`` is ``examples``' setting, mode, data, subset, split and revision.

    Rows the dataset could not read at all come first (they have no place in the order),
    then the selected items in order, each an example or the error that stopped it. An
    adapter that records failures (the verifiers taskset) keeps every one as a task.
    """
    dataset = _load(benchmark, **selection)
    protocol = EvalProtocol(dataset.benchmark, dataset.setting, PROMPT_MODE, image_layout=image_layout)
    yield from dataset.problems
    items = list(dataset.items)
    if shuffle_seed is not None:
        random.Random(shuffle_seed).shuffle(items)
    if limit is not None:
        if limit < 1:
            raise ConfigError(f"limit {limit} must be at least 1")
        items = items[:limit]
    for item in items:
        try:
            yield to_example(item, protocol, max_image_pixels=max_image_pixels)
        except DataError as exc:
            yield exc if exc.item_id else DataError(str(exc), item.id)
        except (ValueError, OSError) as exc:  # unreadable image bytes, as the API backend reports them
            yield DataError(f"the request cannot be built: {exc}", item.id)


def to_example(item: Item, protocol: EvalProtocol, *, max_image_pixels: int | None = None) -> Example:
    """One item as an example: the backend's chat messages for its boxed request, gold, facts.

    Raises:
        DataError: the request cannot be built (a token naming a missing image) or an image
            cannot be read.
    """
    request = build_request(item, protocol)
    messages, notes = build_messages(request, max_image_pixels)
    answers = [] if item.answer is None else [item.answer] if isinstance(item.answer, str) else list(item.answer)
    info = {
        "id": item.id,
        "benchmark": item.benchmark,
        "split": item.split,
        "setting": item.setting,
        "subject": item.subject,
        "discipline": item.discipline,
        "question_type": item.question_type,
        "options": list(item.options),
        "answers": answers,
        "img_type": list(item.img_type),
        "topic_difficulty": item.topic_difficulty,
        "subfield": item.subfield,
        "notes": [*item.notes, *notes],
    }
    return {"id": item.id, "prompt": messages, "answer": answer_text(answers), "info": info}


def answer_text(answers: Sequence[str]) -> str | None:
    """An example's ``answer``: the one accepted answer, or the JSON list of several.

    One type per column (a string, or None without a gold) is what Arrow and so
    ``datasets.Dataset.from_list``, TRL and verifiers take; the list stays in ``info["answers"]``.

    >>> answer_text(["B"]), answer_text(["Paris", "paris, france"]), answer_text([])
    ('B', '["Paris", "paris, france"]', None)
    """
    if not answers:
        return None
    return answers[0] if len(answers) == 1 else json.dumps(list(answers), ensure_ascii=False)


def item_from_info(info: dict[str, Any]) -> Item:
    """The Item an example's ``info`` describes, with what scoring needs (no question, no images).

    Raises:
        DataError: ``info`` lacks a field scoring needs (it was not made by ``examples``).
    """
    try:
        answers = list(info["answers"])
        return Item(
            id=str(info["id"]),
            benchmark=info["benchmark"],
            split=info["split"],
            setting=info["setting"],
            subject=info["subject"],
            discipline=info.get("discipline") or "",
            question="",
            options=tuple(info["options"]),
            answer=(answers[0] if len(answers) == 1 else tuple(answers)) if answers else None,
            question_type=info["question_type"],
            images=(),
        )
    except (KeyError, TypeError) as exc:
        raise DataError(f"the example's info lacks {exc} (make examples with mmmu_eval.environments.examples)",
                        info.get("id") if isinstance(info, dict) else None) from None


def _load(
    benchmark: str, *, setting: str | None = None, mode: str | None = None, data: str | Path = "hub",
    subset: str | Sequence[str] | None = None, split: str | None = None, revision: str | None = None,
) -> Benchmark:
    resolved = resolve_setting(benchmark, setting, mode)
    if benchmark == "mmmu":
        split = split or "validation"
        if split == "test":
            raise ConfigError("split 'test': MMMU's test answers are withheld, so there is no reward; use dev or validation")
        if split not in MMMU_SPLITS:
            raise ConfigError(f"split {split!r} is not one of dev, validation")
    elif split not in (None, "test"):
        raise ConfigError(f"split {split!r}: MMMU-Pro has only the test split")
    subjects = None if subset in (None, "all") else [subset] if isinstance(subset, str) else list(subset)
    return load_benchmark(
        benchmark, split=split if benchmark == "mmmu" else None, setting=resolved,
        data=data, revision=revision, subjects=subjects,
    )


def _log_problem(problem: DataError) -> None:
    log.warning("%s; the item is left out of the examples", problem)
