"""Why a run's figure may differ from a published one: causes counted from the run (``mmmu-eval doctor``)."""

from mmmu_eval.report.causes import Cause, find_causes
from mmmu_eval.doctor.diagnose import Diagnosis, SuiteDiagnosis, diagnose, published_value

__all__ = ["Cause", "Diagnosis", "SuiteDiagnosis", "diagnose", "find_causes", "published_value"]
