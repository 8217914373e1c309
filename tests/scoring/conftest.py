"""Small hand-made items and responses, and the fidelity folder (``fakes/hand_items.py``)."""

from fakes.hand_items import fidelity, make_item, make_item_factory, response, response_factory  # noqa: F401  (fixtures)
