"""The column layout of the hub's parquet files, declared once.

The loaders read these files, and the bundled-sample generator and the test fixtures write
them, so all three agree on one shape: the shape of ``MMMU/MMMU`` and ``MMMU/MMMU_Pro`` on the
hub (official-protocol.md, sections 3 and 6.1). Every column is a string except images, which
the ``datasets`` library stores as a struct ``{bytes: binary, path: string}``.
"""

from __future__ import annotations

import json

import pyarrow as pa

#: An HF ``Image`` feature as parquet stores it.
IMAGE_TYPE = pa.struct([("bytes", pa.binary()), ("path", pa.string())])

#: ``image_1`` ... ``image_7``: the most images an MMMU row can have.
NUMBERED_IMAGES: tuple[str, ...] = tuple(f"image_{n}" for n in range(1, 8))

#: MMMU (every subject config, every split).
MMMU_COLUMNS: tuple[str, ...] = (
    "id", "question", "options", "explanation", *NUMBERED_IMAGES,
    "img_type", "answer", "topic_difficulty", "question_type", "subfield",
)
#: MMMU-Pro ``standard (10 options)`` and ``standard (4 options)``: no question_type, no subfield.
PRO_STANDARD_COLUMNS: tuple[str, ...] = (
    "id", "question", "options", "explanation", *NUMBERED_IMAGES,
    "img_type", "answer", "topic_difficulty", "subject",
)
#: MMMU-Pro ``vision``: one screenshot or photo holding the question and its options.
PRO_VISION_COLUMNS: tuple[str, ...] = ("id", "image", "options", "answer", "subject")


def is_image_column(name: str) -> bool:
    """True for ``image`` and ``image_N``, the columns whose cells are pictures."""
    return name == "image" or (name.startswith("image_") and name[6:].isdigit())


def arrow_schema(columns: tuple[str, ...]) -> pa.Schema:
    """The arrow schema of a file with these columns, with the HF features in its metadata.

    The ``huggingface`` metadata key is what ``datasets`` writes; carrying it makes a written
    file indistinguishable in shape from a hub file.
    """
    fields = [pa.field(c, IMAGE_TYPE if is_image_column(c) else pa.string()) for c in columns]
    features = {
        c: {"_type": "Image"} if is_image_column(c) else {"dtype": "string", "_type": "Value"}
        for c in columns
    }
    meta = {"info": {"features": features}}
    return pa.schema(fields, metadata={b"huggingface": json.dumps(meta).encode()})
