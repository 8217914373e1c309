"""Fixtures for the dataset tests: a fresh image cache, a snapshot root, a local stand-in hub."""

from __future__ import annotations

import pytest

from fakes.parquet_rows import LocalHub, fresh_image_cache  # noqa: F401 (autouse)
from mmmu_eval.dataset import hub


@pytest.fixture
def snap(tmp_path):
    """An empty snapshot root; write files into it with fakes.parquet_rows."""
    root = tmp_path / "snap"
    root.mkdir()
    return root


@pytest.fixture
def local_hub(tmp_path):
    """A LocalHub serving tmp_path/hub/<owner>/<name>, installed as the hub client."""
    fake = LocalHub(tmp_path / "hub", tmp_path / "hf-cache")
    previous = hub.set_client(fake)
    yield fake
    hub.set_client(previous)
