"""``suite --dry-run``: each run's plan and the totals, with no backend created or called."""

from __future__ import annotations

import json

from fakes.fault_server import FaultServer
from mmmu_eval.cli.main import main
from mmmu_eval.suite.suite_config import plan_suite, plan_totals


def test_a_dry_run_touches_no_server_writes_nothing_and_sums_the_plans(tmp_path, capsys):
    out = tmp_path / "suite"
    with FaultServer(fault_rate=0.0) as server:
        server.break_down()  # every chat request would fail: none may be sent
        argv = ["suite", "--model", "openai:fake-model", "--base-url", server.url, "--data", "sample", "--ocr",
                "--price-input", "2", "--out", str(out), "--dry-run", "--json"]
        assert main(argv) == 0
        assert sum(server.stats.values()) == 0 and not server.attempts
    assert not out.exists()
    printed = json.loads(capsys.readouterr().out)
    runs = printed["runs"]
    assert [r["run_dir"] for r in runs] == [str(out / n) for n in (
        "standard-4-direct", "standard-4-cot", "standard-10-direct", "standard-10-cot",
        "vision-direct", "vision-cot", "vision-ocr", "mmmu-validation-direct")]
    totals = printed["totals"]
    assert totals["requests"] == 7 * 24 + 40 == sum(r["requests"] for r in runs)
    assert totals["estimated_prompt_tokens"] == sum(r["estimated_prompt_tokens"] for r in runs)
    assert totals["estimated_input_usd"] == sum(r["estimated_input_usd"] for r in runs)
    assert totals["refused"] == []


def test_a_dry_run_of_a_suite_part_done_counts_only_what_is_left(tmp_path):
    from mmmu_eval.suite.execute import evaluate_suite

    from .conftest import quiet

    out = tmp_path / "suite"
    evaluate_suite(model="random", data="sample", settings="vision", prompts="direct", mmmu=False, out=out,
                   display=quiet(), bootstrap=20)
    plans = plan_suite(model="random", data="sample", settings="vision", mmmu=False, out=out)
    totals = plan_totals(plans)
    assert [p.already_answered for p in plans] == [24, 0] and totals["requests"] == 24


def test_the_dry_run_counts_to_the_byte_what_the_server_then_receives(tmp_path, capsys):
    """On the sample suite (8 runs, OCR included) the dry run's bytes are the bytes the server reads.

    The server counts the Content-Length of every chat request it receives, preflight probes
    included; without faults each request goes out once, so the two totals must be equal.
    """
    from mmmu_eval.suite.execute import evaluate_suite

    from .conftest import quiet

    out = tmp_path / "suite"
    with FaultServer(fault_rate=0.0) as server:
        argv = ["suite", "--model", "openai:fake-model", "--base-url", server.url, "--data", "sample", "--ocr",
                "--out", str(out), "--dry-run", "--json"]
        assert main(argv) == 0
        totals = json.loads(capsys.readouterr().out)["totals"]
        assert server.chat_bytes == 0
        evaluate_suite(model="openai:fake-model", base_urls=(server.url,), data="sample", ocr=True, out=out,
                       display=quiet(), bootstrap=20)
        received, posts = server.chat_bytes, sum(server.stats.values())
    assert totals["preflight_probes"] == 8 and posts == totals["requests"] + totals["preflight_probes"] == 216
    assert received == totals["sent_bytes"] == totals["wire_bytes"] + totals["preflight_bytes"]
    # The suite's usage counts the same probes, and their tokens are in its totals.
    usage = json.loads((out / "suite.json").read_text())["usage"]
    assert usage["preflight"]["probes"] == 8 and usage["preflight"]["bytes"] == totals["preflight_bytes"]
    assert usage["completion_tokens"] == 6 * (totals["requests"] + 8)  # the fake server reports 6 per answer
    # The raw payload is what base64 and JSON make a third larger: the old figure was not what went out.
    assert totals["sent_bytes"] > 1.3 * totals["image_bytes"]
