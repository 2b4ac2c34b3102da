"""Why a detector misses (docs/diagnosis.md).

- `params`: `DiagnosisParams`, what a diagnosis is asked, with the kit's defaults;
- `compute`: `diagnose(gt, dets, params)`, a pure function returning a `Diagnosis`;
- `error_types`: the false-positive types and oracle fixes, one definition each;
- `categories`: the kinds of pedestrian misses are counted by;
- `report` and `figures`: tables, diagnosis.json, report.md, figures and drawn examples, made from a
  `Diagnosis` (`write_report` returns what it wrote);
- `run`: `diagnose_file(path, gt, params, options)`, all of it for a result file, as `kaist-kit
  diagnose` does it.
"""

import importlib

# Each name is imported from its module on first use (PEP 562): the CLI reads the defaults of
# `params` when it starts, and loads the rest only to diagnose.
_MODULES = {
    "compute": ("OUTCOMES", "Diagnosis", "Example", "Outcomes", "View", "diagnose"),
    "error_types": (
        "FALSE_POSITIVE_TYPES",
        "FP_TYPES",
        "MISS_FIXES",
        "ORACLES",
        "FalsePositiveType",
        "MissFix",
        "never_worse",
        "type_false_positives",
    ),
    "params": ("DEFAULT_EXAMPLES", "DEFAULT_FPPI", "FOREGROUND_HEIGHT", "DiagnosisParams"),
    "report": ("ReportPlan", "WrittenReport", "matches_table", "plan_report", "write_matches", "write_report"),
    "run": ("DiagnosedFile", "diagnose_file"),
}
_EXPORTS = {name: module for module, names in _MODULES.items() for name in names}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str):
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{_EXPORTS[name]}"), name)


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))
