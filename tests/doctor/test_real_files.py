"""The doctor is one computation, on every real model output in ../shared/fidelity (issue 42).

Each file is rescored as a user has it (unconverted) and diagnosed alone, against its model's
published row and against two numbers on either side of its figure. On every diagnosis:

- the causes' expected effects add up to the causes together (each item counted once), so the
  together line has the sign of its parts whenever they all agree;
- every range holds its expected value, and one cause alone has the very range of the causes
  together (one method for ranges);
- the remainder sentence follows by subtraction from the gap and the together line as printed,
  and the main cause points toward the gap;
- nothing is said of the run's data revision beyond what its manifest records;
- the run's own causes read the same with or without a published figure.

And on the 27 paper-era files the figures of docs/doctor.md's table hold: gap, best_of, main
cause and remainder (best_of the main cause in the 16 files whose prompt was the worse one).
"""

from __future__ import annotations

import re
from decimal import Decimal
from pathlib import Path

import pytest

from doctor.conftest import FIDELITY
from mmmu_eval.cli.main import main
from mmmu_eval.doctor.examine import diagnosis_of, named_row
from mmmu_eval.doctor.outside import recorded_revision
from mmmu_eval.results.finished_run import read_run

#: The run's own figures and causes sum and round to 4 places; a sum of a few of them can differ by this.
SUMS = 1e-3


def _sources() -> dict[str, list[str]]:
    """Name -> the rescore arguments of every model output in ../shared/fidelity (the build data
    ``mix_data.jsonl`` is no model's output)."""
    out: dict[str, list[str]] = {}
    for path in sorted((FIDELITY / "mmmu-pro-2024").glob("*.jsonl")):
        if path.name != "mix_data.jsonl":
            out[f"2024/{path.stem}"] = [str(path)]
    for path in sorted((FIDELITY / "mmmu-pro").glob("*.jsonl")):
        out[f"today/{path.stem}"] = [str(path)]
    qwen = FIDELITY / "mmmu" / "qwen_vl"
    if qwen.is_dir():
        out["mmmu/qwen_vl"] = [str(qwen)]
        out["mmmu/qwen_vl eval-only"] = [str(qwen / "total_val_output.json"), "--answers",
                                         str(FIDELITY / "mmmu" / "answer_dict_val.json")]
    return out


SOURCES = _sources()

#: docs/doctor.md, "Checked on the paper-era outputs": stem -> (Table 1 row, gap, best_of, main cause, remainder).
PAPER_ERA = {
    "InternVL2-40B_direct_Standard(10opts)": ("InternVL2-40B", 0.98, 0.92, "best_of", -0.35),
    "InternVL2-40B_direct_Standard(4opts)": ("InternVL2-40B", -1.85, None, None, -1.93),
    "InternVL2-40B_direct_Vision": ("InternVL2-40B", 3.02, 3.01, "best_of", 0.09),
    "InternVL2-8B_direct_Standard(10opts)": ("InternVL2-8B", 0.13, None, None, 0.13),
    "InternVL2-8B_direct_Standard(4opts)": ("InternVL2-8B", -0.58, None, None, -0.58),
    "InternVL2-8B_direct_Vision": ("InternVL2-8B", 5.46, 5.90, "best_of", -0.10),
    "InternVL2-Llama3-76B_direct_Standard(10opts)": ("InternVL2-Llama3-76B", 4.56, 4.45, "best_of", -0.23),
    "InternVL2-Llama3-76B_direct_Standard(4opts)": ("InternVL2-Llama3-76B", 2.98, 2.95, "best_of", -0.06),
    "InternVL2-Llama3-76B_direct_Vision": ("InternVL2-Llama3-76B", 11.70, 11.73, "best_of", 0.03),
    "gemini-1.5-pro-exp-0801_cot_Standard(4opts)": ("Gemini 1.5 Pro (0801)", 0.08, None, "unparsed", -0.11),
    "gemini-1.5-pro-exp-0801_direct_Standard(10opts)": ("Gemini 1.5 Pro (0801)", 7.90, 8.21, "best_of", -0.36),
    "gemini-1.5-pro-exp-0801_direct_Standard(4opts)": ("Gemini 1.5 Pro (0801)", 5.80, 5.26, "best_of", 0.11),
    "gemini-1.5-pro-exp-0801_direct_Vision": ("Gemini 1.5 Pro (0801)", 3.82, 4.16, "best_of", -0.45),
    "gpt-4o-2024-08-06_direct_Standard(10opts)": ("GPT-4o (0513)", 13.77, 14.74, "best_of", -0.96),
    "gpt-4o-2024-08-06_direct_Standard(4opts)": ("GPT-4o (0513)", 12.56, 12.89, "best_of", -0.35),
    "gpt-4o-2024-08-06_direct_Vision": ("GPT-4o (0513)", 7.33, 7.63, "best_of", -0.26),
    "llava-onevision-qwen2-72b-vo-hf_cot_Standard(10opts)": ("LLaVA-OneVision-72B", 0.20, 0.29, "best_of", -0.11),
    "llava-onevision-qwen2-72b-vo-hf_cot_Standard(4opts)": ("LLaVA-OneVision-72B", 0.57, 0.69, "best_of", -0.22),
    "llava-onevision-qwen2-72b-vo-hf_cot_Vision": ("LLaVA-OneVision-72B", -0.16, 1.39, "unparsed", -1.33),
    "llava-onevision-qwen2-72b-vo-hf_direct_Standard(10opts)": ("LLaVA-OneVision-72B", -0.21, None, None, -0.25),
    "llava-onevision-qwen2-72b-vo-hf_direct_Standard(4opts)": ("LLaVA-OneVision-72B", -0.24, None, "unparsed", -0.23),
    "llava-onevision-qwen2-72b-vo-hf_direct_Vision": ("LLaVA-OneVision-72B", -1.32, None, None, -1.35),
    "llava-onevision-qwen2-7b-vo-hf_cot_Standard(10opts)": ("LLaVA-OneVision-7B", -0.04, 0.23, None, -0.38),
    "llava-onevision-qwen2-7b-vo-hf_cot_Standard(4opts)": ("LLaVA-OneVision-7B", 0.31, 1.16, "best_of", -1.04),
    "llava-onevision-qwen2-7b-vo-hf_direct_Standard(10opts)": ("LLaVA-OneVision-7B", -0.44, None, None, -0.48),
    "llava-onevision-qwen2-7b-vo-hf_direct_Standard(4opts)": ("LLaVA-OneVision-7B", -1.07, None, "unparsed", -0.94),
    "llava-onevision-qwen2-7b-vo-hf_direct_Vision": ("LLaVA-OneVision-7B", 2.80, 2.54, "best_of", 0.25),
}


@pytest.fixture(scope="module")
def loaded(tmp_path_factory):
    """Name -> the rescored run read back with its items, responses and scoring (once per file)."""
    from fakes import required

    required.path(FIDELITY / "mmmu-pro-2024", "the doctor's real-file tests need ../shared/fidelity")
    base = tmp_path_factory.mktemp("real")
    cache: dict[str, object] = {}

    def get(name: str):
        if name not in cache:
            out = base / re.sub(r"[^\w.-]+", "_", name)
            assert main(["rescore", *SOURCES[name], "--out", str(out), "--no-html"]) == 0
            cache[name] = read_run(out, details=True)
        return cache[name]

    return get


def _diagnose(run, published):
    return diagnosis_of(str(run.path), run.results, run.manifest, run.items, run.responses, run.scoring,
                        published=published)


def _targets(run) -> list:
    """Its model's published row (else a model of its benchmark), and a number on either side of its figure."""
    row = named_row(run.results)
    name = row.model if row is not None else ("GPT-4o (0513)" if run.results["benchmark"] == "mmmu-pro" else "Qwen-VL-7B-Chat")
    figure = 100 * run.results["overall"]["accuracy"]
    return [name, round(min(figure + 2.5, 100.0), 1), round(max(figure - 2.5, 1.5), 1)]


def _shown(text: str) -> Decimal:
    return Decimal(text)


def _check_sums_and_ranges(d) -> None:
    effects = d.to_json()["effects"]
    for e in effects:
        if e["expected"] is not None:
            assert e["low"] - 1e-9 <= e["expected"] <= e["high"] + 1e-9, e
    sized_run = [e for e in effects if e["where"] == "run" and e["expected"] is not None]
    together = d.together
    assert together["expected"] == pytest.approx(sum(e["expected"] for e in sized_run), abs=SUMS)
    assert together["union_items"] == sum(e["counted"] for e in sized_run)
    assert together["low"] - 1e-9 <= together["expected"] <= together["high"] + 1e-9
    moving = [e for e in sized_run if (e["expected"], e["low"], e["high"]) != (0.0, 0.0, 0.0)]
    if len(moving) == 1:  # one cause alone: its range is the range of the causes together
        assert (together["expected"], together["low"], together["high"]) == (
            moving[0]["expected"], moving[0]["low"], moving[0]["high"])
    signs = {e["expected"] > 0 for e in sized_run if abs(e["expected"]) >= 1e-4}
    if len(signs) == 1:
        assert (together["expected"] > 0) == signs.pop()
    p = d.published
    if p is None or "explained" not in p:
        return
    sized = [e for e in effects if e["expected"] is not None]
    explained = p["explained"]
    assert explained["expected"] == pytest.approx(sum(e["expected"] for e in sized), abs=SUMS)
    assert explained["union_items"] == sum(e["counted"] for e in sized)
    signs = {e["expected"] > 0 for e in sized if abs(e["expected"]) >= 1e-4}
    if len(signs) == 1:
        assert (explained["expected"] > 0) == signs.pop()


def _check_sentences(d) -> None:
    p = d.published
    lines = d.lines()
    text = "\n".join(lines)
    if p is None or "explained" not in p:
        return
    gap = _shown(re.search(r"gap ([+-]\d+\.\d\d) points", text).group(1))
    together = _shown(re.search(r"together, each item counted once \(\d+ items\): expected ([+-]\d+\.\d\d) points",
                                text).group(1))
    left = gap - together
    sentence = lines[[i for i, line in enumerate(lines) if line.strip().startswith("together, each item")][0] + 1
                     + (1 if p.get("main_cause") else 0)].strip()
    size = f"{abs(gap):.2f}"
    if not gap:
        assert sentence == "there is no gap to explain"
    elif together * gap <= 0:
        assert sentence.startswith(f"none of the {size} points is explained by anything recorded in this run")
        assert (f"point the other way, by {abs(together):.2f} points" in sentence) == bool(together)
    elif not left:
        assert sentence.startswith(f"the causes' expected effects account for the whole {size}-point gap")
    elif left * gap < 0:
        assert sentence.startswith(f"the causes' expected effects exceed the {size}-point gap by {abs(left):.2f} points")
    else:
        assert sentence.startswith(f"{abs(left):.2f} of the {size} points are not explained")
    main_cause = p.get("main_cause")
    if main_cause is not None:
        effects = [e for e in d.to_json()["effects"] if e["expected"] is not None]
        assert main_cause["expected"] * p["gap"] > 0
        toward = [abs(e["expected"]) for e in effects if e["expected"] * p["gap"] > 0]
        assert abs(main_cause["expected"]) == pytest.approx(max(toward), abs=1e-9)
        shown = re.search(r"main cause: (\w+), expected ([+-]\d+\.\d\d) of", text)
        assert shown.group(1) == main_cause["cause"]
        assert shown.group(2) == next(f"{Decimal(str(e['expected'])).quantize(Decimal('0.01'), 'ROUND_HALF_UP'):+.2f}"
                                      for e in effects if e["cause"] == main_cause["cause"])


def _check_revision(d, manifest) -> None:
    text = "\n".join(d.lines())
    assert not re.search(r"this run (is )?on the \S+ (data )?build", text)
    for e in d.effects:
        if e.cause == "data_revision":
            assert f"this run's data revision: {recorded_revision(manifest)}" in e.basis
            if not (manifest.get("dataset") or {}).get("revision"):
                assert "this run's data revision: not recorded" in e.basis


@pytest.mark.parametrize("name", list(SOURCES) or ["no ../shared/fidelity"])
def test_the_doctor_is_one_computation_on_every_real_file(loaded, name):
    run = loaded(name)
    alone = _diagnose(run, None)
    _check_sums_and_ranges(alone)
    causes_alone = [line for line in alone.lines() if not line.startswith("  together")]
    for published in _targets(run):
        d = _diagnose(run, published)
        _check_sums_and_ranges(d)
        _check_sentences(d)
        _check_revision(d, run.manifest)
        # the run's own causes are sized the same with or without a published figure
        assert [e.to_json() for e in d.effects if e.where == "run"] == [e.to_json() for e in alone.effects]
        assert d.lines()[: len(causes_alone)] == causes_alone


@pytest.mark.parametrize("stem", list(PAPER_ERA))
def test_the_paper_era_figures_hold(loaded, stem):
    row, gap, best_of, main_cause, remainder = PAPER_ERA[stem]
    d = _diagnose(loaded(f"2024/{stem}"), row)
    p = d.published
    effects = {e.cause: e for e in d.effects}
    assert round(p["gap"], 2) == pytest.approx(gap, abs=1e-9)
    assert round(p["remainder"], 2) == pytest.approx(remainder, abs=1e-9)
    assert (p["main_cause"] or {}).get("cause") == main_cause
    if best_of is None:
        assert "best_of" not in effects
    else:
        assert round(effects["best_of"].expected, 2) == pytest.approx(best_of, abs=1e-9)


def test_the_paper_era_files_are_all_checked():
    stems = {Path(name).name for name in SOURCES if name.startswith("2024/")}
    assert not SOURCES or stems == set(PAPER_ERA)
