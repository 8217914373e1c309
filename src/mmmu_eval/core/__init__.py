"""The ground floor: the small shared things every stage uses and no stage owns.

The records (``records``), the errors, the run's configuration, ``manifest.json`` read back, the
version, whole-file writes (``atomic``), the clock, the synchronous entry to async code (``aio``),
one writer per directory (``writer_lock``) and how a figure prints (``numbers``). Nothing here
imports anything of ours from above.
"""
