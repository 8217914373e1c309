"""``mmmu-eval audit --json FILE --html FILE``: the audit written where the user asks.

The JSON document is ``Audit.to_json`` (docs/audit.md) and the page ``audit_page``; this is the
one place they are written, so the command line only asks for them.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from mmmu_eval.core.atomic import write_atomically
from mmmu_eval.core.errors import ConfigError
from mmmu_eval.auditing import Audit

__all__ = ["save_audit"]


def save_audit(result: Audit, *, json_file: str | Path | None = None, html_file: str | Path | None = None,
               images_from: str | Path | None = None) -> tuple[Path, ...]:
    """Write the audit's JSON document and its reviewers' page (each whole, or not at all).

    The page shows each suspect's images where the runs' items hold them, and, with
    ``images_from`` (a dataset: ``hub``, ``sample`` or a snapshot directory), for the items of
    files that hold none (``card_images.card_images``).

    Returns:
        The paths written, JSON first.

    Raises:
        ConfigError: a file cannot be written there (no such folder, no permission, no space).

    ::

        save_audit(mmmu_eval.audit(["runs/a", "runs/b", "runs/c"]), json_file="audit.json", html_file="audit.html")
    """
    written = []
    if json_file is not None:
        written.append(_write(Path(json_file), "--json", lambda: json.dumps(result.to_json(), indent=1,
                                                                            ensure_ascii=False) + "\n"))
    if html_file is not None:
        from mmmu_eval.auditing.audit_page import audit_page
        from mmmu_eval.auditing.card_images import card_images

        images = card_images((s.id for s in result.suspects), result.runs, images_from)
        written.append(_write(Path(html_file), "--html", lambda: audit_page(result, images=images)))
    return tuple(written)


def _write(target: Path, flag: str, content: Callable[[], str]) -> Path:
    try:
        return write_atomically(target, content())
    except OSError as exc:
        raise ConfigError(f"{flag} {target}: cannot write ({exc})") from None
