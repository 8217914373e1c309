"""The MMMU-Pro study in one call: many ordinary runs, one suite.json, one report.

``plan`` (which runs), ``execute`` (run them, one backend), ``rundirs`` (read them back),
``study`` (Table 1, CoT/OCR effects, flips), ``terminal`` and ``html`` (show it), ``progress``
(one display for all runs). The study reads run results and never re-scores.
"""
