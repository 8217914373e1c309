"""What a run looks like on a terminal and on a page: tables fitted to the width, the page kit
(``page``), the run's report.html (``run_page`` and its ``html_*`` sections) and its charts. It
shows what the results, the doctor and the published figures hold; it computes none of them.
"""
