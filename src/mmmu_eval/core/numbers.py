"""How every percentage and difference is printed: from the exact value, rounded half up, once.

A reader who checks a figure divides the correct answers by the items by hand and rounds half
up: 1,037 right of 2,000 is 51.85%, printed 51.9. Formatting the binary float instead
(``f"{100 * x:.1f}"``) rounds the float, and the float nearest 0.5185 lies just below it, so it
prints 51.8; of the fractions k/d with d < 1,800, 1,146 print
differently that way. Every table, page and JSON summary goes through this module, so a run
shows one figure wherever it is read: the terminal, the run's page, the suite's Table 1, the
harden and doctor reports.

Floats come in as the float nearest a fraction (an accuracy k/n stored in results.json). The
float's ``repr`` is the shortest decimal that reads back as it: when k/n is a tie (a short decimal
such as 0.5185) the repr is that decimal exactly, and when it is not, the repr lies within one
unit in the last place (about 1e-16) of k/n while the nearest tie is at least 1/(2000 n) away
(5e-8 at n = 10,500). So rounding the repr is rounding k/n; tests/core/test_numbers.py checks
every k/n with n <= 1,800 and n = 10,500 against exact fraction arithmetic. That holds for a
float nearest a fraction, not for the result of float arithmetic (0.5185 - 0.3 is
0.21850000000000003): a difference or a mean is made from the exact values (``exact``,
``points``, ``mean``) and rounded once.

>>> pct(0.5185), pct(points(0.5185, 0.3), signed=True), percent(0.5185)
('51.9', '+21.9', 51.9)
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from decimal import ROUND_HALF_UP, Context, Decimal
from fractions import Fraction
from typing import Union

__all__ = ["Number", "exact", "fixed", "half_up", "interval", "mean", "pct", "percent", "points", "rounded"]

#: What the functions take: a float stands for the shortest decimal that reads back as it.
Number = Union[int, float, Fraction, Decimal]

#: Enough digits that multiplying a float's repr (17 digits) by 100 never rounds.
_EXACT = Context(prec=60)


def _read(x: Number) -> Decimal | Fraction:
    """A float as the decimal its repr writes (see the module); a Fraction as it is."""
    if isinstance(x, bool):
        raise TypeError(f"a figure is a number, not {x!r}")
    if isinstance(x, Fraction):
        return x
    if isinstance(x, float):
        if not math.isfinite(x):
            raise ValueError(f"cannot print {x!r} as a figure")
        return Decimal(repr(x))
    return Decimal(x)


def exact(x: Number) -> Fraction:
    """The exact value a number stands for, for arithmetic on figures before they are rounded."""
    return Fraction(_read(x))


def half_up(x: Number, places: int = 1, *, scale: int = 1) -> Decimal:
    """``scale * x`` rounded half away from zero to ``places`` decimals, as a Decimal with those places.

    A negative value that rounds to zero keeps its sign (``-0.0``), as the float formatting it
    replaces printed it: a difference a hair below zero reads as one. A float, int or Decimal
    is rounded in decimal arithmetic (exact at this precision, and quick); a Fraction, whose
    decimal may not end, in integers.
    """
    value = _read(x)
    if isinstance(value, Fraction):
        value *= scale
        whole = math.floor(abs(value) * 10**places + Fraction(1, 2))
        return Decimal((1 if value < 0 else 0, tuple(int(c) for c in str(whole)), -places))
    return _EXACT.multiply(value, scale).quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP, context=_EXACT)


def _text(value: Decimal, places: int, signed: bool) -> str:
    return f"{value:{'+' if signed else ''}.{places}f}"


def fixed(x: Number, places: int = 1, *, signed: bool = False) -> str:
    """``x`` (already in the unit printed, e.g. a published percentage) rounded half up: ``51.9``, ``+1.2``."""
    return _text(half_up(x, places), places, signed)


def rounded(x: Number, places: int) -> float:
    """``fixed`` as a JSON number: a figure stored rounded (the doctor's points) rounds as it prints."""
    return float(half_up(x, places))


def pct(fraction: Number | None, places: int = 1, *, signed: bool = False, none: str = "–") -> str:
    """A fraction in [0, 1] (or a difference of two) as percent, rounded half up: 0.5185 -> ``51.9``.

    ``signed`` prints the sign of a difference in points (``+1.2``); ``none`` stands for a
    missing figure. The percent sign is the caller's, since tables print it in the heading.
    """
    if fraction is None:
        return none
    return _text(half_up(fraction, places, scale=100), places, signed)


def interval(
    bounds: tuple[Number, Number] | list[Number] | None, places: int = 1, *, signed: bool = False,
    as_is: bool = False, none: str = "–",
) -> str:
    """An interval as ``[low, high]``, one form everywhere: ``[2.5, 17.5]`` (percent, from fractions).

    ``as_is`` prints the numbers in the unit they come in (``fixed``): the official table's
    fractions to 3 places (``[0.025, 0.175]``), or figures already in percent (suite.json's
    ``ci95_percent``). ``signed`` prints differences (``[-20.8, +12.6]``). The unit is the caller's to say.
    """
    if bounds is None:
        return none
    low, high = bounds
    if as_is:
        return f"[{fixed(low, places, signed=signed)}, {fixed(high, places, signed=signed)}]"
    return f"[{pct(low, places, signed=signed)}, {pct(high, places, signed=signed)}]"


def percent(fraction: Number | None, places: int = 1) -> float | None:
    """The printed figure as a JSON number (suite.json's ``percent``): ``pct`` read back as a float."""
    if fraction is None:
        return None
    return float(half_up(fraction, places, scale=100))


def points(a: Number, b: Number) -> Fraction:
    """``a - b`` exactly: the difference of two fractions, for ``pct(..., signed=True)`` to round once."""
    return exact(a) - exact(b)


def mean(values: Iterable[Number]) -> Fraction:
    """The exact mean of fractions (the MMMU-Pro overall of two settings), rounded once when printed."""
    terms = [exact(v) for v in values]
    if not terms:
        raise ValueError("the mean of no figures")
    return sum(terms, Fraction(0)) / len(terms)
