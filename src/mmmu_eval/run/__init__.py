"""One run, orchestrated: the stages called in pipeline order, and what a rerun may skip.

``pipeline`` (``evaluate``) reads top to bottom: ``resolve`` (one RunConfig), ``prepare``
(items, protocol, requests, draft manifest), ``resume`` (what the run directory already holds),
``runner`` (requests through a backend into the store), then the score stage, and ``outputs``
(statuses, manifest, results, predictions, submission, report page), where ``rescore --out``
ends too.
``dry_run`` (``plan_run``) goes through the same stages up to the backend and counts instead
of sending; ``finished`` answers a finished run from its stored results; ``progress`` is the
display the runner reports to.

Nothing is imported here, so ``import mmmu_eval.run.pipeline`` loads only what a run needs.
"""
