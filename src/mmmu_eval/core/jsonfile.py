"""Reading JSON we did not write ourselves in this process: malformed at any depth and size is
malformed, never a traceback.

``json.loads`` refuses most damage with a ``ValueError`` (``JSONDecodeError``), which every
reader turns into its "damaged line / fix or restore" message. Two kinds of damage escaped
that: an array nested 100,000 deep raises ``RecursionError``, and an integer of more than 4,300
digits raises a ``ValueError`` whose advice (``sys.set_int_max_str_digits``) is for programmers
(issue 40: ``report`` and ``run`` ended with a traceback on such a manifest.json). ``loads`` turns
both into ``MalformedJSON``, a ``ValueError`` worded for the user, so a reader that catches
``ValueError`` (as each of ours does) names the file or line as for any other damage.
``read_json`` reads a whole file that way, through ``nofollow`` (a run's file is never read
through a link).

Every reader of a run's files (manifest.json, responses.jsonl, results.json, suite.json,
harden.json, items.jsonl, the lock file) and of another harness's files goes through here.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from mmmu_eval.core.nofollow import open_file

__all__ = ["MalformedJSON", "loads", "read_json"]


class MalformedJSON(ValueError):
    """JSON that parses in principle but not here: nested too deep, or a number too long."""


def loads(text: str | bytes) -> Any:
    """``json.loads(text)``, with too deep nesting and too long integers as ``MalformedJSON``.

    Raises:
        ValueError: not JSON (``JSONDecodeError``), or ``MalformedJSON`` with the reason;
            ``UnicodeDecodeError`` (a ``ValueError`` too) for bytes that are not UTF-8.
    """
    try:
        return json.loads(text)
    except RecursionError:
        raise MalformedJSON("nested deeper than a JSON reader follows (arrays or objects inside each other "
                            "about a thousand times or more)") from None
    except json.JSONDecodeError:
        raise
    except ValueError as exc:
        if "digits" not in str(exc):  # pragma: no cover - json.loads raises no other ValueError
            raise
        raise MalformedJSON("a number of more than 4,300 digits, longer than any value JSON of ours holds") from None


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
