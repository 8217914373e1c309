"""The screenshots of MMMU-Pro's vision setting, made from an item: the page a question is
drawn on (``item_page``), headless Chromium capturing it (``browser``) and the phone-photo look
(``photo``). ``harden render`` (``harden/render.py``) is the step that uses them.
"""
