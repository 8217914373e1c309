"""The items made directly, their responses and their scoring, shared with the other folders that test a run's figures (``fakes/scored_items.py``)."""

from fakes.scored_items import build, items, manifest, responses, scoring  # noqa: F401  (fixtures)
