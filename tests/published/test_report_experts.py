"""The MMMU human experts (published/figures.py): figures with their source, and the plain verdict."""

from __future__ import annotations

import pytest

from mmmu_eval.published.figures import expert_levels, expert_line, experts, experts_source


def test_the_three_tiers_are_the_leaderboard_figures_with_their_source():
    assert [(e.name, e.percent) for e in experts()] == [
        ("Human Expert (Low)", 76.2), ("Human Expert (Medium)", 82.6), ("Human Expert (High)", 88.6),
    ]
    source = experts_source()
    assert "MMMU leaderboard" in source.title and "2024-01-31" in source.title
    assert source.url.startswith("https://")


@pytest.mark.parametrize(
    ("accuracy", "ci95", "expected"),
    [
        (0.713, (0.682, 0.744), ["no", "no", "no"]),
        (0.80, (0.77, 0.83), ["yes", "within interval", "no"]),
        (0.78, (0.75, 0.81), ["within interval", "no", "no"]),
        (0.84, (0.80, 0.90), ["yes", "within interval", "within interval"]),
        (0.95, (0.90, 0.97), ["yes", "yes", "yes"]),
        (0.762, (0.762, 0.78), ["yes", "no", "no"]),  # an interval starting exactly at a tier reaches it
        (0.85, None, ["yes", "yes", "no"]),  # no interval: the point decides
        (0.7619, None, ["no", "no", "no"]),
    ],
)
def test_a_tier_is_reached_only_when_the_whole_interval_is_at_or_above_it(accuracy, ci95, expected):
    levels = expert_levels(accuracy, ci95)
    assert [x["reaches"] for x in levels] == expected
    assert [x["score"] for x in levels] == [0.762, 0.826, 0.886]
    assert [x["level"] for x in levels] == ["low", "medium", "high"]


def test_the_high_end_of_the_interval_just_under_a_tier_is_a_no():
    assert expert_levels(0.80, (0.77, 0.8259))[1]["reaches"] == "no"
    assert expert_levels(0.80, (0.77, 0.826))[1]["reaches"] == "within interval"


def test_a_percentage_passed_by_mistake_is_refused():
    with pytest.raises(ValueError, match="fractions in \\[0, 1\\], not 71.3"):
        expert_levels(71.3, None)


@pytest.mark.parametrize(
    ("accuracy", "ci95", "verdict"),
    [
        (0.713, (0.682, 0.744), "below all three tiers."),
        (0.95, (0.90, 0.97), "reaches all three tiers."),
        (0.80, (0.77, 0.83), "reaches Low; Medium lies within the interval (undecided); below High."),
        (0.84, (0.80, 0.90), "reaches Low; Medium and High lie within the interval (undecided)."),
    ],
)
def test_one_plain_line_says_which_tiers_are_reached(accuracy, ci95, verdict):
    line = expert_line(accuracy, ci95)
    assert line.endswith(": " + verdict)
    assert line.startswith(f"MMMU validation {100 * accuracy:.1f}% (95% CI [{100 * ci95[0]:.1f}, {100 * ci95[1]:.1f}])")
    assert "Low 76.2%, Medium 82.6%, High 88.6%; MMMU leaderboard, 2024-01-31" in line
    assert "\n" not in line
