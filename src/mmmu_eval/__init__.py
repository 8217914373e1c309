"""mmmu-eval: evaluate vision-language models on MMMU and MMMU-Pro, the official way."""

from mmmu_eval.config import RunConfig
from mmmu_eval.errors import BackendError, ConfigError, DataError, MmmuEvalError, StoreError
from mmmu_eval.records import (
    GenerationSettings,
    ImagePart,
    ImageRef,
    Item,
    Request,
    Response,
    TextPart,
    Verdict,
)

__version__ = "0.1.0"

__all__ = [
    "BackendError",
    "ConfigError",
    "DataError",
    "GenerationSettings",
    "ImagePart",
    "ImageRef",
    "Item",
    "MmmuEvalError",
    "Request",
    "Response",
    "RunConfig",
    "StoreError",
    "TextPart",
    "Verdict",
    "__version__",
]
