"""What the hf backend does for a chat template that would lose the prompt's text, or read it as
image slots (tiny LLaVA models, no torchvision, transformers 4.x and 5.x).

- An older pixtral-12b template reads text parts only from ``"content"``: given the ``"text"``
  key alone the model sees ``<s>[INST][IMG][IMG][/INST]``. The backend sends ``"content"`` too
  for such a template, and stops a run whose template drops the text all the same.
- llava-hf's image token is ``<image>``, the marker MMMU-Pro's standard prompt writes where each
  image was: through ``text-only:hf:`` every such question failed ("Found N ``<image>`` tokens
  in the text but no images were passed"). The text now reads ``[image]``, and says so.
"""

import json

import pytest
from fakes.tiny_models import build_tiny_llava, mmmu_like_requests

from mmmu_eval.backends.baselines import TextOnlyBackend
from mmmu_eval.backends.hf_transformers import HFBackend
from mmmu_eval.cli.main import main
from mmmu_eval.core.errors import ConfigError
from mmmu_eval.core.records import Request, TextPart
from mmmu_eval.store.rundir import RunStore

pytestmark = [pytest.mark.hf, pytest.mark.usefixtures("hf_extra")]


@pytest.fixture(scope="module")
def content_only(tmp_path_factory):
    """A tiny model whose template is the older pixtral-12b one (text read from "content" only)."""
    return build_tiny_llava(tmp_path_factory.mktemp("pixtral-old"), image_token="[IMG]", template="pixtral-12b-content-only")


@pytest.fixture(scope="module")
def llava(tmp_path_factory):
    """A tiny LLaVA with llava-hf's real image token, ``<image>``."""
    return build_tiny_llava(tmp_path_factory.mktemp("llava"), initializer_range=0.3)


async def _answers(backend, requests):
    await backend.preflight(requests)
    try:
        return {r.item_id: r async for r in backend.generate(requests)}
    finally:
        await backend.aclose()


async def test_a_template_reading_text_from_content_gets_the_question(content_only):
    requests = mmmu_like_requests(3)
    backend = HFBackend(str(content_only), batch_size=2)
    for request in requests:
        rendered = backend.render(request)
        assert rendered.startswith("<s>[INST]") and rendered.endswith("[/INST]")
        for part in request.parts:
            if isinstance(part, TextPart):
                assert part.text in rendered, (request.item_id, rendered)
    assert await backend.effective_layout(requests, "interleaved") == "interleaved"
    assert backend.describe()["text_part_keys"] == ["text", "content"]  # the manifest says so
    answered = await _answers(backend, requests)
    assert all(r.status in ("ok", "truncated") for r in answered.values())


async def test_a_template_that_still_drops_the_text_stops_the_run_naming_item_model_and_text(tmp_path):
    """A template that reads text parts from a key nobody sends (here ``"value"``) renders the
    images alone: the run stops before anything is asked."""
    model_dir = build_tiny_llava(tmp_path / "m", image_token="[IMG]", template="pixtral-12b-content-only")
    config = json.loads((model_dir / "chat_template.json").read_text()) if (model_dir / "chat_template.json").exists() else None
    jinja = model_dir / "chat_template.jinja"
    text = jinja.read_text() if jinja.exists() else config["chat_template"]
    text = text.replace('chunk["content"]', 'chunk["value"]')
    if jinja.exists():
        jinja.write_text(text)
    else:
        (model_dir / "chat_template.json").write_text(json.dumps({"chat_template": text}))
    requests = mmmu_like_requests(2)
    backend = HFBackend(str(model_dir))
    with pytest.raises(ConfigError) as caught:
        await backend.preflight(requests)
    await backend.aclose()
    message = str(caught.value)
    first = requests[0]
    assert f"the chat template of {model_dir} drops" in message and f"({first.item_id})" in message
    assert "the model would see only its images" in message
    assert repr(first.parts[0].text.strip()[:40])[:30] in message


async def test_text_only_llava_reads_the_image_marker_as_text_not_as_an_image_slot(llava):
    question = Request("validation_Art_1", (TextPart("According to <image>, which item costs 50?\nA. tea\nB. cake\nAnswer:"),))
    backend = TextOnlyBackend(HFBackend(str(llava)))
    answered = await _answers(backend, [question])
    response = answered["validation_Art_1"]
    assert response.status in ("ok", "truncated"), response.error
    assert any("<image> written [image]" in note for note in response.notes)
    assert "According to [image], which item" in HFBackend(str(llava)).render(question)


def test_a_text_only_mmmu_pro_run_of_llava_answers_every_item(llava, tmp_path, capsys):
    """MMMU-Pro's standard prompt with the images after the text keeps an ``<image>`` marker in
    the text for each image; through ``text-only:hf:`` llava-hf's processor read them as slots."""
    out = tmp_path / "run"
    status = main(["run", "--model", f"text-only:hf:{llava}", "--data", "sample", "--benchmark", "mmmu-pro",
                   "--setting", "standard-4", "--image-layout", "text-then-images", "--limit", "4", "--max-tokens", "2",
                   "--device", "cpu", "--out", str(out), "--no-html"])
    assert status == 0, capsys.readouterr().err
    responses = RunStore.read(out).responses()
    assert len(responses) == 4
    assert all(r.status in ("ok", "truncated") for r in responses.values()), [r.error for r in responses.values()]
    assert any(any("[image]" in note for note in r.notes) for r in responses.values())
    assert RunStore.read(out).manifest()["backend"]["inner"]["placeholders_in_text_written"]["<image>"] == "[image]"


async def test_a_default_system_message_with_todays_date_is_recorded_and_shown(tmp_path, capsys, llava):
    """Mistral-Small-3.1's template writes a default system message carrying today's date: the
    manifest records that text once, and data show prints it; llava-hf's template adds nothing."""
    import datetime

    model_dir = build_tiny_llava(tmp_path / "mistral", image_token="[IMG]", template="mistral-small-3.1")
    requests = mmmu_like_requests(2)
    backend = HFBackend(str(model_dir))
    await backend.preflight(requests)
    described = backend.describe()
    await backend.aclose()
    today = datetime.datetime.now().strftime("%Y-%m-%d")
    # the tiny model's LLaVA tokenizer lacks Mistral's control tokens ([SYSTEM_PROMPT]...), so they
    # stay in the recorded stretch here; the real checkpoint's tokenizer names them as special
    [added] = described["template_adds"]
    assert "You are Mistral Small 3" in added and f"The current date is {today}." in added
    assert "strftime_now" in described["template_writes_date"]
    plain = HFBackend(str(llava))
    await plain.preflight(requests)
    assert "template_adds" not in plain.describe() and "template_writes_date" not in plain.describe()
    await plain.aclose()

    assert main(["data", "show", "dev_Accounting_2", "--data", "sample", "--model", f"hf:{model_dir}"]) == 0
    shown = capsys.readouterr().out
    assert "the template adds, not ours: '[SYSTEM_PROMPT]You are Mistral Small 3" in shown and f"The current date is {today}." in shown
    assert "the template writes today's date (strftime_now)" in shown


def test_harden_filter_trials_of_llava_are_answered(llava, tmp_path, capsys):
    """harden's text-only trials keep an ``<image>`` marker where each image was: every trial of a
    question with an image failed on llava-hf's token, and the filter decided nothing."""
    out = tmp_path / "hardened"
    status = main(["harden", "filter", "--data", "sample", "--limit", "3", "--models", f"hf:{llava}", "--trials", "1",
                   "--temperature", "0", "--max-tokens", "2", "--per-subject", "0", "--out", str(out)])
    assert status == 0, capsys.readouterr().err[-3000:]
    trials = sorted((out / "runs" / "filter").glob("*/trial-*"))
    assert trials
    responses = [r for trial in trials for r in RunStore.read(trial).responses().values()]
    assert len(responses) == 3 and all(r.status in ("ok", "truncated") for r in responses), [r.error for r in responses]
    assert any(any("<image> written [image]" in note for note in r.notes) for r in responses)
