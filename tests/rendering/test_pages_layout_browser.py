"""Every page the project writes, in headless Chromium at 1024 and 1400 px: nothing sticks out.

The pages: a run's report.html (an MMMU validation run of the sample, the same run with many
image types, whose breakdown once spilled past its card, and a rescored harness output with its
"Beside the harness" section), the suite's report.html, harden's
report.html and its review.html, and the audit's page (``mmmu-eval audit --html``) of the official
paper-era MMMU-Pro outputs (long questions and options, where ../shared/fidelity is present). For each width every visible element's content must fit its
box (``scrollWidth`` against ``clientWidth``: nothing wider than its container, no text
clipped), and the page must raise no script error or console error. A screenshot of
each page at each width (its top 12,000 px: ``fakes.page_layout.SHOT_HEIGHT``) is written to ``test-artifacts/pages/`` (git-ignored; see CONTRIBUTING.md)
for a person to look at after ``make test``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fakes.browser import NEEDS_CHROMIUM, headless_chromium
from fakes.page_layout import WIDTHS, check_page

pytestmark = NEEDS_CHROMIUM

#: The official repository's paper-era MMMU-Pro outputs (../shared/fidelity/README.md).
FIDELITY_2024 = Path(__file__).resolve().parents[2].parent / "shared" / "fidelity" / "mmmu-pro-2024"

#: Image types as the MMMU data writes them, several per item: long keys a breakdown must wrap.
IMG_TYPES = ["['Diagrams']", "['Tables']", "['Plots and Charts']", "['Chemical Structures']", "['Photographs']",
             "['Paintings']", "['Geometric Shapes']", "['Sheet Music']", "['Medical Images']",
             "['Pathological Images']", "['Microscopic Images']", "['MRI, CT scans, and X-rays']",
             "['Sketches and Drafts']", "['Maps']", "['Technical Blueprints']", "['Trees and Graphs']",
             "['Mathematical Notations']", "['Comics and Cartoons']", "['Sculpture']", "['Portraits']",
             "['Screenshots']", "['Other']", "['Poster']", "['Icons and Symbols']", "['Historical Timelines']",
             "['3D Renderings']", "['DNA Sequences']", "['Landscapes']", "['Logos and Branding']",
             "['Advertisements']", "['Diagrams', 'Tables', 'Plots and Charts', 'Chemical_Structures_and_Reactions']"]


@pytest.fixture(scope="module")
def pages(tmp_path_factory):
    """(name, path, selector that says the page's script ran) for every page, made before the browser starts."""
    from fakes.fault_server import FaultServer
    from fakes.mc_set import Proposer, write_jsonl_set
    from mmmu_eval import evaluate
    from mmmu_eval.cli.main import main
    from mmmu_eval.harden import AugmentSettings, harden_augment
    from mmmu_eval.run.progress import NullDisplay
    from mmmu_eval.rendering.run_page import render_html
    from mmmu_eval.results.finished_run import read_run, prompts_for
    from mmmu_eval.suite.execute import evaluate_suite
    from suite.conftest import quiet

    root = tmp_path_factory.mktemp("pages")
    run = root / "run"
    evaluate(model="random", benchmark="mmmu", split="validation", data="sample", out=str(run), display=NullDisplay())
    loaded = read_run(run, details=True)
    results = dict(loaded.results)
    row = next(iter(results["by_img_type"].values()))
    results["by_img_type"] = {k: dict(row, n=100 + i, correct=37 + i) for i, k in enumerate(IMG_TYPES)}
    results["run"] = dict(results["run"], model="openai:Qwen/Qwen2.5-VL-72B-Instruct-AWQ-served-by-vllm-0.6.3")
    many = root / "many-img-types.html"
    many.write_text(render_html(results, loaded.items, loaded.responses, loaded.scoring, loaded.manifest,
                                prompts=prompts_for(loaded.items, loaded.manifest)), encoding="utf-8")
    answers = root / "answers.jsonl"  # another harness's output, rescored: the report gains "Beside the harness"
    answers.write_text("".join(json.dumps({"id": it.id, "response": "The answer is (A).", "correct": i % 2 == 0})
                               + "\n" for i, it in enumerate(loaded.items)), encoding="utf-8")
    assert main(["rescore", str(answers), "--benchmark", "mmmu", "--split", "validation", "--data", "sample",
                 "--out", str(root / "rescored")]) == 0
    suite = root / "suite"
    evaluate_suite(model="random", data="sample", out=str(suite), ocr=True, display=quiet(), bootstrap=100)
    assert main(["harden", "filter", "--data", "sample", "--out", str(root / "filtered"), "--models",
                 "frequent,random,random", "--trials", "2"]) == 0
    data = write_jsonl_set(root / "set", [
        {"id": "test_Art_1", "question": "apple: which colour? <image 1>", "options": ["red", "green", "blue", "grey"],
         "answer": "B", "image_1": "auto"},
        {"id": "test_Art_2", "question": "pear " + "a-very-long-unbroken-option-text-" * 6, "options": ["a", "b", "c", "d"],
         "answer": "A"},
    ])
    with FaultServer(fault_rate=0.0, answer=Proposer({})) as server:
        harden_augment(data, root / "hard", AugmentSettings(model="openai:fake-model", base_urls=[server.url]))
    audit_page = root / "audit.html"
    pro_2024 = sorted(p for p in FIDELITY_2024.glob("*.jsonl") if "gpt-4o" in p.name or "gemini" in p.name
                      or "InternVL2-40B" in p.name)
    # Without the paper-era files, the audit of the sample run and its rescored twin (still a real page).
    inputs = [str(p) for p in pro_2024] or [str(run), str(root / "rescored")]
    assert main(["audit", *inputs, "--html", str(audit_page), "--top", "0"]) == 0
    return [
        ("audit-page", audit_page, "section.card, h1"),
        ("run-report", run / "report.html", "#items article.item"),
        ("run-report-many-img-types", many, "#items article.item"),
        ("rescored-run-report", root / "rescored" / "report.html", "#items article.item"),
        ("suite-report", suite / "report.html", "#items .pair, #items article"),
        ("harden-report", root / "filtered" / "report.html", "body"),
        ("harden-review", root / "hard" / "review.html", "section.card"),
    ]


@pytest.fixture(scope="module")
def browser():
    with headless_chromium() as browser:
        yield browser


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("name", ["audit-page", "run-report", "run-report-many-img-types", "rescored-run-report", "suite-report",
                                  "harden-report", "harden-review"])
def test_page_fits_its_window_without_errors(pages, browser, name, width):
    _, path, ready = next(p for p in pages if p[0] == name)
    layout = check_page(browser, path, name, width, ready=ready)
    assert layout.screenshot.stat().st_size > 10_000
    assert layout.problems == [], layout.problems
    assert layout.overflows == [], "\n".join(layout.overflows)
