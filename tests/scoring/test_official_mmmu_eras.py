"""The official MMMU formats of the LLaVA-1.5-13B era, scored as the official code of that era scores them.

Rows and figures: tests/fixtures/official_mmmu/README.md (the official main_parse_and_eval.py and
main_eval_only.py run on the same files).
"""

from __future__ import annotations

from pathlib import Path

from mmmu_eval.harnesses.read import rescore

HERE = Path(__file__).resolve().parents[1] / "fixtures" / "official_mmmu"


def test_parse_and_eval_folder_matches_the_official_code():
    result = rescore(HERE / "llava1.5_13b")  # --format auto: a folder of <Subject>/output.json
    assert result.format == "official-mmmu"
    aggregate = result.scoring.aggregates["official"]
    assert (aggregate.overall.correct, aggregate.overall.n, result.scoring.fallbacks) == (29, 60, 2)
    assert {s: (t.correct, t.n) for s, t in aggregate.by_subject.items()} == {"Design": (18, 30), "Psychology": (11, 30)}
    fell = {i: v.pred for i, v in result.scoring.verdicts["official"].items() if v.fallback}
    assert fell == {"validation_Design_4": "A", "validation_Psychology_4": "A"}
    assert result.problems == () and result.warnings == ()


def test_eval_only_file_matches_the_official_code(fidelity):
    result = rescore(HERE / "llava1.5_13b_val_design_psychology.json", format="official-mmmu-eval-only",
                     answers=fidelity / "mmmu" / "answer_dict_val.json")
    aggregate = result.scoring.aggregates["eval-only"]
    assert (aggregate.overall.correct, aggregate.overall.n) == (30, 60)
    assert {s: t.correct for s, t in aggregate.by_subject.items()} == {"Design": 19, "Psychology": 11}
