"""Dataset stage: MMMU and MMMU-Pro rows in, normalised Item records out.

>>> from mmmu_eval.dataset import load_benchmark
>>> load_benchmark("mmmu-pro", setting="vision", data="sample").items[0].question
''

The loader (and pyarrow under it) is imported on first use (PEP 562): the subject tables in
``dataset.subjects`` are needed by the CLI's flags, and an API run sends its first request
while the data is still being read, so neither may wait for pyarrow.
"""

import importlib as _importlib
import typing as _typing

if _typing.TYPE_CHECKING:
    from mmmu_eval.dataset.load import DEFAULT_REVISIONS, Benchmark, Dataset, find_item, load_benchmark, load_dataset

#: ``Dataset`` and ``load_dataset`` are ``Benchmark`` and ``load_benchmark`` under their earlier names.
__all__ = ["DEFAULT_REVISIONS", "Benchmark", "Dataset", "find_item", "load_benchmark", "load_dataset"]


def __getattr__(name: str) -> object:
    if name not in __all__:
        raise AttributeError(f"module 'mmmu_eval.dataset' has no attribute {name!r}")
    value = getattr(_importlib.import_module("mmmu_eval.dataset.load"), name)
    globals()[name] = value
    return value
