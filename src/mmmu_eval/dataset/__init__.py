"""Dataset stage: MMMU and MMMU-Pro rows in, normalised Item records out.

>>> from mmmu_eval.dataset import load_dataset
>>> load_dataset("mmmu-pro", setting="vision", data="sample").items[0].question
''
"""

from mmmu_eval.dataset.load import DEFAULT_REVISIONS, Dataset, find_item, load_dataset

__all__ = ["DEFAULT_REVISIONS", "Dataset", "find_item", "load_dataset"]
