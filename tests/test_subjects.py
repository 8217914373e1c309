"""Every subject has a discipline, names resolve, and the orders are the official ones."""

import pytest

from mmmu_eval.dataset.subjects import (
    DISCIPLINES,
    SHORT_NAMES,
    SUBJECTS,
    discipline_of,
    resolve_subject,
    subject_from_id,
)
from mmmu_eval.errors import ConfigError


def test_thirty_subjects_in_six_disciplines():
    assert [len(s) for s in DISCIPLINES.values()] == [4, 5, 5, 5, 4, 7]
    assert sorted(s for subs in DISCIPLINES.values() for s in subs) == list(SUBJECTS)


def test_subjects_are_alphabetical_because_that_fixes_the_random_draws():
    assert list(SUBJECTS) == sorted(SUBJECTS)


@pytest.mark.parametrize("subject", SUBJECTS)
def test_every_subject_has_a_discipline(subject):
    assert subject in DISCIPLINES[discipline_of(subject)]


@pytest.mark.parametrize("short,long", sorted(SHORT_NAMES.items()))
def test_short_names_resolve(short, long):
    assert resolve_subject(short) == long
    assert resolve_subject(long) == long


def test_loose_spellings_resolve():
    assert resolve_subject("basic medical science") == "Basic_Medical_Science"
    assert resolve_subject("ACCOUNTING") == "Accounting"


def test_unknown_subject_suggests_the_closest():
    with pytest.raises(ConfigError, match="did you mean Accounting"):
        resolve_subject("acounting")


def test_sociology_precedes_psychology_in_print_order():
    subs = DISCIPLINES["Humanities and Social Science"]
    assert subs.index("Sociology") < subs.index("Psychology")


def test_subject_from_id_keeps_underscores():
    assert subject_from_id("validation_Art_Theory_4") == "Art_Theory"
    assert subject_from_id("test_Diagnostics_and_Laboratory_Medicine_17") == "Diagnostics_and_Laboratory_Medicine"
