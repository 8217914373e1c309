"""``mmmu-eval doctor --json FILE``: the diagnosis written where the user asks.

The document is ``Diagnosis.to_json`` (or ``SuiteDiagnosis.to_json``; docs/doctor.md); this is
the one place it is written, so the command line only asks for it.
"""

from __future__ import annotations

import json
from pathlib import Path

from mmmu_eval.core.atomic import write_atomically
from mmmu_eval.doctor.diagnosis import Diagnosis, SuiteDiagnosis
from mmmu_eval.core.errors import ConfigError

__all__ = ["save_diagnosis"]


def save_diagnosis(diagnosis: Diagnosis | SuiteDiagnosis, path: str | Path) -> Path:
    """Write ``diagnosis`` as JSON to ``path`` (whole, or not at all) and return the path.

    Raises:
        ConfigError: the file cannot be written there (no such folder, no permission, no space).

    ::

        save_diagnosis(mmmu_eval.diagnose("runs/qwen-val", published=58.6), "doctor.json")
    """
    target = Path(path)
    try:
        return write_atomically(target, json.dumps(diagnosis.to_json(), indent=2) + "\n")
    except OSError as exc:
        raise ConfigError(f"--json {target}: cannot write ({exc})") from None
