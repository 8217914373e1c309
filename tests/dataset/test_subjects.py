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
from mmmu_eval.core.errors import ConfigError

# Copied by hand from official-protocol.md 2.1 (``DOMAIN_CAT2SUB_CAT``), in its order: the module
# under test must agree with the specification, not with itself.
OFFICIAL_DISCIPLINES = [
    ("Art and Design", ["Art", "Art_Theory", "Design", "Music"]),
    ("Business", ["Accounting", "Economics", "Finance", "Manage", "Marketing"]),
    ("Science", ["Biology", "Chemistry", "Geography", "Math", "Physics"]),
    ("Health and Medicine", ["Basic_Medical_Science", "Clinical_Medicine", "Diagnostics_and_Laboratory_Medicine",
                             "Pharmacy", "Public_Health"]),
    ("Humanities and Social Science", ["History", "Literature", "Sociology", "Psychology"]),
    ("Tech and Engineering", ["Agriculture", "Architecture_and_Engineering", "Computer_Science", "Electronics",
                              "Energy_and_Power", "Materials", "Mechanical_Engineering"]),
]
# And from 2.2 (``CAT_SHORT2LONG``).
OFFICIAL_SHORT_NAMES = (
    "acc Accounting, agri Agriculture, arch Architecture_and_Engineering, art Art, art_theory Art_Theory, "
    "bas_med Basic_Medical_Science, bio Biology, chem Chemistry, cli_med Clinical_Medicine, cs Computer_Science, "
    "design Design, diag_med Diagnostics_and_Laboratory_Medicine, econ Economics, elec Electronics, "
    "ep Energy_and_Power, fin Finance, geo Geography, his History, liter Literature, manage Manage, mark Marketing, "
    "mate Materials, math Math, mech Mechanical_Engineering, music Music, phar Pharmacy, phys Physics, "
    "psy Psychology, pub_health Public_Health, socio Sociology"
)
SHORT_TO_LONG = [tuple(pair.split()) for pair in OFFICIAL_SHORT_NAMES.split(", ")]


def test_thirty_subjects_in_six_disciplines():
    assert [len(s) for s in DISCIPLINES.values()] == [4, 5, 5, 5, 4, 7]
    assert sorted(s for subs in DISCIPLINES.values() for s in subs) == list(SUBJECTS)


def test_subjects_are_alphabetical_because_that_fixes_the_random_draws():
    assert list(SUBJECTS) == sorted(SUBJECTS)


def test_disciplines_and_their_subjects_are_the_official_ones_in_the_official_order():
    assert [(d, list(subs)) for d, subs in DISCIPLINES.items()] == OFFICIAL_DISCIPLINES


@pytest.mark.parametrize(
    "subject, discipline", [(s, d) for d, subjects in OFFICIAL_DISCIPLINES for s in subjects]
)
def test_every_subject_has_its_official_discipline(subject, discipline):
    assert discipline_of(subject) == discipline


@pytest.mark.parametrize("short,long", SHORT_TO_LONG)
def test_short_names_resolve(short, long):
    assert resolve_subject(short) == long
    assert resolve_subject(long) == long


def test_the_short_names_are_the_official_ones_in_the_official_order():
    assert list(SHORT_NAMES.items()) == SHORT_TO_LONG


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
