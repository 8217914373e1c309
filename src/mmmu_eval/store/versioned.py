"""Reading a JSON file that carries a ``schema_version``: ``results.json`` and ``suite.json``.

Both readers answer the same three ways: None when there is no file, a StoreError naming the file
when it cannot be read or parsed, and another when it holds something other than the version this
package writes (or lacks a key it must have). Each keeps its own words, because each tells the
user a different command to run again.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from mmmu_eval.core.errors import StoreError
from mmmu_eval.core.jsonfile import read_json
from mmmu_eval.core.nofollow import exists

__all__ = ["read_versioned"]


def read_versioned(file: Path, version: int, *, unreadable: str, other_version: str,
                   required: Sequence[str] = ()) -> dict[str, Any] | None:
    """The JSON object in ``file``, or None when there is no file.

    Raises:
        StoreError: ``file`` is a symbolic link (never followed out of the directory); or on
            ``file``, its message is ``unreadable`` formatted with ``error`` (why it
            could not be read), or, when the object's ``schema_version`` is not ``version`` or a
            ``required`` key is missing, ``other_version`` formatted with ``found`` (the
            ``schema_version`` it holds, None for no object).
    """
    if not exists(file):
        return None
    try:
        data = read_json(file)
    except (OSError, ValueError) as exc:
        raise StoreError(unreadable.format(error=exc), file) from exc
    if not isinstance(data, dict) or data.get("schema_version") != version or any(k not in data for k in required):
        found = data.get("schema_version") if isinstance(data, dict) else None
        raise StoreError(other_version.format(found=found), file)
    return data
