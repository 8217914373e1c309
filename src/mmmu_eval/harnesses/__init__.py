"""Another harness's output file, scored as ours: a user of the stages, like suite and harden.

``read`` (``rescore``) reads the file with its format's reader (``harnesses/readers``), joins its
rows to our items (``harnesses/join``), scores them with the official parsers and explains each
verdict that differs from the harness's (``scoring/explain``). ``write`` turns that result into
an ordinary run directory (``rescore --out``), which every report, compare and doctor reads.
"""
