"""The audit on the official repository's paper-era MMMU-Pro outputs (27 response sets of 7 models,
read by rescore's official reader, unconverted): the label errors the maintainers later fixed
stand out, and the structural problem they fixed is named.

Measured on these files (docs/audit.md): ``validation_Design_15`` ranks 4th, 16 of the 17
ten-option and vision sets answer "religious institution"; 148 of 1,515 ten-option/vision option
groups are flagged against 1.2 expected by chance; 51 ten-option items hold a position-dependent
option; 10 of 17 sets pick the added "Pulmonary embolism" on ``test_Clinical_Medicine_283``.
"""

from __future__ import annotations

import json

from mmmu_eval.auditing.structural import SHUFFLED


def _suspect(audit, item_id):
    ids = [s.id for s in audit.suspects]
    assert item_id in ids, f"{item_id} is not a suspect"
    return ids.index(item_id) + 1, audit.suspects[ids.index(item_id)]


def test_the_corrected_design_label_ranks_among_the_first_twenty(paper_audit):
    rank, s = _suspect(paper_audit, "validation_Design_15")
    assert rank <= 20
    assert s.flagged
    assert s.gold == "royal palace" and s.consensus == "religious institution"
    assert (s.agree, s.answered, s.gold_votes) == (16, 17, 0)  # 16 of 17 sets: the corrected gold
    assert set(s.settings) == {"standard-10", "vision"}  # two shuffles of one option set, joined by text


def test_the_issue_examples_are_flagged_with_their_counts(paper_audit):
    _, agri = _suspect(paper_audit, "validation_Agriculture_12")
    assert (agri.gold, agri.consensus, agri.agree) == ("Cholera", "Sphincter muscles", 15)
    _, socio = _suspect(paper_audit, "validation_Sociology_21")
    assert (socio.consensus, socio.agree, socio.answered) == ("Digital divide", 17, 17)
    for item_id in ("validation_Literature_28", "validation_History_5"):
        assert _suspect(paper_audit, item_id)[1].flagged


def test_flagged_items_far_exceed_what_chance_would_flag(paper_audit):
    ten = next(a for a in paper_audit.agreement if a.settings == ("standard-10", "vision"))
    assert ten.flagged > 100
    assert ten.expected_by_chance < ten.flagged / 20


def test_stronger_runs_set_aside_only_the_weakest_model(paper_audit):
    weak = {r.model for r in paper_audit.runs if not paper_audit.strong[r.name]}
    assert weak == {"llava-onevision-qwen2-7b-vo-hf"}
    ten_and_vision = [r for r in paper_audit.runs if r.setting != "standard-4"]
    assert sum(paper_audit.strong[r.name] for r in ten_and_vision) == 14


def test_the_either_of_the_above_item_is_position_dependent(paper_audit):
    found = [p for p in paper_audit.structural
             if p.id == "validation_Diagnostics_and_Laboratory_Medicine_17" and p.kind == "position_dependent_option"]
    assert {p.setting for p in found} == SHUFFLED
    assert "Either of the above" in found[0].detail
    # the four-option form keeps its original order: no position problem there
    assert not any(p.kind == "position_dependent_option" and p.setting == "standard-4" for p in paper_audit.structural)
    ten = {p.id for p in paper_audit.structural if p.kind == "position_dependent_option" and p.setting == "standard-10"}
    assert 30 <= len(ten) <= 60


def test_an_added_option_that_draws_the_runs_is_named(paper_audit):
    added = {a.id: a for a in paper_audit.added}
    pe = added["test_Clinical_Medicine_283"]
    assert (pe.option, pe.gold, pe.votes, pe.answered) == ("Pulmonary embolism", "Thromboembolism", 10, 17)
    assert pe.four_right * 2 > pe.four_answered


def test_item_statistics_and_the_2pl_fit(paper_audit):
    doc = paper_audit.stats.to_json()
    assert doc["runs"] == 27 and len(doc["per_item"]) == 1730
    assert "2PL fitted on 27 runs" in doc["irt"]
    assert "validation_Design_15" in doc["none_right"]  # not one of 27 sets agrees with the old gold
    assert all(doc["per_item"][i]["right"] == 0 for i in doc["none_right"])
    biserial = [v["point_biserial"] for v in doc["per_item"].values() if v["point_biserial"] is not None]
    assert len(biserial) > 1500 and sum(biserial) / len(biserial) > 0.1  # stronger runs get items right more often
    difficulty = {i: v["irt_b"] for i, v in doc["per_item"].items()}
    easy, hard = doc["all_right"][0], doc["none_right"][0]
    assert difficulty[easy] < difficulty[hard]


def test_the_cli_writes_the_json_of_the_documented_shape_and_a_page(pro_2024, tmp_path, capsys):
    from auditing.conftest import response_files
    from mmmu_eval.cli.main import main

    files = [str(p) for p in response_files(pro_2024) if "gpt-4o" in p.name or "gemini" in p.name
             or "InternVL2-40B" in p.name]
    out, page = tmp_path / "audit.json", tmp_path / "audit.html"
    assert main(["audit", *files, "--json", str(out), "--html", str(page), "--top", "5"]) == 0
    printed = capsys.readouterr().out
    assert "Gold suspects" in printed and "Augmentation suspects" in printed and "expected by chance" in printed
    doc = json.loads(out.read_text(encoding="utf-8"))
    assert set(doc) >= {"runs", "suspects", "structural", "items", "revisions", "agreement", "added_options"}
    first = doc["suspects"][0]
    assert set(first) >= {"id", "gold", "consensus", "agree", "gold_votes", "answered", "score", "runs",
                          "consensus_added", "kind", "four_option"}
    assert set(doc["suspect_lists"]) == {"gold", "augmentation", "unknown"}
    scores = [s["score"] for s in doc["suspects"] if s["flagged"]]
    assert scores == sorted(scores, reverse=True)
    assert page.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")


def test_the_first_twenty_split_into_gold_and_augmentation_suspects(paper_audit):
    """12 of the first 20 agree on an option the augmentation added (the issue's count); each says so,
    with the four-option form's votes beside it, and each list keeps the overall rank order."""
    top = paper_audit.suspects[:20]
    assert sum(s.consensus_added is True for s in top) == 12 and sum(s.consensus_added is False for s in top) == 8
    _, history = _suspect(paper_audit, "test_History_87")  # "Constantinople became a Muslim city" was added
    assert history.kind == "augmentation" and history.consensus == "Constantinople became a Muslim city"
    assert (history.four_option.gold, history.four_option.answered, history.four_option.consensus) == (9, 10, 0)
    _, design = _suspect(paper_audit, "validation_Design_15")  # an original option: the gold is wrong
    assert design.kind == "gold" and (design.four_option.consensus, design.four_option.answered) == (9, 10)
    gold, augmentation = paper_audit.suspects_of("gold"), paper_audit.suspects_of("augmentation")
    assert len(gold) + len(augmentation) == len(paper_audit.suspects) and not paper_audit.suspects_of("unknown")
    ranks = {s.id: i for i, s in enumerate(paper_audit.suspects)}
    assert [ranks[s.id] for s in augmentation] == sorted(ranks[s.id] for s in augmentation)
    doc = paper_audit.to_json()
    assert doc["suspect_lists"]["augmentation"][0] == "test_History_87"
    assert next(s for s in doc["suspects"] if s["id"] == "test_History_87")["consensus_added"] is True


def test_position_flags_only_where_the_augmentation_changed_the_meaning(paper_audit):
    ten = {p.id: p.detail for p in paper_audit.structural
           if p.kind == "position_dependent_option" and p.setting == "standard-10"}
    assert "validation_Pharmacy_7" not in ten  # 'a,b' in a list the augmentation never reordered
    assert "All of these" in ten["test_Sociology_68"] and "grew by 4 added option(s)" in ten["test_Sociology_68"]
    assert "the shuffle moved the options above it" in ten["validation_Diagnostics_and_Laboratory_Medicine_17"]
    assert "was itself added by the augmentation" in ten["test_Psychology_180"]
    assert len(ten) == 36
