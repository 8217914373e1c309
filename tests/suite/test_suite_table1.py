"""A suite against the fake server answering each run by a known pattern: every figure worked out here.

The expected values are computed in the test from the pattern and the sample's gold answers,
not from the suite's own code: the better-of rule, the mean, the three Δs, the CoT and OCR
effects (difference, discordant counts, exact McNemar p from binomial sums) and the flip sets
with their counts per discipline.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from fractions import Fraction
from math import comb

import pytest

from mmmu_eval.dataset.subjects import discipline_of
from mmmu_eval.suite.execute import evaluate_suite

from fakes.fault_server import FaultServer

from .conftest import periodic_pattern, quiet


def pct(x: float | Fraction) -> float:
    """A percentage to one decimal, ties away from zero, worked out in exact fractions.

    A bootstrap bound is a float near a ratio of small integers; ``limit_denominator`` recovers
    that ratio, so 0.5185 (51.849999... in binary) is the tie 1037/2000 and gives 51.9."""
    exact = Fraction(x).limit_denominator(100_000)
    sign = -1 if exact < 0 else 1
    return sign * math.floor(abs(exact) * 1000 + Fraction(1, 2)) / 10


def exact(pattern, run) -> Fraction:
    """A run's accuracy under the pattern, as a fraction."""
    marks = pattern.right[run]
    return Fraction(sum(marks.values()), len(marks))


def mcnemar(b: int, c: int) -> float:
    n = b + c
    return 1.0 if n == 0 else min(1.0, 2 * sum(comb(n, k) for k in range(min(b, c) + 1)) / 2**n)


# One suite for the whole module (every test only reads it), with its own pattern and server,
# so the server's counts are this suite's alone.
@pytest.fixture(scope="module")
def pattern():
    return periodic_pattern()


@pytest.fixture(scope="module")
def served(pattern):
    with FaultServer(fault_rate=0.0, answer=pattern.answer) as server:
        yield server


@pytest.fixture(scope="module")
def suite(tmp_path_factory, served):
    return evaluate_suite(model="openai:fake-model", base_urls=[served.url], data="sample", ocr=True,
                          out=tmp_path_factory.mktemp("table1") / "suite", display=quiet(), concurrency=8, bootstrap=300)


def best(pattern, setting):
    direct, cot = pattern.accuracy((setting, "direct")), pattern.accuracy((setting, "cot"))
    return ("cot", cot) if cot > direct else ("direct", direct)


def test_every_table1_cell_and_delta_is_the_one_worked_out_by_hand(suite, pattern):
    t = suite.table1
    assert t["reasons"] == {}
    expected = {}
    for setting, key in (("standard-4", "standard_4"), ("standard-10", "standard_10"), ("vision", "vision")):
        mode, _ = best(pattern, setting)
        expected[key] = exact(pattern, (setting, mode))
        cell = t[key]
        assert cell["mode"] == mode and cell["run"] == f"{setting}-{mode}"
        assert cell["by_mode"]["direct"]["value"] == pytest.approx(pattern.accuracy((setting, "direct")))
        assert cell["by_mode"]["cot"]["value"] == pytest.approx(pattern.accuracy((setting, "cot")))
    expected["mmmu_val"] = exact(pattern, (None, "direct"))
    expected["overall"] = (expected["standard_10"] + expected["vision"]) / 2
    expected["delta_1"] = expected["standard_10"] - expected["standard_4"]
    expected["delta_2"] = expected["vision"] - expected["standard_10"]
    expected["delta_3"] = expected["overall"] - expected["mmmu_val"]
    for key, value in expected.items():
        cell = t[key]
        assert cell["value"] == pytest.approx(float(value)), key
        assert cell["percent"] == pct(value), key
        low, high = cell["ci95"]
        assert low <= value + 1e-12 and value - 1e-12 <= high, key
        assert cell["ci95_percent"] == [pct(low), pct(high)]
    # Items: 24 per MMMU-Pro setting, 40 MMMU validation items.
    assert t["standard_10"]["n"] == 24 and t["mmmu_val"]["n"] == 40
    assert t["delta_1"]["paired"] is True and t["delta_2"]["paired"] is True and t["overall"]["paired"] is True
    assert t["delta_3"]["paired"] is False
    assert list(t["columns"]) == ["standard_4", "standard_10", "vision", "overall", "mmmu_val",
                                  "delta_1", "delta_2", "delta_3"]


def test_cot_and_ocr_effects_are_paired_differences_with_exact_mcnemar(suite, pattern):
    for setting, key, mode, section in (
        ("standard-4", "standard_4", "cot", "cot_effect"), ("standard-10", "standard_10", "cot", "cot_effect"),
        ("vision", "vision", "cot", "cot_effect"), ("vision", "vision", "ocr", "ocr_effect"),
    ):
        direct, other = pattern.right[(setting, "direct")], pattern.right[(setting, mode)]
        only_other = sum(other[i] and not direct[i] for i in direct)
        only_direct = sum(direct[i] and not other[i] for i in direct)
        e = suite.summary[section][key]
        assert e["shared"] == 24 and e["complete"] is True
        assert e["direct"]["value"] == pytest.approx(pattern.accuracy((setting, "direct")))
        assert e[mode]["value"] == pytest.approx(pattern.accuracy((setting, mode)))
        assert e["difference"]["value"] == pytest.approx((only_other - only_direct) / 24)
        assert e[f"{mode}_only_right"] == only_other and e["direct_only_right"] == only_direct
        assert e["mcnemar_p"] == pytest.approx(mcnemar(only_other, only_direct))
        low, high = e["difference"]["ci95"]
        assert low <= e["difference"]["value"] <= high
    assert suite.summary["cot_effect"]["reasons"] == {} and suite.summary["ocr_effect"]["reasons"] == {}


def test_flip_sets_are_the_items_right_in_one_table1_run_and_wrong_in_the_next(suite, pattern):
    for key, a_setting, b_setting in (("right_4_wrong_10", "standard-4", "standard-10"),
                                      ("right_standard_wrong_vision", "standard-10", "vision")):
        a = pattern.right[(a_setting, best(pattern, a_setting)[0])]
        b = pattern.right[(b_setting, best(pattern, b_setting)[0])]
        lost = sorted(i for i in a if a[i] and not b[i])
        entry = suite.summary["flips"][key]
        assert [f["id"] for f in entry["items"]] == lost
        assert entry["count"] == len(lost)
        assert entry["reverse_count"] == sum(b[i] and not a[i] for i in a)
        subject = {it.id: it.subject for it in pattern.items[(a_setting, "direct")]}
        per = Counter(discipline_of(subject[i]) for i in lost)
        assert {d: c["count"] for d, c in entry["by_discipline"].items() if c["count"]} == dict(per)
        assert sum(c["shared"] for c in entry["by_discipline"].values()) == 24


def test_the_suite_directory_holds_ordinary_runs_plus_its_summary(suite, served):
    out = suite.suite_dir
    names = sorted(p.name for p in out.iterdir())
    assert names == sorted(["mmmu-validation-direct", "report.html", "standard-10-cot", "standard-10-direct",
                            "standard-4-cot", "standard-4-direct", "suite.json", "vision-cot", "vision-direct", "vision-ocr"])
    on_disk = json.loads((out / "suite.json").read_text())
    assert on_disk["table1"] == suite.table1 and on_disk["status"] == "complete" and suite.exit_status == 0
    manifest = json.loads((out / "vision-ocr" / "manifest.json").read_text())
    assert manifest["config"]["prompt"] == "ocr" and manifest["status"] == "complete"
    # Every item of every run asked once, plus one preflight probe per run.
    assert served.stats["answered"] == 6 * 24 + 24 + 40 + 8
    assert all(info["complete"] for info in on_disk["runs"].values())
    # Usage summed over every run's responses, as each run's results.json counts its own.
    assert on_disk["usage"]["requests"] == 6 * 24 + 24 + 40
    assert on_disk["usage"]["requests"] == sum(info["usage"]["requests"] for info in on_disk["runs"].values())
    assert on_disk["usage"]["prompt_tokens"] == sum(info["usage"]["prompt_tokens"] for info in on_disk["runs"].values())


def test_the_mmmu_cell_of_the_sample_is_never_placed_against_the_human_experts(suite):
    """The experts answered all 900 validation items; the sample's 40 are synthetic (issue 28)."""
    cell = suite.table1["mmmu_val"]
    assert cell["experts"] is None and cell["expert_line"] is None
    page = (suite.suite_dir / "report.html").read_text()
    assert 'id="experts"' not in page and 'id="usage"' in page
    assert 'id="table1-scope"' in page and "the published rows are left out" in page
    assert "Random Choice" not in page[page.index('<section id="table1">'):page.index("</section>", page.index('<section id="table1">'))]


def test_a_suite_on_the_full_splits_places_its_row_among_the_papers_and_the_mmmu_cell_against_the_experts(suite):
    """The same suite as if its runs were the full splits: the published rows and the experts come back."""
    import dataclasses

    from mmmu_eval.suite.html_study import table1_section
    from mmmu_eval.suite.run_records import suite_records
    from mmmu_eval.suite.study import build_study

    records = []
    for record in suite_records(suite.suite_dir):
        results = dict(record.results, scope={"kind": "full", "items": 900, "of": 900, "chosen_by": [],
                                              "split": "validation split", "text": "full validation split (900 items)"})
        records.append(dataclasses.replace(record, results=results))
    study = build_study(records, model="random", resamples=50)
    assert study["scope"]["kind"] == "full"
    section = table1_section({**suite.summary, **study})
    assert "Random Choice" in section and "GPT-4o (0513)" in section and 'id="table1-scope"' not in section
    cell = study["table1"]["mmmu_val"]
    assert [x["name"] for x in cell["experts"]] == ["Human Expert (Low)", "Human Expert (Medium)", "Human Expert (High)"]
    low, high = cell["ci95"]

    def verdict(tier: float) -> str:
        return "yes" if low >= tier else "no" if high < tier else "within interval"

    assert [x["reaches"] for x in cell["experts"]] == [verdict(0.762), verdict(0.826), verdict(0.886)]
    assert cell["expert_line"].startswith(f"MMMU validation {cell['percent']}%")

