"""How the audit compares option texts: the same words, whatever the spacing or the case."""

from __future__ import annotations


def norm(text: object) -> str:
    """``text`` with its whitespace collapsed and its case folded (not text: its repr)."""
    if not isinstance(text, str):
        return repr(text)
    return " ".join(text.split()).casefold()
