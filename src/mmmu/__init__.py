"""``mmmu`` for verifiers: the module its id names (``vf-eval mmmu``, ``vf.load_environment("mmmu")``).

Nothing lives here; it is ``mmmu_eval.environments.mmmu`` under the name verifiers imports.
"""

from mmmu_eval.environments.mmmu import __all__, __getattr__, load_environment  # noqa: F401
