"""Text from outside (answers, server messages, model names, item ids, file names): bounded where
it is stored or shown, and escaped before it reaches a terminal.

Two rules, each with one owner here, because every stage below the report stores or shows such
text and each used to do it its own way, or not at all (issue 40):

- **Bounded copies** (``capped``): an answer is stored whole once, in ``responses.jsonl``. Every
  other copy of it or of what is derived from it (``predictions.jsonl``'s ``response`` and
  ``pred``, results.json's verdicts, report.html, a terminal line) keeps its first
  ``SHOWN_CHARACTERS`` and a line saying it was cut and how long the whole is. A 200 MB answer
  made a 419 MB predictions.jsonl, since an open question's ``pred`` is the answer's whole text.
  The scoring reads the whole text (the official semantics); only the copies are cut. A terminal
  line cuts at ``LINE_CHARACTERS`` by the same rule.
- **Terminal text** (``for_terminal``, ``for_rich``, ``make_console``): control characters (ESC
  sequences that retitle the window, clear the screen or plant an OSC 8 hyperlink, ``\\r`` that
  overwrites a line, BEL), the C1 controls some terminals obey, the bidirectional overrides that
  reorder what is shown, and every other character Python does not call printable (a lone
  surrogate would stop the print) are written as their escapes (``\\x1b``, ``\\u202e``). Newlines and
  tabs stay: our own messages are several lines. In a Rich console, outside text is markup-escaped
  too (``[bold]`` in an answer prints as written) and emoji codes are off (``--model plug:smile:``
  never prints a smiley): every console we make comes from ``make_console``.

The log lines (``cli/main``), the plain lines (``cli/wrap.echo``), the error line and every Rich
table or line that holds outside text go through here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # rich is imported when a console is made, not when this module is
    from rich.console import Console

__all__ = ["LINE_CHARACTERS", "SHOWN_CHARACTERS", "capped", "capped_or_none", "for_rich", "for_terminal", "make_console"]

#: Most characters of an answer, its reasoning, or a field derived from one (an open question's
#: ``pred``) that any copy outside responses.jsonl keeps: far above a real answer's length, small
#: enough that a page or a predictions file stays readable.
SHOWN_CHARACTERS = 100_000

#: Most characters of such a copy in one terminal line or table cell (a disagreement's or a flip's
#: prediction): the same rule, at a terminal's scale.
LINE_CHARACTERS = 200


def capped(text: str, limit: int = SHOWN_CHARACTERS) -> str:
    """``text``, or its first ``limit`` characters and a line saying it was cut and how long it was.

    >>> capped("abcdefgh", 3)
    'abc\\n[... cut at 3 of 8 characters: 5 more characters; the whole text is in responses.jsonl]'
    """
    if len(text) <= limit:
        return text
    return (f"{text[:limit]}\n[... cut at {limit:,} of {len(text):,} characters: {len(text) - limit:,} more "
            "characters; the whole text is in responses.jsonl]")


def capped_or_none(value: Any, limit: int = SHOWN_CHARACTERS) -> Any:
    """``capped`` for a string, anything else (None, a letter list) as it is: for a ``pred``."""
    return capped(value, limit) if isinstance(value, str) else value


def _escape(char: str) -> str:
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def for_terminal(text: str) -> str:
    """``text`` with every character a terminal could obey rather than show written as its escape:
    whatever Python does not call printable (C0 controls such as ESC, BEL and ``\\r``, DEL, the C1
    controls, bidirectional overrides and other format characters, line separators, lone
    surrogates), tab and newline kept.

    >>> for_terminal("ok\\x1b]0;pwned\\x07 \\r[bold]")
    'ok\\\\x1b]0;pwned\\\\x07 \\\\x0d[bold]'
    """
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() or c in "\n\t" else _escape(c) for c in text)


def for_rich(text: str) -> str:
    """``for_terminal``, then escaped for Rich markup: outside text put in a markup string."""
    from rich.markup import escape

    return escape(for_terminal(text))


def make_console(**options: Any) -> "Console":
    """A Rich console for our output: no emoji codes, no highlighting (``options`` as Console's)."""
    from rich.console import Console

    return Console(**{"highlight": False, "emoji": False, **options})
