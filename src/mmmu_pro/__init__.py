"""``mmmu-pro`` for verifiers: the module its id names (``vf-eval mmmu-pro``, ``vf.load_environment("mmmu-pro")``).

Nothing lives here; it is ``mmmu_eval.environments.mmmu_pro`` under the name verifiers imports.
"""

from mmmu_eval.environments.mmmu_pro import __all__, __getattr__, load_environment  # noqa: F401
