"""Reading JSON we did not write ourselves in this process: malformed at any depth and size is
malformed, never a traceback.

``json.loads`` refuses most damage with a ``ValueError`` (``JSONDecodeError``), which every
reader turns into its "damaged line / fix or restore" message. Three kinds of damage escaped
that: an array nested 100,000 deep raises ``RecursionError``; one nested 950 deep parses, and
then whatever walks the value recursively fails (``run --resume`` wrote such a manifest back
with ``json`` and ended in a ``RecursionError``); and an integer of more than 4,300 digits raises
a ``ValueError`` whose advice (``sys.set_int_max_str_digits``) is for programmers (issue 40:
``report`` and ``run`` ended with a traceback on such a manifest.json). ``loads`` turns each into
``MalformedJSON``, a ``ValueError`` worded for the user, so a reader that catches ``ValueError``
(as each of ours does) names the file or line as for any other damage. Deeper than
``MAX_DEPTH`` is malformed: what we write nests under 10, a chat completion about 5, the deepest
harness file we read about 20.
``read_json`` reads a whole file that way, through ``nofollow`` (a run's file is never read
through a link).

Every reader of a run's files (manifest.json, responses.jsonl, results.json, suite.json,
harden.json, items.jsonl, the lock file), of another harness's files and of a server's answers
(``backends/openai_wire.loads``, which names the failure ``NotJSON``) goes through here.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from mmmu_eval.core.nofollow import open_file

__all__ = ["MAX_DEPTH", "MalformedJSON", "loads", "read_json"]

#: Deepest nesting read: far above any JSON of ours or of the tools we read, far below where
#: Python's parser and every recursive walk of a value (``json.dumps``, ``repr``, ``copy``) stop.
MAX_DEPTH = 100


class MalformedJSON(ValueError):
    """JSON that parses in principle but not here: nested too deep, or a number too long."""


def loads(text: str | bytes, max_depth: int = MAX_DEPTH) -> Any:
    """``json.loads(text)``, with nesting deeper than ``max_depth`` and too long integers as
    ``MalformedJSON``.

    Raises:
        ValueError: not JSON (``JSONDecodeError``), or ``MalformedJSON`` with the reason;
            ``UnicodeDecodeError`` (a ``ValueError`` too) for bytes that are not UTF-8.
    """
    too_deep = f"nested deeper than {max_depth} levels (arrays or objects inside each other)"
    try:
        value = json.loads(text)
    except RecursionError:
        raise MalformedJSON(too_deep) from None
    except json.JSONDecodeError:
        raise
    except ValueError as exc:
        if "digits" not in str(exc):  # pragma: no cover - json.loads raises no other ValueError
            raise
        raise MalformedJSON("a number of more than 4,300 digits, longer than any value JSON of ours holds") from None
    if _deeper_than(value, max_depth):
        raise MalformedJSON(too_deep)
    return value


def _deeper_than(value: Any, limit: int) -> bool:
    """Whether containers nest more than ``limit`` deep: a walk without recursion."""
    stack = [(value, 1)] if isinstance(value, (dict, list)) else []
    while stack:
        item, depth = stack.pop()
        children = item.values() if isinstance(item, dict) else item
        if depth > limit:
            return True
        stack.extend((child, depth + 1) for child in children if isinstance(child, (dict, list)))
    return False


def read_json(path: str | Path) -> Any:
    """The JSON value in the file ``path`` (UTF-8), read without following a link.

    Raises:
        StoreError: ``path`` is a symbolic link (``nofollow``).
        OSError: it cannot be read (``FileNotFoundError`` when missing).
        ValueError: it is not UTF-8 or not JSON, as ``loads``.
    """
    with open_file(path) as fh:
        data = fh.read()
    return loads(data.decode("utf-8"))
