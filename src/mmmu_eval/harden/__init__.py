"""The MMMU-Pro construction method, on any multiple-choice set: filter, augment, render.

MMMU-Pro (Yue et al., "MMMU-Pro: A More Robust Multi-discipline Multimodal Understanding
Benchmark", arXiv:2409.02813, section 2.2) made MMMU robust in three steps, each a module here:

- ``filter.py``: drop questions text-only models answer (trials through the ordinary runner),
  then sample per subject -> ``standard (4 options)``;
- ``augment.py``: an LLM proposes distractors, validated, shuffled, reviewed -> ``standard (10 options)``;
- ``render.py``: each question as one page in headless Chromium, a screenshot or a photo of a screen -> ``vision``.

Each step reads ``--data`` (``source.py``) and writes ``--out`` in the hub's MMMU-Pro layout
(``writer.py``, the only writer of dataset files) with ``harden.json`` (``record.py``) and a
report (``report.py``); ``pipeline.py`` runs all three. Each step takes its own settings object
(``settings.py``). The output is what ``mmmu-eval run --benchmark mmmu-pro --data OUT`` evaluates.

>>> filtering = FilterSettings(models="frequent,frequent,frequent,random", trials=2)
>>> result = harden_filter("sample", "hard", filtering, source=SourceSettings(limit=8))
>>> result.status, result.out
('complete', PosixPath('hard'))
"""

from mmmu_eval.harden.augment import harden_apply, harden_apply_async, harden_augment, harden_augment_async
from mmmu_eval.harden.filter import harden_filter, harden_filter_async
from mmmu_eval.harden.outdir import StepResult
from mmmu_eval.harden.all_steps import harden_all, harden_all_async
from mmmu_eval.harden.problems import Problem
from mmmu_eval.harden.record import Record
from mmmu_eval.harden.render import harden_render, harden_render_async
from mmmu_eval.harden.step_settings import AugmentSettings, CheckSettings, FilterSettings, RenderSettings, SourceSettings
from mmmu_eval.harden.trials import Model

__all__ = [
    "AugmentSettings",
    "CheckSettings",
    "FilterSettings",
    "Model",
    "Problem",
    "Record",
    "RenderSettings",
    "SourceSettings",
    "StepResult",
    "harden_all",
    "harden_all_async",
    "harden_apply",
    "harden_apply_async",
    "harden_augment",
    "harden_augment_async",
    "harden_filter",
    "harden_filter_async",
    "harden_render",
    "harden_render_async",
]
