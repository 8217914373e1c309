"""Suite-wide settings: no test may reach the Hugging Face hub."""

import os

# Without these a missing hub id waits minutes on the network before it fails.
os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["HF_DATASETS_OFFLINE"] = "1"
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

import sys
from pathlib import Path

# Shared fakes (fault-injection server, tiny models, parquet writers) import as `fakes.<name>`.
sys.path.insert(0, str(Path(__file__).parent))
