"""The one rule for printing a figure: the exact value, rounded half up, once.

The exhaustive test is the proof the module's docstring leans on: for every k/d with d <= 1,800
and d = 10,500, the float k/d read back through its repr rounds as the fraction itself does.
The rest pins what a reader sees: ties go up, differences are rounded once from the exact
values, a negative difference keeps its sign.
"""

from __future__ import annotations

import re
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

import pytest

import mmmu_eval
from mmmu_eval.core.numbers import fixed, half_up, mean, pct, percent, points, rounded

DENOMINATORS = [*range(1, 1801), 10_500]


def by_hand(p: int, q: int, places: int = 1) -> str:
    """``p / q`` rounded half away from zero to ``places`` decimals, in integers only."""
    scale = 10**places
    sign = "-" if p * q < 0 else ""
    p, q = abs(p), abs(q)
    whole = (2 * p * scale + q) // (2 * q)  # floor(p/q * scale + 1/2)
    text = str(whole).rjust(places + 1, "0")
    return f"{sign}{text[:-places]}.{text[-places:]}" if places else f"{sign}{text}"


def test_every_accuracy_up_to_1800_items_and_at_10500_prints_as_its_exact_fraction():
    wrong, old = [], 0
    for d in DENOMINATORS:
        for k in range(d + 1):
            printed = pct(k / d)
            if printed != by_hand(100 * k, d):
                wrong.append((k, d, printed))
            if d < 1800 and f"{100 * (k / d):.1f}" != printed:
                old += 1
    assert wrong == []
    # The count: the float formatting this replaces printed these otherwise, so this
    # test fails on the float path (and on half-even, which differs at every tie it meets).
    assert old == 1146


def test_the_repr_of_k_over_d_is_the_tie_itself_or_further_from_every_tie_than_float_error():
    # Why the test above passes, checked rather than argued. A tie of one or two printed
    # decimals of a percent is an odd multiple of 1/2000 or 1/200000: where k/d is one, its
    # float's repr is that decimal exactly; where it is not, k/d lies at least 1/(200000 d)
    # from every tie (a nonzero integer over 200000 d), and the repr within 1e-15 of k/d.
    ties = 0
    for d in DENOMINATORS:
        for k in range(d + 1):
            read = Decimal(repr(k / d))
            if any((scale * k) % d == 0 and (scale * k // d) % 2 == 1 for scale in (2000, 200_000)):
                ties += 1
                assert read * d == k, (k, d)
            else:
                # |read - k/d| < 1e-15, said without division: |read * d - k| < d * 1e-15
                assert abs(read * d - k) < d * Decimal("1e-15"), (k, d)
    assert 1 / Decimal(200_000 * 10_500) > Decimal("1e-15")
    assert ties > 1000


@pytest.mark.parametrize("fraction, printed", [
    (0.5185, "51.9"),        # the figure: the float path printed 51.8
    (0.4625, "46.3"),        # 37/80; half-even would print 46.2
    (0.00125, "0.1"),
    (211 / 1730, "12.2"),
    (1.0, "100.0"),
    (0.0, "0.0"),
])
def test_ties_round_up_to_one_decimal(fraction, printed):
    assert pct(fraction) == printed
    assert percent(fraction) == float(printed)


def test_two_decimals_for_the_places_that_print_two():
    assert pct(Fraction(1037, 20000), 2) == "5.19" and pct(0.051845, 2) == "5.18"
    assert pct(3 / 16, 2) == "18.75" and pct(Fraction(1, 8000), 2) == "0.01"
    assert rounded(0.78125, 4) == 0.7813  # a float that is exactly a tie: round() gives 0.7812


def test_a_difference_is_made_from_the_exact_values_and_rounded_once():
    # 0.5185 - 0.3 is 0.21850000000000003 in floats; a tie below would print one point lower.
    assert pct(points(0.5185, 0.3), signed=True) == "+21.9"
    assert pct(points(0.3, 0.5185), signed=True) == "-21.9"
    assert pct(points(0.6, 0.4815), signed=True) == "+11.9" and f"{100 * (0.6 - 0.4815):+.1f}" == "+11.8"
    assert pct(points(0.5, 0.5), signed=True) == "+0.0"
    assert pct(-0.0004, signed=True) == "-0.0"  # a hair below zero reads as one, as before
    assert percent(-0.0004) == 0.0 and str(percent(-0.0004)) == "-0.0"


def test_a_mean_is_exact_and_each_bound_of_an_interval_rounds_alike():
    assert pct(mean([0.5185, 0.5185])) == "51.9"
    assert pct(mean([Fraction(1037, 2000), Fraction(1, 2)])) == "50.9"  # 0.50925
    low, high = 0.41845, 0.5185
    assert f"{pct(low)}–{pct(high)}" == "41.8–51.9"


def test_figures_already_in_percent_print_in_the_same_rule():
    assert fixed(51.85) == "51.9" and fixed(-10.75, signed=True) == "-10.8" and fixed(69.1) == "69.1"
    assert fixed(54.0 - 64.7, signed=True) == "-10.7"
    assert half_up(Decimal("2.25"), 1) == Decimal("2.3")


def test_a_missing_figure_and_a_non_number_are_said():
    assert pct(None) == "–" and pct(None, none="-") == "-" and percent(None) is None
    with pytest.raises(ValueError, match="nan"):
        pct(float("nan"))
    with pytest.raises(TypeError):
        pct(True)
    with pytest.raises(ValueError):
        mean([])


#: Lines that print a percentage from its binary float on purpose: the official scripts' own
#: output, reproduced as they print it (``mmmu-eval rescore`` on an MMMU-Pro file).
OFFICIAL_PRINTING = {("cli/rescore.py", "Accuracy: {overall['accuracy'] * 100:.2f}%")}
_FLOAT_PERCENT = re.compile(r"\{[^{}]*(?:100(?:\.0)?\s*\*[^{}]*|\*\s*100\s*):\+?\.\d+f\}|\{[^{}]*:\+?\.\d+%\}")


def test_no_module_prints_a_percentage_from_its_float():
    # The one way stays the one way: a new table that writes f"{100 * x:.1f}" fails here.
    root = Path(mmmu_eval.__file__).parent
    found = []
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root).as_posix()
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            for match in _FLOAT_PERCENT.finditer(line):
                if not any(rel == f and snippet in line for f, snippet in OFFICIAL_PRINTING) and rel != "core/numbers.py":
                    found.append(f"{rel}:{number}: {match.group(0)}")
    assert found == []
