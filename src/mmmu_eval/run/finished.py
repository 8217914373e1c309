"""A finished run, run again: its stored result, found without reading the data or the answers.

Running the same command again is how every command here continues (``run``, ``suite``, each
``harden`` step). When the run directory already holds the whole run, the full path (load and
select the items, build every request, read every answer, score, rewrite the reports) only finds
out that nothing is left, which took seconds per run and minutes for a filter of 40 trial runs.
``finished_result`` answers from manifest.json and results.json instead, when it can be sure:

- the run ended ``complete`` (every item answered; no error, none missing), responses.jsonl
  is the size it had when scored (``answers_bytes`` in the manifest), and results.json (and
  report.html, when asked for) were written after the last answer;
- by this package version (and with no ``--answers`` file, whose contents could change), with the same configuration (apart from settings that change how
  requests are sent, never what is asked: endpoints, concurrency, retries, timeouts, batch size),
  the same protocol fingerprint, and the same data (source, revision and file digest, the last
  from the digest cache).

Anything else (a changed setting, new data, a run not complete) goes the full way, which also
gives the error or the resume a user expects. So the shortcut can only ever skip work whose
outcome is already on disk.
"""

from __future__ import annotations

import logging
from pathlib import Path
from collections.abc import Mapping
from typing import Any

from mmmu_eval.core.config import RunConfig
from mmmu_eval.core.errors import ConfigError, DataError, StoreError
from mmmu_eval.run.result import RunResult
from mmmu_eval.core.manifest import Manifest
from mmmu_eval.store.rundir import MANIFEST, RESPONSES
from mmmu_eval.core.version import __version__

__all__ = ["SENDING_ONLY", "finished_result"]

log = logging.getLogger(__name__)

#: Settings that change how requests are sent, never what is asked or how it is scored.
SENDING_ONLY = frozenset({"resume", "base_urls", "api_key_env", "concurrency", "max_attempts", "request_timeout",
                          "probe_timeout", "max_response_bytes", "batch_size", "allow_different_data"})


def finished_result(config: RunConfig) -> RunResult | None:
    """The stored result of the run in ``config.out`` when it is finished exactly as ``config``
    would run it (see the module doc); None when the run must take the full path."""
    out = Path(config.out or ".")
    if not config.resume or config.answers is not None or not (out / MANIFEST).is_file():
        return None
    from mmmu_eval.results.finished_run import read_run  # only for a directory that holds a run

    try:
        run = read_run(out, rebuild=False)  # the files as they are: no answer read, nothing scored
        manifest = Manifest.of(run.manifest, out / MANIFEST)
        if run.results is None or not _same_finished_run(config, manifest, out):
            return None
    except (StoreError, ConfigError, DataError, OSError, ValueError) as exc:
        log.debug("%s: not taken as finished (%s)", out, exc)
        return None
    return RunResult(out, manifest.to_json(), dict(run.results), dict(manifest.counts or {}))


def _same_finished_run(config: RunConfig, manifest: Manifest, out: Path) -> bool:
    from mmmu_eval.dataset.load import dataset_identity
    from mmmu_eval.prompt.protocol import EvalProtocol

    counts = manifest.counts
    if manifest.status != "complete" or counts is None:
        return False
    if counts.get("error") or counts.get("missing") or not counts.get("items"):
        return False
    if manifest.package_version != __version__:
        return False
    if not manifest.has_config or _asked(manifest.config) != _asked(config.to_manifest()):
        return False
    if manifest.protocol.get("fingerprint") != EvalProtocol.from_config(config).fingerprint():
        return False
    answers = (out / RESPONSES).stat()
    if manifest.answers_bytes != answers.st_size:  # answers added or cut since they were scored
        return False
    answered = answers.st_mtime_ns
    written = [out / "results.json"] + ([out / "report.html"] if config.html else [])
    if any(not f.is_file() or f.stat().st_mtime_ns < answered for f in written):
        return False
    stored = manifest.dataset
    identity = dataset_identity(config.benchmark, split=config.resolved_split if config.benchmark == "mmmu" else None,
                                setting=config.resolved_setting, data=config.data, revision=config.revision,
                                subjects=config.subjects)
    return identity == (stored.get("source"), stored.get("revision"), stored.get("digest"))


def _asked(config: Mapping[str, Any]) -> dict[str, Any]:
    """The settings that decide what is asked; one a manifest lacks (written before the setting
    existed) is its default, None, so an older finished run stays finished."""
    return {k: v for k, v in config.items() if k not in SENDING_ONLY and v is not None}
