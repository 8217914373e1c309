"""Fixtures for the harden tests: a fresh image cache, the known-answer set, a quiet display."""

from __future__ import annotations

import pytest

from fakes.mc_set import write_mmmu_set
from mmmu_eval.dataset import parquet
from mmmu_eval.progress import NullDisplay


@pytest.fixture(autouse=True)
def _fresh_image_cache():
    parquet.clear_cache()
    yield
    parquet.clear_cache()


@pytest.fixture
def mmmu_set(tmp_path):
    """The 18-question MMMU-layout set of ``fakes.mc_set`` (answers known in advance)."""
    return write_mmmu_set(tmp_path / "mmmu")


@pytest.fixture
def quiet():
    return NullDisplay()
