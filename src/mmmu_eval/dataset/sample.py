"""The bundled sample: a small synthetic MMMU and MMMU-Pro in the hub's exact parquet layout.

It ships inside the package (``mmmu_eval/sample_data``), is generated deterministically by
``scripts/make_sample.py``, and is read by the same snapshot reader as any local copy of the hub.
"""

from __future__ import annotations

from importlib import metadata
from pathlib import Path

#: Where the sample lives: ``MMMU/<Subject>/{dev,validation}-...`` and ``MMMU_Pro/<config>/test-...``.
SAMPLE_ROOT = Path(__file__).resolve().parent.parent / "sample_data"


def sample_revision() -> str:
    """``bundled-<package version>``: the sample changes only with a release of the package."""
    try:
        version = metadata.version("mmmu-eval")
    except metadata.PackageNotFoundError:
        version = "unknown"
    return f"bundled-{version}"
