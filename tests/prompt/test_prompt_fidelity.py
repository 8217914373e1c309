"""MMMU-Pro prompts and image binding over the real 1730 question texts of the official outputs.

The GPT-4o output files in ``../shared/fidelity/mmmu-pro/`` carry every MMMU-Pro question and
its options (no images). The counts checked here are the data facts of official-protocol.md
section 6.1, reached through ``build_request``: if binding or token matching drifts, they move.
"""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest
from fakes import required

from mmmu_eval.prompt import EvalProtocol, build_request, prompt_text
from mmmu_eval.prompt.layout import TOKEN, token_numbers
from mmmu_eval.core.records import ImageRef, Item

FIDELITY = Path(__file__).resolve().parents[2].parent / "shared" / "fidelity" / "mmmu-pro"
STANDARD_10 = FIDELITY / "gpt-4o_standard(10 options)_direct.jsonl"
VISION = FIDELITY / "gpt-4o_vision_direct.jsonl"

DIRECT_STANDARD = "Answer with the option letter from the given choices directly."


def real_items(path: Path, setting: str) -> list[Item]:
    items = []
    for line in path.read_text().splitlines():
        row = json.loads(line)
        options = ast.literal_eval(row["options"]) if row.get("options") else []
        if options and isinstance(options[0], list):  # validation_Accounting_29's nested options
            options = options[0]
        if setting == "vision":
            images = (ImageRef.from_bytes("image", b"png"),)
        else:
            top = max(token_numbers("\n".join([row["question"], *map(str, options)])), default=1)
            images = tuple(ImageRef.from_bytes(f"image_{n}", b"png") for n in range(1, top + 1))
        items.append(Item(
            id=row["id"], benchmark="mmmu-pro", split="test", setting=setting, subject=row["subject"],
            discipline="", question=row.get("question", ""), options=tuple(map(str, options)),
            answer=row["answer"], question_type="multiple-choice", images=images,
        ))
    return items


@pytest.fixture(scope="module")
def standard_items() -> list[Item]:
    return real_items(required.path(STANDARD_10, "the prompt parity tests need the shared fidelity data"), "standard-10")


def test_real_standard_prompts_follow_the_official_frame(standard_items):
    protocol = EvalProtocol("mmmu-pro", "standard-10", "direct")
    assert len(standard_items) == 1730
    for item in standard_items:
        text = prompt_text(item, protocol)
        assert TOKEN.search(text) is None, item.id
        lines = "\n".join(f"{chr(65 + i)}. {o}" for i, o in enumerate(item.options))
        assert text == TOKEN.sub("<image>", f"{item.question}\n{lines}\n") + DIRECT_STANDARD, item.id


def test_real_image_order_matches_the_documented_data_facts(standard_items):
    """Section 6.1: 61 items out of numeric order, 4 repeating a token, 51 with none in the question, max 7."""
    protocol = EvalProtocol("mmmu-pro", "standard-10", "direct", image_layout="text-then-images")
    out_of_order = repeats = max_index = 0
    for item in standard_items:
        numbers = [ref.number for ref in build_request(item, protocol).images]
        referenced = token_numbers("\n".join((item.question, *item.options)))
        assert numbers == referenced, item.id  # exactly the tokens' images: nothing appended
        out_of_order += referenced != sorted(referenced)
        repeats += len(referenced) != len(set(referenced))
        max_index = max([max_index, *referenced])
    no_token_in_question = sum(not token_numbers(item.question) for item in standard_items)
    assert (out_of_order, repeats, no_token_in_question, max_index) == (61, 4, 51, 7)


def test_the_twelve_option_item_gets_letters_to_l(standard_items):
    item = next(i for i in standard_items if i.id == "test_Computer_Science_61")
    text = prompt_text(item, EvalProtocol("mmmu-pro", "standard-10", "direct"))
    assert len(item.options) == 12 and item.choices[-1] == "L"
    assert f"\nL. {item.options[11]}\n{DIRECT_STANDARD}" in text


def test_real_vision_prompts_are_the_instruction_and_one_image():
    protocol = EvalProtocol("mmmu-pro", "vision", "direct")
    for item in real_items(required.path(VISION, "the prompt parity tests need the shared fidelity data"), "vision"):
        request = build_request(item, protocol)
        assert request.text == prompt_text(item, protocol) + "<image>"
        assert len(request.images) == 1
