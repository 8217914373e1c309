"""What a finished run holds: results.json (its figures and their shape), what a figure stands
for (``scope``, ``caveats``), the usage, the EvalAI submission, a rescored run's harness view,
one run read back (``finished_run``: ``FinishedRun``, ``read_run``) and two runs compared item by item
(``comparison``).
"""
