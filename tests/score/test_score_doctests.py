"""The usage examples in the parser modules' docstrings run and stay true."""

from __future__ import annotations

import doctest
import importlib

import pytest


@pytest.mark.parametrize("name", ["mmmu_parser", "mmmu_pro_parser", "open_answer", "boxed", "strict", "headline"])
def test_docstring_examples(name):
    module = importlib.import_module(f"mmmu_eval.score.{name}")
    result = doctest.testmod(module)
    assert result.attempted > 0 and result.failed == 0
