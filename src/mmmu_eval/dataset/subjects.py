"""The 30 MMMU subjects, their 6 disciplines, and the official short names.

The orders here are protocol, not taste: the discipline order is the official printing order
(``DOMAIN_CAT2SUB_CAT``), and the alphabetical subject order fixes the sequence of the official
scorer's random draws (official-protocol.md, sections 2.1-2.2 and 5.3).
"""

from __future__ import annotations

import difflib

from mmmu_eval.core.errors import ConfigError

#: Discipline -> subjects, in the official order (Sociology before Psychology).
DISCIPLINES: dict[str, tuple[str, ...]] = {
    "Art and Design": ("Art", "Art_Theory", "Design", "Music"),
    "Business": ("Accounting", "Economics", "Finance", "Manage", "Marketing"),
    "Science": ("Biology", "Chemistry", "Geography", "Math", "Physics"),
    "Health and Medicine": (
        "Basic_Medical_Science",
        "Clinical_Medicine",
        "Diagnostics_and_Laboratory_Medicine",
        "Pharmacy",
        "Public_Health",
    ),
    "Humanities and Social Science": ("History", "Literature", "Sociology", "Psychology"),
    "Tech and Engineering": (
        "Agriculture",
        "Architecture_and_Engineering",
        "Computer_Science",
        "Electronics",
        "Energy_and_Power",
        "Materials",
        "Mechanical_Engineering",
    ),
}

#: Official short CLI name -> subject (``CAT_SHORT2LONG``); insertion order is alphabetical by subject.
SHORT_NAMES: dict[str, str] = {
    "acc": "Accounting",
    "agri": "Agriculture",
    "arch": "Architecture_and_Engineering",
    "art": "Art",
    "art_theory": "Art_Theory",
    "bas_med": "Basic_Medical_Science",
    "bio": "Biology",
    "chem": "Chemistry",
    "cli_med": "Clinical_Medicine",
    "cs": "Computer_Science",
    "design": "Design",
    "diag_med": "Diagnostics_and_Laboratory_Medicine",
    "econ": "Economics",
    "elec": "Electronics",
    "ep": "Energy_and_Power",
    "fin": "Finance",
    "geo": "Geography",
    "his": "History",
    "liter": "Literature",
    "manage": "Manage",
    "mark": "Marketing",
    "mate": "Materials",
    "math": "Math",
    "mech": "Mechanical_Engineering",
    "music": "Music",
    "phar": "Pharmacy",
    "phys": "Physics",
    "psy": "Psychology",
    "pub_health": "Public_Health",
    "socio": "Sociology",
}

#: All 30 subjects in alphabetical order: the official order of loading and of random draws.
SUBJECTS: tuple[str, ...] = tuple(SHORT_NAMES.values())

_DISCIPLINE_OF: dict[str, str] = {s: d for d, subs in DISCIPLINES.items() for s in subs}


def discipline_of(subject: str) -> str:
    """The discipline a subject belongs to (``"Accounting"`` -> ``"Business"``)."""
    try:
        return _DISCIPLINE_OF[subject]
    except KeyError:
        raise ConfigError(_unknown_subject_message(subject)) from None


def resolve_subject(name: str) -> str:
    """Turn a long name, a short name or a case-insensitive spelling into the subject name.

    >>> resolve_subject("acc"), resolve_subject("basic medical science")
    ('Accounting', 'Basic_Medical_Science')
    """
    if name in _DISCIPLINE_OF:
        return name
    if name in SHORT_NAMES:
        return SHORT_NAMES[name]
    folded = name.strip().lower().replace(" ", "_").replace("-", "_")
    for subject in SUBJECTS:
        if subject.lower() == folded:
            return subject
    if folded in SHORT_NAMES:
        return SHORT_NAMES[folded]
    raise ConfigError(_unknown_subject_message(name))


def resolve_subjects(names: list[str] | tuple[str, ...] | None) -> tuple[str, ...]:
    """Resolve a subject filter to subjects in the official alphabetical order; None means all."""
    if not names:
        return SUBJECTS
    chosen = {resolve_subject(n) for n in names}
    return tuple(s for s in SUBJECTS if s in chosen)


def subject_from_id(item_id: str) -> str:
    """The subject of an official id: ``validation_Art_Theory_4`` -> ``Art_Theory``."""
    parts = item_id.split("_")
    return "_".join(parts[1:-1])


def _unknown_subject_message(name: str) -> str:
    pool = list(SUBJECTS) + list(SHORT_NAMES)
    close = difflib.get_close_matches(name, pool, n=1, cutoff=0.6)
    if not close:
        close = difflib.get_close_matches(name.lower(), [s.lower() for s in pool], n=1, cutoff=0.6)
        close = [resolve_subject(close[0])] if close else []
    hint = f"; did you mean {resolve_subject(close[0])}?" if close else ""
    return f"unknown subject {name!r}{hint} (known: {', '.join(SUBJECTS)})"
