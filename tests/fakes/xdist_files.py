"""How ``make test`` hands the 3.11 session's tests to pytest-xdist's workers (``-n N --dist loadfile``).

A whole file goes to one worker, so a file's module-scoped fixtures (tiny models, a browser, a
fault server) are built once, as in a one-process run. On top of xdist's own ``loadfile``:

- the files that use one of ``SHARED_SESSION_FIXTURES`` go to one worker together, so that one
  ``transformers serve`` starts for them all, not one per worker (it takes seconds of CPU and a
  gigabyte; two starting at once on a busy machine ran past their 90 s to become healthy);
- files are handed out in the order the workers collected them, which ``tests/conftest.py`` puts
  heavy files first (a test marked ``slow`` or ``hf``), not by xdist's count of tests per file,
  which would leave the long files of few tests to the end.

tests/conftest.py picks this scheduler for ``--dist loadfile`` when pytest-xdist is installed.
"""

from __future__ import annotations

from pathlib import Path

from xdist.scheduler import LoadFileScheduling

#: Session fixtures that are worth starting once: every file naming one runs on the same worker.
SHARED_SESSION_FIXTURES = ("served_tiny_llava",)


class FilesTogether(LoadFileScheduling):
    """``loadfile``, with the files of a shared session fixture as one unit, in collection order."""

    def __init__(self, config, log=None) -> None:
        super().__init__(config, log)
        config.option.loadscopereorder = False  # collection order: tests/conftest.py put the heavy files first
        self._root = Path(config.rootpath)
        self._units: dict[str, str] = {}

    def _split_scope(self, nodeid: str) -> str:
        file = nodeid.split("::", 1)[0]
        if file not in self._units:
            self._units[file] = unit_of(self._root / file, file)
        return self._units[file]


def unit_of(path: Path, file: str) -> str:
    """The unit ``file`` runs in: the first shared session fixture its source names, else itself."""
    try:
        source = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return file
    return next((f"fixture {name}" for name in SHARED_SESSION_FIXTURES if name in source), file)
