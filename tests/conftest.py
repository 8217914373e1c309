"""Suite-wide settings: no test may reach the Hugging Face hub."""

import os

# Without these a missing hub id waits minutes on the network before it fails.
os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["HF_DATASETS_OFFLINE"] = "1"
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
