"""Dataset stage: MMMU and MMMU-Pro rows in, normalised Item records out."""
