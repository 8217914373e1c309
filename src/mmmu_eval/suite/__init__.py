"""The MMMU-Pro study in one call: many ordinary runs, one suite.json, one report.

``config`` (which runs), ``execute`` (run them, one backend), ``run_records`` (read them back),
``study`` (Table 1, CoT/OCR effects, flips), ``terminal`` and ``html`` (show it, with
``table1_layout``: Table 1 among the paper's rows), ``progress``
(one display for all runs). The study reads run results and never re-scores.
"""
