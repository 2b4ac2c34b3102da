"""Why a detector misses (docs/diagnosis.md): the computation in `compute`, its report in `report`."""

from .compute import DEFAULT_EXAMPLES, DEFAULT_FPPI, FOREGROUND_HEIGHT, Diagnosis, View, diagnose
from .error_types import FP_TYPES, ORACLES, never_worse, type_false_positives

__all__ = ["DEFAULT_EXAMPLES", "DEFAULT_FPPI", "FOREGROUND_HEIGHT", "FP_TYPES", "ORACLES", "Diagnosis", "View",
           "diagnose", "never_worse", "type_false_positives"]
