"""Why a detector misses (docs/diagnosis.md).

- `params`: `DiagnosisParams`, what a diagnosis is asked, with the kit's defaults;
- `compute`: `diagnose(gt, dets, params)`, a pure function returning a `Diagnosis`;
- `error_types`: the false-positive types and oracle fixes, one definition each;
- `categories`: the kinds of pedestrian misses are counted by;
- `report` and `figures`: tables, diagnosis.json, report.md, figures and drawn examples, made from a
  `Diagnosis` (`write_report` returns what it wrote).
"""

from .compute import OUTCOMES, Diagnosis, Example, Outcomes, View, diagnose
from .error_types import (
    FALSE_POSITIVE_TYPES,
    FP_TYPES,
    MISS_FIXES,
    ORACLES,
    FalsePositiveType,
    MissFix,
    never_worse,
    type_false_positives,
)
from .params import DEFAULT_EXAMPLES, DEFAULT_FPPI, FOREGROUND_HEIGHT, DiagnosisParams
from .report import WrittenReport, matches_table, write_matches, write_report

__all__ = [
    "DEFAULT_EXAMPLES", "DEFAULT_FPPI", "FALSE_POSITIVE_TYPES", "FOREGROUND_HEIGHT", "FP_TYPES", "MISS_FIXES",
    "OUTCOMES", "ORACLES", "Diagnosis", "DiagnosisParams", "Example", "FalsePositiveType", "MissFix", "Outcomes",
    "View", "WrittenReport", "diagnose", "matches_table", "never_worse", "type_false_positives", "write_matches",
    "write_report",
]
