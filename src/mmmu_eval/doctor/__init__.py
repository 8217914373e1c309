"""Why a run's figure may differ from a published one: the causes counted from the run, their
expected effects, the causes outside it, the named failures and the ``Diagnosis`` that holds them.

``mmmu-eval doctor`` is ``commands.diagnose``; ``report.html`` shows the same ``Diagnosis``
(``rendering.html_causes``).
"""

from mmmu_eval.doctor.causes import Cause, find_causes
from mmmu_eval.doctor.diagnosis import Diagnosis, SuiteDiagnosis
from mmmu_eval.doctor.examine import diagnose_run, published_value

__all__ = ["Cause", "Diagnosis", "SuiteDiagnosis", "diagnose_run", "find_causes", "published_value"]
