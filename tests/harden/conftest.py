"""Fixtures for the harden tests: the known-answer set and a quiet display."""

from __future__ import annotations

import pytest

from fakes.mc_set import write_mmmu_set
from mmmu_eval.run.progress import NullDisplay


@pytest.fixture
def mmmu_set(tmp_path):
    """The 18-question MMMU-layout set of ``fakes.mc_set`` (answers known in advance)."""
    return write_mmmu_set(tmp_path / "mmmu")


@pytest.fixture
def quiet():
    return NullDisplay()
