"""plan_run and ``run --dry-run``: what a run would send, counted without any backend."""

from __future__ import annotations

import json
import math

import pytest
from fakes.fault_server import FaultServer
from fakes.parquet_rows import image_cell, mmmu_row, png, write_mmmu

from mmmu_eval.backends.openai_api import OpenAIBackend
from mmmu_eval.run.pipeline import evaluate, plan_run
from mmmu_eval.cli.main import main
from mmmu_eval.core.config import RunConfig
from mmmu_eval.core.errors import ConfigError
from mmmu_eval.run.dry_run import CHARS_PER_TOKEN
from mmmu_eval.prompt import EvalProtocol, build_request
from mmmu_eval.dataset.load import load_benchmark
from mmmu_eval.core.records import ImagePart, TextPart

BIG, SMALL = png(size=(40, 30)), png((0, 0, 200), size=(8, 6))


@pytest.fixture
def snapshot(tmp_path):
    """Three rows: one repeating a token, one with a loose image, one whose token has no image."""
    root = tmp_path / "snap"
    write_mmmu(root, "Art", "validation", [
        mmmu_row("validation_Art_1", question="Is <image 1> like <image 1>? ünïcode", image_1=image_cell(BIG, "a.png")),
        mmmu_row("validation_Art_2", question="Only <image 1>.", image_1=image_cell(SMALL, "b.png"),
                 image_2=image_cell(BIG, "c.png")),
        mmmu_row("validation_Art_3", question="See <image 4>."),
    ])
    return root


def test_the_plan_counts_what_the_run_would_send(snapshot, tmp_path):
    config = RunConfig(model="openai:m", data=str(snapshot), subjects=("Art",), out=tmp_path / "run",
                       system_prompt="Be brief.", price_input=2.0)
    plan = plan_run(config)
    # Independently: build the requests the same stage builds, and count them by hand.
    items = load_benchmark("mmmu", data=str(snapshot), subjects=["Art"]).items
    protocol = EvalProtocol.from_config(config)
    requests = [build_request(it, protocol) for it in items[:2]]
    texts = [[p.text for p in r.parts if isinstance(p, TextPart)] + ["Be brief."] for r in requests]
    images = [p.image.load() for r in requests for p in r.parts if isinstance(p, ImagePart)]
    assert images == [BIG, BIG, SMALL]  # the repeat counts twice; the loose image_2 is not sent
    assert (plan.items, plan.requests, plan.images) == (3, 2, 3)
    assert plan.text_chars == sum(len(t) for ts in texts for t in ts)
    assert plan.text_bytes == sum(len(t.encode()) for ts in texts for t in ts) > plan.text_chars
    assert plan.image_bytes == len(BIG) * 2 + len(SMALL)
    assert plan.request_bytes == plan.text_bytes + plan.image_bytes
    assert plan.image_pixels == 2 * 40 * 30 + 8 * 6
    assert plan.estimated_prompt_tokens == sum(math.ceil(sum(len(t) for t in ts) / CHARS_PER_TOKEN) for ts in texts)
    # Bytes as sent: the JSON bodies the backend encodes (images in base64), and one probe per endpoint.
    backend = OpenAIBackend("m", base_urls=["http://127.0.0.1:9/v1"], api_key="k")
    assert plan.wire_bytes == sum(len(backend.encode_body(r)[0]) for r in requests) > 4 / 3 * plan.image_bytes
    assert (plan.preflight_probes, plan.preflight_images) == (1, 2)  # Art_1 shows its image twice
    assert plan.sent_bytes == plan.wire_bytes + plan.preflight_bytes and plan.preflight_bytes > 0
    assert plan.preflight_tokens == math.ceil(len("Reply with one letter.") / CHARS_PER_TOKEN)
    assert plan.estimated_input_usd == pytest.approx((plan.estimated_prompt_tokens + plan.preflight_tokens) * 2.0 / 1e6)
    assert plan.failures == (("validation_Art_3", "the question refers to <image 4> but the item has 1 image"),)
    # Art_3's image_1 has no token either (a data fact, named even though its request fails).
    assert plan.loose_image_ids == ("validation_Art_2", "validation_Art_3") and not plan.loose_images_sent
    assert plan.fingerprint == protocol.fingerprint() and plan.refusal is None
    assert not (tmp_path / "run").exists()
    lines = "\n".join(plan.lines())
    assert "failure      validation_Art_3: the question refers to <image 4>" in lines
    assert "2 item(s) have images no token refers to, not sent (official rule): validation_Art_2, validation_Art_3" in lines
    assert json.loads(json.dumps(plan.to_json()))["failures"] == [
        {"id": "validation_Art_3", "reason": "the question refers to <image 4> but the item has 1 image"}]


def test_each_endpoint_gets_a_probe_and_a_local_backend_sends_no_http(snapshot, tmp_path):
    base = dict(data=str(snapshot), subjects=("Art",), out=tmp_path / "run")
    two = plan_run(RunConfig(model="openai:m", base_urls=("http://127.0.0.1:9/v1", "http://127.0.0.1:10/v1"), **base))
    assert two.preflight_probes == 2 and two.preflight_bytes == 2 * plan_run(RunConfig(model="openai:m", **base)).preflight_bytes
    local = plan_run(RunConfig(model="random", **base))
    assert (local.wire_bytes, local.sent_bytes, local.preflight_probes) == (None, None, 0)
    assert "this backend sends nothing over HTTP" in "\n".join(local.lines())


def test_append_and_text_only_change_the_plan_as_they_change_the_run(snapshot, tmp_path):
    base = dict(data=str(snapshot), subjects=("Art",), out=tmp_path / "run")
    assert plan_run(RunConfig(model="openai:m", unreferenced_images="append", **base)).images == 4  # + Art_2's image_2
    withheld = plan_run(RunConfig(model="text-only:openai:m", **base))
    assert (withheld.images, withheld.image_bytes, withheld.images_withheld) == (0, 0, True)


def test_a_resumed_run_plans_only_what_is_left(snapshot, tmp_path):
    config = RunConfig(model="random", data=str(snapshot), subjects=("Art",), out=tmp_path / "run", html=False)
    evaluate(config)
    plan = plan_run(RunConfig(model="random", data=str(snapshot), subjects=("Art",), out=tmp_path / "run", resume=True))
    assert (plan.already_answered, plan.requests, plan.refusal) == (2, 0, None)
    changed = plan_run(RunConfig(model="random", data=str(snapshot), subjects=("Art",), out=tmp_path / "run",
                                 resume=True, prompt="cot"))
    assert changed.refusal is not None and "was run under protocol" in changed.refusal


def test_an_unknown_model_spec_is_refused_as_a_run_would(snapshot):
    with pytest.raises(ConfigError, match="unknown model spec 'opena:m'"):
        plan_run(RunConfig(model="opena:m", data=str(snapshot)))


def test_dry_run_against_a_server_that_fails_every_request_leaves_it_untouched(snapshot, tmp_path, capsys):
    out = tmp_path / "run"
    with FaultServer(fault_rate=1.0, max_faults=100, faults=("500",)) as server:
        rc = main(["run", "--model", "openai:fake-model", "--base-url", server.url, "--data", str(snapshot),
                   "--subjects", "Art", "--out", str(out), "--dry-run"])
        served = sum(server.attempts.values()), sum(server.stats.values())
    assert rc == 0
    assert served == (0, 0), "a dry run sent a request"
    assert not out.exists()
    printed = capsys.readouterr().out
    assert printed.startswith("dry run: nothing is sent and nothing is written")
    assert "requests     2" in printed and "images       3" in printed


def test_dry_run_json_prints_the_plan(snapshot, tmp_path, capsys):
    rc = main(["run", "--model", "random", "--data", str(snapshot), "--subjects", "Art", "--out", str(tmp_path / "r"),
               "--dry-run", "--json"])
    plan = json.loads(capsys.readouterr().out)
    assert rc == 0 and plan["requests"] == 2 and plan["run_dir"] == str(tmp_path / "r")
    assert "ceil(characters / 4)" in plan["token_rule"]


def test_json_without_dry_run_is_refused(capsys):
    assert main(["run", "--model", "random", "--data", "sample", "--json"]) == 2
    assert "--json applies to --dry-run only" in capsys.readouterr().err


def test_the_dry_run_folds_its_lines_to_the_terminal_and_keeps_every_figure(tmp_path, capsys, monkeypatch):
    from fakes.widths import figures

    printed = {}
    for width in (80, 200):
        monkeypatch.setenv("COLUMNS", str(width))
        assert main(["run", "--benchmark", "mmmu-pro", "--setting", "vision", "--data", "sample", "--model",
                     "openai:m", "--base-url", "http://127.0.0.1:9/v1", "--price-input", "2.5", "--dry-run",
                     "--out", str(tmp_path / "r")]) == 0
        printed[width] = capsys.readouterr().out
    narrow = printed[80].splitlines()
    assert all(len(line) <= 80 or " " not in line.strip() for line in narrow), [l for l in narrow if len(l) > 80]
    assert any(line.startswith(" " * 13) for line in narrow)  # a folded line continues under its value
    assert figures(printed[80]) == figures(printed[200])
    assert " ".join(printed[80].split()) == " ".join(printed[200].split())


def test_a_finished_run_plans_no_probe_and_a_resumed_one_probes_with_what_is_left(snapshot, tmp_path):
    """The dry run counts the preflight by the rule evaluate sends it by (resume.preflight_needed)."""
    out = tmp_path / "run"
    with FaultServer(model="fake-model") as server:
        config = dict(model="openai:fake-model", base_urls=(server.url,), data=str(snapshot), subjects=("Art",),
                      out=out, html=False)
        evaluate(RunConfig(**config, ids=("validation_Art_1",)))
        part = plan_run(RunConfig(**config, resume=True))
        evaluate(RunConfig(**config, resume=True))
        sent_before = sum(server.attempts.values())
        done = plan_run(RunConfig(**config, resume=True))
        assert sum(server.attempts.values()) == sent_before, "a dry run sent a request"
    # Art_1 (its image twice) answered: the probe carries the widest request left, Art_2's one image.
    assert (part.already_answered, part.requests, part.preflight_probes, part.preflight_images) == (1, 1, 1, 1)
    assert (done.already_answered, done.requests, done.preflight_probes, done.preflight_bytes) == (2, 0, 0, 0)
    assert done.sent_bytes == 0
